// One m16n8k16 tensor-core MMA with fp32 accumulators, d += a·b (sm_80+): A row-major in four registers of
// two 16-bit elements, B column-major in two, both fp16 (kHalf) or both bf16. The flash kernel's tiles and
// the decode kernel's GEMV pieces share it.
#pragma once
#include <cstdint>

namespace fusebench::cuda {

template <bool kHalf>
__device__ __forceinline__ void mma_m16n8k16(float (&d)[4], uint32_t a0, uint32_t a1, uint32_t a2, uint32_t a3,
                                             uint32_t b0, uint32_t b1) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (kHalf) {
    asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  } else {
    asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  }
#elif defined(__CUDA_ARCH__)
  __trap();  // below sm_80: every caller is behind its own guard, so reaching this is a bug
#endif
}

}  // namespace fusebench::cuda
