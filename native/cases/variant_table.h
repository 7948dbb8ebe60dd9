// Runs variant `c.variant` of a case from per-backend tables of kernel entry points. A null CPU
// entry is a variant that exists only on CUDA (a library-fused one); it throws saying so.
#pragma once
#include <array>
#include <stdexcept>
#include <string>

#include "case_registry.h"

namespace fusebench {

template <class Args>
using CpuKernel = void (*)(const Args&);
template <class Args>
using CudaKernel = void (*)(const Args&, const LaunchContext&);

template <class Args, size_t N>
void run_variant(const char* case_name, const CaseCall& c, const Args& a, const std::array<CpuKernel<Args>, N>& cpu,
                 [[maybe_unused]] const std::array<CudaKernel<Args>, N>& cuda) {
  const auto v = static_cast<size_t>(c.variant);
  if (c.backend == BackendKind::Cpu) {
    if (cpu[v] == nullptr) throw std::invalid_argument(std::string(case_name) + ": this variant runs on CUDA only");
    cpu[v](a);
    return;
  }
#ifdef FUSEBENCH_WITH_CUDA
  cuda[v](a, c.ctx);
#else
  throw std::runtime_error(std::string(case_name) + ": built without CUDA");
#endif
}

}  // namespace fusebench

// The CUDA table is only referenced when the addon is built with CUDA.
#ifdef FUSEBENCH_WITH_CUDA
#define FB_CUDA_KERNELS(...) __VA_ARGS__
#else
#define FB_CUDA_KERNELS(...) nullptr
#endif
