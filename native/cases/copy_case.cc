// A device-to-device copy, timed like any case: fusebench measures the device's copy bandwidth
// itself (bytes read plus bytes written over time) instead of trusting a datasheet.
#include <cstring>
#include <stdexcept>

#include "case_registry.h"
#ifdef FUSEBENCH_WITH_CUDA
#include "cuda_check.cuh"
#endif

namespace fusebench {

CaseSpec copy_case() {
  return CaseSpec{
      "copy",
      {"copy"},
      1,
      0,
      [](const std::vector<int64_t>& d) {
        const auto n = static_cast<size_t>(d[0]);
        return std::vector<BufferSpec>{{"src", n, Role::Input}, {"dst", n, Role::Output}};
      },
      [](const CaseCall& c) {
        const size_t bytes = static_cast<size_t>(c.dims[0]) * sizeof(float);
        if (c.backend == BackendKind::Cpu) {
          std::memcpy(c.buffers[1], c.buffers[0], bytes);
          return;
        }
#ifdef FUSEBENCH_WITH_CUDA
        FB_CUDA_CHECK(cudaMemcpyAsync(c.buffers[1], c.buffers[0], bytes, cudaMemcpyDeviceToDevice,
                                      static_cast<cudaStream_t>(c.ctx.stream)));
#else
        throw std::runtime_error("copy: built without CUDA");
#endif
      },
  };
}

}  // namespace fusebench
