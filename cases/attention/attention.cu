// CUDA causal attention. Unfused: the unfused attention building block (batched cuBLAS GEMMs around the
// scale, mask and softmax kernels). Fused: the fp32 flash kernel of kernels/cuda/flash_attention.cuh, or
// in bf16/fp16 the fastest tensor-core flash kernel the device and build have for the shape
// (cuda::launch_flash_attention: flash_attention_sm90.cuh on Hopper, flash_attention_mma.cuh on sm_80+);
// the variant reports which one ran.
#include <type_traits>

#include "attention.h"
#include "common/constants.h"
#include "cuda/building_blocks.h"
#include "cuda/flash_attention.cuh"
#include "cuda/flash_attention_sm90.cuh"

namespace fusebench::kernels {

static_assert(cuda::flash_mma_smem_bytes<kHeadDim>() == kFlashMmaSmemBytes, "the registration states the kernel's smem");

template <class T>
void attention_unfused_cuda(const AttentionArgs<T>& a, const LaunchContext& ctx) {
  cuda::attention_unfused(a, ctx, a.d);
}

template <class T>
void attention_fused_cuda(const AttentionArgs<T>& a, const LaunchContext& ctx) {
  if constexpr (std::is_same_v<T, float>) {
    cuda::launch_flash<false>(cuda::contiguous_flash_args(a), ctx, "flash_attention");
    report_kernel(ctx, "flash_attention_fp32");
  } else {
    using H = cuda::CudaHalf<T>;
    const cuda::FlashMmaArgs<H> f = cuda::contiguous_flash_mma_args(
        cuda::as_cuda_half(a.q), cuda::as_cuda_half(a.k), cuda::as_cuda_half(a.v), reinterpret_cast<H*>(a.o),
        static_cast<int>(a.batch), static_cast<int>(a.heads), static_cast<int>(a.seq), static_cast<int>(a.d));
    // d is 64 or 128 (the registration's limit).
    report_kernel(ctx, a.d == kWideHeadDim ? cuda::launch_flash_attention<H, kWideHeadDim>(f, ctx, "flash_attention")
                                           : cuda::launch_flash_attention<H, kHeadDim>(f, ctx, "flash_attention"));
  }
}

FB_CUDA_VARIANTS(AttentionArgs, attention_unfused_cuda, attention_fused_cuda)

}  // namespace fusebench::kernels
