// Global → shared asynchronous copies of single floats (cp.async, sm_80+) on 32-bit shared-memory
// addresses, and the shared-memory barriers that tell when they have landed, as fusebench's GEMM
// issues them: the shared address of a thread's first element is computed once and every other
// element is a compile-time offset from it, so a copy costs no address arithmetic beyond its global
// pointer. Each copy carries the L2 128-byte prefetch hint, as cuBLAS's
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
// Copies 16 bytes from src to shared address dst, asynchronously, through L2 only (no L1 allocation; both
// 16-byte aligned): gpt2_decode's ring producer (docs/gpt2-decode-tries.md, "The ring's copies as cp.async").
__device__ __forceinline__ void cp_async16(unsigned dst, const void* src) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src) : "memory");
}
// Shared-memory barriers (mbarrier): an arrival count and a phase that completes when the count is
// reached, then starts again. `bar` is the 32-bit shared address of an 8-byte aligned word.
__device__ __forceinline__ void mbarrier_init(unsigned bar, unsigned count) {
  asm volatile("mbarrier.init.shared.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
// One arrival (release: this thread's shared-memory reads and writes before it are seen by the waiters).
__device__ __forceinline__ void mbarrier_arrive(unsigned bar) {
  asm volatile("{\n .reg .b64 state;\n mbarrier.arrive.shared.b64 state, [%0];\n}\n" ::"r"(bar) : "memory");
}
// One arrival on bar once every cp.async this thread has issued so far has landed.
__device__ __forceinline__ void cp_async_mbarrier_arrive(unsigned bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared.b64 [%0];\n" ::"r"(bar) : "memory");
}
// Waits until the phase of bar with this parity (0 for its first phase, 1 for the next, ...) has completed.
__device__ __forceinline__ void mbarrier_wait(unsigned bar, unsigned parity) {
  for (;;) {
    unsigned done;
#if __CUDA_ARCH__ >= 900
    asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}\n"
                 : "=r"(done) : "r"(bar), "r"(parity) : "memory");
#else
    asm volatile("{\n .reg .pred p;\n mbarrier.test_wait.parity.shared.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}\n"
                 : "=r"(done) : "r"(bar), "r"(parity) : "memory");
#endif
    if (done) return;
  }
}
#endif

}  // namespace fusebench::cuda
