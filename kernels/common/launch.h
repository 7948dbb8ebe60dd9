// What a kernel family needs to know about where it runs. Plain data, no CUDA types, so the
// CPU build and the registry can pass it around without the CUDA headers.
#pragma once
#include <cstddef>

namespace fusebench {

struct LaunchContext {
  int sm_count = 1;        // CUDA: multiprocessors, used to size grids from the device
  void* stream = nullptr;  // CUDA: cudaStream_t (the default stream when null)
  // Tests only: a cap on the blocks of every grid-stride launch (0: none), so that small inputs
  // still take the paths where threads loop (the unrolled body, stride carry-overs, row strides).
  size_t max_blocks = 0;
  // Where a variant that picks its kernel at run time (by device, shape or build) names the kernel it
  // launched, for the results (null: nobody asks). report_kernel writes it.
  const char** kernel = nullptr;
  // CUDA: launch with programmatic dependent launch (cuda/launch_pdl.cuh). Set only while the graph twin is
  // recorded on a device, toolkit and driver that have it; only the kernels launched through
  // cuda::launch_kernel (which wait for their predecessor first) use it, every other launch stays plain.
  bool pdl = false;
};

inline void report_kernel(const LaunchContext& ctx, const char* name) {
  if (ctx.kernel != nullptr) *ctx.kernel = name;
}

}  // namespace fusebench

// What only a CUDA build declares (the CPU build has no CUDA entry points).
#ifdef FUSEBENCH_WITH_CUDA
#define FB_IF_CUDA(...) __VA_ARGS__
#else
#define FB_IF_CUDA(...)
#endif

// The entry points of a case variant over the argument struct `Args<T>`, once for every precision T:
// `name_cpu<T>(args)` and, in a CUDA build, `name_cuda<T>(args, ctx)`.
#define FB_VARIANT_DECL(name, Args)              \
  template <class T>                             \
  void name##_cpu(const Args<T>& a);             \
  FB_IF_CUDA(template <class T> void name##_cuda(const Args<T>& a, const ::fusebench::LaunchContext& ctx);)

// A CUDA-only variant's entry point, `name_cuda<T>(args, ctx)` (declared in a CUDA build only).
#define FB_CUDA_VARIANT_DECL(name, Args) \
  FB_IF_CUDA(template <class T> void name##_cuda(const Args<T>& a, const ::fusebench::LaunchContext& ctx);)

// The standard comparison of a case: `name_unfused` and `name_fused`, each on both backends.
#define FB_FUSED_PAIR_DECL(name, Args) FB_VARIANT_DECL(name##_unfused, Args) FB_VARIANT_DECL(name##_fused, Args)
