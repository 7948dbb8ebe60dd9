// Global → shared asynchronous copies of single floats (cp.async, sm_80+) on 32-bit shared-memory
// addresses, as fusebench's GEMM issues them: the shared address of a thread's first element is
// computed once and every other element is a compile-time offset from it, so a copy costs no address
// arithmetic beyond its global pointer. Each copy carries the L2 128-byte prefetch hint, as cuBLAS's
// SGEMM kernels' copies do (their SASS: LDGSTS.E.LTC128B). The CPU emulation of the kernels
// (suites/emu/cuda_emu.h) defines the same functions.
#pragma once
#include <cuda_runtime.h>

namespace fusebench::cuda {

// The 32-bit shared-memory address of p (a pointer into shared memory).
__device__ __forceinline__ unsigned shared_address(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
// Copies *src to shared address dst, asynchronously.
__device__ __forceinline__ void cp_async4(unsigned dst, const float* src) {
  asm volatile("cp.async.ca.shared.global.L2::128B [%0], [%1], 4;\n" ::"r"(dst), "l"(src) : "memory");
}
// As cp_async4 when `keep`; otherwise writes 0.0f to dst and reads nothing (src must still be a valid address).
__device__ __forceinline__ void cp_async4_zfill(unsigned dst, const float* src, bool keep) {
  asm volatile("cp.async.ca.shared.global.L2::128B [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(src), "r"(keep ? 4 : 0) : "memory");
}
// Closes the group of this thread's copies issued since the last commit.
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
// Waits until at most `kNewer` of this thread's committed groups are still in flight.
template <int kNewer>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kNewer) : "memory");
}
#endif

}  // namespace fusebench::cuda
