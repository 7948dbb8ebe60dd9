// The CUDA backend: device buffers, a dedicated stream, CUDA events around each timed call, and
// an L2 flush (a memset of a buffer twice the L2 size, allocated once) before every sample.
#include <cuda_runtime.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "backend.h"
#include "cuda/cuda_check.cuh"
#include "cuda_device.h"
#include "cuda_graph.h"
#include "memory_cap.h"
#include "common/read_pass.h"
#include "cuda/elementwise.cuh"

namespace fusebench {
namespace {

struct IdentityOp {
  __device__ float operator()(float x) const { return x; }
};

// Waits until the host sets *release (mapped host memory), at most `max_cycles`; then notes a timeout.
__global__ void hold_kernel(const volatile int* release, int* timed_out, long long max_cycles) {
  const long long start = clock64();
  while (*release == 0) {
    if (clock64() - start > max_cycles) {
      *timed_out = 1;
      return;
    }
  }
}

// How long a held queue waits for the host at most: about 2 s at 2 GHz. The host enqueues a batch in
// far less; a launch queue that filled up behind the held kernel would otherwise wait forever.
constexpr long long kHoldMaxCycles = 4'000'000'000LL;

struct HostFree {
  void operator()(void* p) const noexcept { cudaFreeHost(p); }
};
using HostMemory = std::unique_ptr<void, HostFree>;

// Move-only owners of CUDA resources, so nothing leaks when a constructor throws half way.
struct CudaFree {
  void operator()(void* p) const noexcept { cudaFree(p); }
};
using DeviceMemory = std::unique_ptr<void, CudaFree>;
struct StreamDestroy {
  void operator()(cudaStream_t s) const noexcept { cudaStreamDestroy(s); }
};
using Stream = std::unique_ptr<std::remove_pointer_t<cudaStream_t>, StreamDestroy>;
struct EventDestroy {
  void operator()(cudaEvent_t e) const noexcept { cudaEventDestroy(e); }
};
using Event = std::unique_ptr<std::remove_pointer_t<cudaEvent_t>, EventDestroy>;

DeviceMemory device_alloc(size_t bytes) {
  void* p = nullptr;
  FB_CUDA_CHECK(cudaMalloc(&p, bytes));
  return DeviceMemory(p);
}
Stream make_stream() {
  cudaStream_t s = nullptr;
  FB_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  return Stream(s);
}
Event make_event() {
  cudaEvent_t e = nullptr;
  FB_CUDA_CHECK(cudaEventCreate(&e));
  return Event(e);
}

class CudaBackend final : public Backend {
 public:
  CudaBackend() {
    FB_CUDA_CHECK(cudaSetDevice(0));
    cudaDeviceProp props{};
    FB_CUDA_CHECK(cudaGetDeviceProperties(&props, 0));
    ctx_.sm_count = props.multiProcessorCount;
    memory_ = memory_cap("FUSEBENCH_CUDA_MEMORY_BYTES", props.totalGlobalMem, &capped_);
    no_pdl_reason_ = graph_pdl_unavailable(props);
    stream_ = make_stream();
    ctx_.stream = stream_.get();
    flush_bytes_ = 2 * static_cast<size_t>(props.l2CacheSize > 0 ? props.l2CacheSize : (8 << 20));
    flush_ = device_alloc(flush_bytes_);
    clean_ = device_alloc(flush_bytes_);
    FB_CUDA_CHECK(cudaMemset(clean_.get(), 0, flush_bytes_));
    sink_ = device_alloc(sizeof(float));
    start_ = make_event();
    stop_ = make_event();
    void* release = nullptr;
    FB_CUDA_CHECK(cudaHostAlloc(&release, sizeof(int), cudaHostAllocMapped));
    release_ = HostMemory(release);
    FB_CUDA_CHECK(cudaHostGetDevicePointer(&release_dev_, release, 0));
    timed_out_ = device_alloc(sizeof(int));
    FB_CUDA_CHECK(cudaMemset(timed_out_.get(), 0, sizeof(int)));
    FB_CUDA_CHECK(cudaDeviceSynchronize());
  }
  BackendKind kind() const override { return BackendKind::Cuda; }
  size_t memory_bytes() const override { return memory_; }
  const char* memory_name() const override {
    return capped_ ? "the CUDA device's global memory (FUSEBENCH_CUDA_MEMORY_BYTES)" : "the CUDA device's global memory";
  }
  float* alloc(size_t count) override {
    float* p = nullptr;
    FB_CUDA_CHECK(cudaMalloc(&p, (count > 0 ? count : 1) * sizeof(float)));
    return p;
  }
  void release(float* ptr) noexcept override { cudaFree(ptr); }
  void upload(float* dst, const float* src, size_t count) override {
    FB_CUDA_CHECK(cudaMemcpyAsync(dst, src, count * sizeof(float), cudaMemcpyHostToDevice, stream_.get()));
    FB_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
  }
  void download(float* dst, const float* src, size_t count) override {
    FB_CUDA_CHECK(cudaMemcpyAsync(dst, src, count * sizeof(float), cudaMemcpyDeviceToHost, stream_.get()));
    FB_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
  }
  void copy(float* dst, const float* src, size_t count, CopyMethod method) override {
    if (method == CopyMethod::Runtime) {
      FB_CUDA_CHECK(cudaMemcpyAsync(dst, src, count * sizeof(float), cudaMemcpyDeviceToDevice, stream_.get()));
    } else {
      cuda::launch_map(src, dst, count, IdentityOp{}, ctx_, "copy_kernel");
    }
  }
  void poison(float* ptr, size_t count) override {
    // All ones: a NaN as binary32 and as each 16-bit half of a word (bf16 and fp16 buffers).
    FB_CUDA_CHECK(cudaMemsetAsync(ptr, 0xFF, count * sizeof(float), stream_.get()));
    FB_CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
  }
  void flush_caches(const std::vector<MemoryRegion>& /*touched: all of L2 is evicted*/) override {
    flush_value_ ^= 1;  // alternate the value so no layer can treat the memset as a no-op
    FB_CUDA_CHECK(cudaMemsetAsync(flush_.get(), flush_value_, flush_bytes_, stream_.get()));
    // The memset leaves the L2 full of dirty lines; their write-back would land inside the timed
    // kernel and slow it (docs/measurements.md, "L2 flush"). Reading a second buffer of the same size
    // evicts them before the timer starts, so the kernel starts with a cold, clean L2.
    kernels::read_pass_cuda(static_cast<float*>(clean_.get()), flush_bytes_ / sizeof(float), sink(), ctx_);
  }
  void hold_queue() override {
    __atomic_store_n(static_cast<int*>(release_.get()), 0, __ATOMIC_SEQ_CST);
    hold_kernel<<<1, 1, 0, stream_.get()>>>(static_cast<const int*>(release_dev_), static_cast<int*>(timed_out_.get()),
                                            kHoldMaxCycles);
    FB_CUDA_CHECK_LAUNCH("hold_kernel");
    held_ = true;
  }
  void release_queue() noexcept override {
    if (!held_) return;
    __atomic_store_n(static_cast<int*>(release_.get()), 1, __ATOMIC_SEQ_CST);
    held_ = false;
    if (cudaStreamSynchronize(stream_.get()) == cudaSuccess) (void)cudaMemset(timed_out_.get(), 0, sizeof(int));
  }
  void start_timer() override { FB_CUDA_CHECK(cudaEventRecord(start_.get(), stream_.get())); }
  std::unique_ptr<Replay> record(const std::function<void(bool pdl)>& launches) override {
    return record_graph(stream_.get(), no_pdl_reason_, launches);
  }

  double stop_timer_ms() override {
    FB_CUDA_CHECK(cudaEventRecord(stop_.get(), stream_.get()));
    const bool held = held_;
    if (held) {
      __atomic_store_n(static_cast<int*>(release_.get()), 1, __ATOMIC_SEQ_CST);
      held_ = false;
    }
    FB_CUDA_CHECK(cudaEventSynchronize(stop_.get()));
    if (held) {
      int timed_out = 0;
      FB_CUDA_CHECK(cudaMemcpy(&timed_out, timed_out_.get(), sizeof(int), cudaMemcpyDeviceToHost));
      if (timed_out != 0) {
        FB_CUDA_CHECK(cudaMemset(timed_out_.get(), 0, sizeof(int)));
        throw CudaError("batched timing: the held queue waited more than 2 s for the host (the launch queue filled up "
                        "behind it?); time fewer calls per batch");
      }
    }
    float ms = 0.0f;
    FB_CUDA_CHECK(cudaEventElapsedTime(&ms, start_.get(), stop_.get()));
    return ms;
  }
  void synchronize() override { FB_CUDA_CHECK(cudaStreamSynchronize(stream_.get())); }
  LaunchContext launch_context() const override { return ctx_; }
  float* sink() override { return static_cast<float*>(sink_.get()); }

 private:
  // Declared in construction order: members built before a throw are released by their owners.
  LaunchContext ctx_{};
  size_t memory_ = 0;
  bool capped_ = false;
  std::string no_pdl_reason_;  // why graphs are recorded without PDL; empty: with it (cuda_graph.h)
  Stream stream_;
  size_t flush_bytes_ = 0;
  int flush_value_ = 0;
  DeviceMemory flush_;
  DeviceMemory clean_;
  DeviceMemory sink_;
  Event start_;
  Event stop_;
  HostMemory release_;          // mapped host int: 1 lets a held queue run
  void* release_dev_ = nullptr;  // its device address
  DeviceMemory timed_out_;      // device int: set when a held queue gave up waiting
  bool held_ = false;
};

}  // namespace

std::shared_ptr<Backend> make_cuda_backend() {
  const CudaProbe probe = cuda_probe();
  if (probe.device_count == 0) throw std::runtime_error("the CUDA backend is built but no CUDA device is usable: " + probe.error);
  return std::make_shared<CudaBackend>();
}

}  // namespace fusebench
