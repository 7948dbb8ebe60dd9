// Memory, cache eviction and timing of one compute backend. Kernels never see this interface;
// the workspace uses it to hold buffers and time one call of a variant.
#pragma once
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/launch.h"

namespace fusebench {

enum class BackendKind { Cpu, Cuda };

// How a device-to-device copy is made: the runtime's copy (cudaMemcpy, memcpy) or fusebench's own
// vectorized copy kernel (the map kernel every elementwise case uses, with the identity).
enum class CopyMethod { Runtime, Kernel };

// Memory a timed call touches: a buffer that a cache flush must evict.
struct MemoryRegion {
  const void* ptr;
  size_t bytes;
};

// What a recorded graph holds, for the results: whether its launches went with programmatic dependent
// launch (LaunchContext::pdl) and the graph's own count of what that made of it.
struct GraphFacts {
  // The launches of our kernels were recorded with PDL and the graph has programmatic edges.
  bool pdl = false;
  // Why not, where pdl is false (the device, the toolkit, the driver, the kernels' build, or no
  // programmatic edge in the recorded graph); empty where pdl is true.
  std::string no_pdl_reason;
  int kernel_nodes = 0;
  // Edges of type programmatic (cudaGraphDependencyTypeProgrammatic) in the graph; -1 where the toolkit
  // cannot list edge types (CUDA < 12.3, where nothing is recorded with PDL).
  int programmatic_edges = -1;
};

// Launches recorded once and replayed as one unit (a CUDA graph): what an eager framework's launches cost
// once the host's launch overhead is gone.
class Replay {
 public:
  virtual ~Replay() = default;
  // Queues the recorded launches on the backend's stream (not waited for: the timer waits).
  virtual void replay() = 0;
  virtual const GraphFacts& facts() const = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual BackendKind kind() const = 0;
  // Bytes of memory the backend can allocate from at most (host RAM, or the device's global memory):
  // the limit a workspace's buffers are checked against before anything is allocated.
  virtual size_t memory_bytes() const = 0;
  // "the CPU backend's memory" / "the CUDA device's memory", for messages.
  virtual const char* memory_name() const = 0;
  virtual float* alloc(size_t count) = 0;
  virtual void release(float* ptr) noexcept = 0;
  virtual void upload(float* dst, const float* src, size_t count) = 0;
  virtual void download(float* dst, const float* src, size_t count) = 0;
  // Copies count floats within the device (not waited for: the timer waits).
  virtual void copy(float* dst, const float* src, size_t count, CopyMethod method) = 0;
  // Fills with NaN so an element a kernel fails to write is caught by the numerics check.
  virtual void poison(float* ptr, size_t count) = 0;
  // Leaves `touched` (the timed call's buffers) out of every cache before a timed call. CUDA writes
  // and reads buffers twice the L2's size, which evicts everything; the CPU evicts the lines of
  // `touched` themselves (a sweep past the last-level cache would have to cover what the hardware
  // reports, 508 MiB on the CI machines' virtual EPYCs: seconds per sample).
  virtual void flush_caches(const std::vector<MemoryRegion>& touched) = 0;
  // Holds the device's queue until the next stop_timer_ms: the launches after this line queue up behind
  // a waiting kernel, so a batch of them runs back to back at the device's pace, not the host's (as
  // nvbench's blocking kernel). A no-op on the CPU.
  virtual void hold_queue() {}
  // Lets a held queue run without timing it (a batch that threw before stop_timer_ms), waits for it and
  // forgets a timeout it noted; errors are left to the exception being thrown. A no-op when nothing is held.
  virtual void release_queue() noexcept {}
  virtual void start_timer() = 0;
  // Waits for the work since start_timer and returns its duration in milliseconds.
  virtual double stop_timer_ms() = 0;
  virtual void synchronize() = 0;
  virtual LaunchContext launch_context() const = 0;
  // Records the launches `launches(pdl)` makes on launch_context()'s stream into a replayable graph; pdl
  // says whether they may go with programmatic dependent launch (LaunchContext::pdl: CUDA on compute
  // capability 9.0+, built with and running on CUDA 12.3+, kernels compiled for sm_90+). The backends
  // without graphs (the CPU) throw, saying so; a launch that cannot be recorded (a synchronization, an
  // allocation) throws naming the CUDA error.
  virtual std::unique_ptr<Replay> record(const std::function<void(bool pdl)>& launches) = 0;
  // A one-float scratch location for passes that must keep their reads alive.
  virtual float* sink() = 0;
};

// The process-wide backend of a kind, created on first use. Throws with the reason when the kind
// is not available (not built, or no device).
std::shared_ptr<Backend> get_backend(BackendKind kind);
bool cuda_built();

}  // namespace fusebench
