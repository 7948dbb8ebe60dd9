// The buffers of one case at one shape on one backend, and the timed call of a variant.
// Owns its device memory (freed in the destructor, also when a case throws).
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backend.h"
#include "case_registry.h"

namespace fusebench {

// Options of a workspace that the timed cases leave at their defaults.
struct WorkspaceOptions {
  size_t max_blocks = 0;  // tests only: see LaunchContext::max_blocks
};

struct Injection {
  int variant = -1;   // the variant made slower; -1: none
  int passes = 0;     // extra read passes over the case's first buffer after that variant
  uint64_t spin = 0;  // then a spin: SM clock cycles (CUDA) or nanoseconds (CPU); 0: none
};

class Workspace {
 public:
  // Checks the shape against the case's limits before anything is allocated.
  Workspace(std::shared_ptr<Backend> backend, const CaseSpec& spec, std::vector<int64_t> dims,
            std::vector<double> params, Injection injection, WorkspaceOptions options = {});
  ~Workspace();
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;

  const std::vector<BufferSpec>& buffers() const { return specs_; }
  // Stores `count` floats in the buffer's element type (bf16/fp16: rounded to nearest even).
  void upload(const std::string& name, const float* data, size_t count);
  // Reads the buffer back as floats (bf16/fp16 widened exactly).
  void download(const std::string& name, float* data, size_t count);
  void poison(const std::string& name);
  // Runs a variant once and waits for it; returns the kernel it reports having launched (a variant that
  // picks its kernel at run time: LaunchContext::kernel), or "" when it reports none.
  std::string run(int variant);
  // Flushes the caches, then times one call of the variant; milliseconds.
  double time(int variant);
  // Flushes the caches once, then times `calls` back-to-back calls of the variant (later calls find
  // the caches warm); milliseconds per call.
  double time_batch(int variant, int calls);
  // Records `calls` back-to-back calls of the variant into a graph once (CUDA graphs), then flushes the
  // caches and times one replay of it; milliseconds per call. The eager twin with the host's launch
  // gaps removed: what a graph buys, beside what fusion buys.
  double time_graph(int variant, int calls);
  // What the graph time_graph recorded for (variant, calls) holds: PDL or not, its kernel nodes and
  // programmatic edges. Throws where none was recorded.
  const GraphFacts& graph_facts(int variant, int calls) const;
  // Changes the injected spin (calibration of --inject <case>:<p>%).
  void set_spin(uint64_t spin) { injection_.spin = spin; }

 private:
  size_t index_of(const std::string& name) const;
  // The float-sized words the backend allocates for buffer i (its bytes, rounded up to 4).
  size_t words(size_t i) const;
  // Every buffer, as the memory a timed call touches.
  std::vector<MemoryRegion> regions() const;
  // pdl: launch with programmatic dependent launch where the kernels can (LaunchContext::pdl; graphs only).
  // Throws naming the case unless `variant` is one of its variants.
  void check_variant(int variant) const;
  void launch(int variant, bool pdl = false);

  const char* kernel_ = nullptr;  // what the last launch reported (LaunchContext::kernel)
  std::shared_ptr<Backend> backend_;
  const CaseSpec& spec_;
  std::vector<int64_t> dims_;
  std::vector<double> params_;
  Injection injection_;
  WorkspaceOptions options_;
  std::vector<BufferSpec> specs_;
  std::vector<float*> ptrs_;  // float-sized words; a buffer's elements are of its spec's type
  BoundCase bound_;
  std::map<std::pair<int, int>, std::unique_ptr<Replay>> graphs_;  // by (variant, calls)
  std::vector<bool> launched_;  // by variant: launched once (its kernels loaded), so a held batch can take it
};

}  // namespace fusebench
