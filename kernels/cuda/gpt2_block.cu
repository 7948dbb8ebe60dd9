// CUDA GPT-2 block. Unfused: one launch per op, as PyTorch eager runs the block (cuBLAS GEMMs, the
// bias/GELU/add/LayerNorm kernels, head split/merge copies, the unfused attention). Fused (fp32): the
// LN1-folded QKV GEMM, flash attention reading Q/K/V in place and writing merged heads, the
// out-projection GEMM with a bias+residual epilogue, the LN2-folded FFN1 GEMM with bias+GELU, the
// FFN2 GEMM with bias+residual, and gemm.cuh's small passes: the two weight folds with the row
// statistics of x in one launch, and the row statistics of h (7 launches). Library-fused (every precision):
// LN1 kernel, cuBLASLt QKV GEMM with BIAS, the same in-place flash attention (tensor cores in
// bf16/fp16), cuBLASLt out-projection with BIAS and β = 1 on x, LN2 kernel, cuBLASLt FFN1 with
// GELU_BIAS, cuBLASLt FFN2 with BIAS and β = 1 on h.
#include <type_traits>

#include "common/constants.h"
#include "cuda/building_blocks.h"
#include "cuda/cublas_ops.h"
#include "cuda/flash_attention.cuh"
#include "cuda/flash_attention_sm90.cuh"
#include "cuda/gemm.cuh"
#include "common/gpt2_block.h"

namespace fusebench::kernels {

namespace {

// Flash attention over the heads of qkv [m, 3c] read in place (row stride 3c, head h at column h·64,
// +c for K, +2c for V), writing merged heads [m, c]: the SIMT kernel in fp32, in bf16/fp16 the fastest
// tensor-core one the device has (cuda::launch_flash_attention: the sm_90 kernel on Hopper).
template <class T>
void qkv_flash_attention(const TransformerBlockArgs<T>& a, const LaunchContext& ctx, const char* name) {
  if constexpr (std::is_same_v<T, float>) {
    const int c = static_cast<int>(a.heads * kHeadDim);
    const long long ss = 3LL * c, sb = ss * static_cast<long long>(a.seq);
    cuda::FlashArgs fa{};
    fa.q = {a.qkv, sb, 64, ss};
    fa.k = {a.qkv + c, sb, 64, ss};
    fa.v = {a.qkv + 2 * c, sb, 64, ss};
    fa.o = a.merged;
    fa.osb = static_cast<long long>(a.seq) * c;
    fa.osh = 64;
    fa.oss = c;
    fa.batch = static_cast<int>(a.batch);
    fa.heads = static_cast<int>(a.heads);
    fa.seq = static_cast<int>(a.seq);
    fa.scale_log2 = cuda::kFlashScaleLog2;
    cuda::launch_flash<false>(fa, ctx, name);
  } else {
    report_kernel(ctx, cuda::launch_flash_attention<cuda::CudaHalf<T>, kHeadDim>(
                           cuda::qkv_flash_mma_args(a.qkv, a.merged, a.batch, a.heads, a.seq), ctx, name));
  }
}

}  // namespace

template <class T>
void transformer_block_unfused_cuda(const TransformerBlockArgs<T>& a, const LaunchContext& ctx) {
  const size_t c = a.heads * kHeadDim, m = a.batch * a.seq;
  cuda::layernorm(a.x, a.ln1_g, a.ln1_b, a.a, m, c, a.eps, ctx);
  cuda::cublas_gemm_xwt(a.a, a.w_qkv, a.qkv_t, m, 3 * c, c, ctx);
  cuda::bias_add(a.qkv_t, a.b_qkv, a.qkv, m, 3 * c, ctx);
  cuda::split_heads(a.qkv, 3 * c, 0, a.q, a.batch, a.seq, a.heads, ctx);
  cuda::split_heads(a.qkv, 3 * c, c, a.k, a.batch, a.seq, a.heads, ctx);
  cuda::split_heads(a.qkv, 3 * c, 2 * c, a.v, a.batch, a.seq, a.heads, ctx);
  cuda::attention_unfused(kernels::AttentionTensorsOf<T>{a.q, a.k, a.v, a.o, a.scores, a.scaled, a.masked, a.p, a.batch, a.heads, a.seq}, ctx);
  cuda::merge_heads(a.o, a.merged, a.batch, a.seq, a.heads, ctx);
  cuda::cublas_gemm_xwt(a.merged, a.w_o, a.proj_t, m, c, c, ctx);
  cuda::bias_add(a.proj_t, a.b_o, a.proj, m, c, ctx);
  cuda::add(a.x, a.proj, a.h, m * c, ctx);
  cuda::layernorm(a.h, a.ln2_g, a.ln2_b, a.a2, m, c, a.eps, ctx);
  cuda::cublas_gemm_xwt(a.a2, a.w1, a.f1_t, m, a.f, c, ctx);
  cuda::bias_add(a.f1_t, a.b1, a.f1, m, a.f, ctx);
  cuda::gelu(a.f1, a.g, m * a.f, ctx);
  cuda::cublas_gemm_xwt(a.g, a.w2, a.f2_t, m, c, a.f, ctx);
  cuda::bias_add(a.f2_t, a.b2, a.f2, m, c, ctx);
  cuda::add(a.h, a.f2, a.y, m * c, ctx);
}

void transformer_block_fused_cuda(const TransformerBlockArgs<float>& a, const LaunchContext& ctx) {
  const int c = static_cast<int>(a.heads * kHeadDim), m = static_cast<int>(a.batch * a.seq);
  const int f = static_cast<int>(a.f);
  using cuda::Epilogue;
  cuda::layernorm_prologue({{a.w_qkv, a.ln1_g, a.ln1_b, a.b_qkv, a.wqkv_f, a.cqkv, a.dqkv, 3 * c, c},
                            {a.w1, a.ln2_g, a.ln2_b, a.b1, a.w1_f, a.c1, a.d1, f, c}},
                           {a.x, a.stats1, m, c, a.eps}, ctx);
  cuda::GemmArgs qkv{a.x, a.wqkv_f, a.dqkv, nullptr, a.qkv, m, 3 * c, c, 3 * c};
  qkv.colsum = a.cqkv;
  qkv.row_stats = a.stats1;
  cuda::launch_gemm_tn<Epilogue::Bias, true>(qkv, ctx, "block QKV GEMM");
  qkv_flash_attention(a, ctx, "block flash attention");
  cuda::launch_gemm_tn<Epilogue::BiasResidual>({a.merged, a.w_o, a.b_o, a.x, a.h, m, c, c, c}, ctx, "block out-projection");
  cuda::layernorm_row_stats({a.h, a.stats2, m, c, a.eps}, ctx);
  cuda::GemmArgs f1{a.h, a.w1_f, a.d1, nullptr, a.g, m, f, c, f};
  f1.colsum = a.c1;
  f1.row_stats = a.stats2;
  cuda::launch_gemm_tn<Epilogue::BiasGelu, true>(f1, ctx, "block FFN1 GEMM");
  cuda::launch_gemm_tn<Epilogue::BiasResidual>({a.g, a.w2, a.b2, a.h, a.y, m, c, f, c}, ctx, "block FFN2 GEMM");
}

template <class T>
void transformer_block_cublaslt_cuda(const TransformerBlockArgs<T>& a, const LaunchContext& ctx) {
  const size_t c = a.heads * kHeadDim, m = a.batch * a.seq;
  cuda::layernorm(a.x, a.ln1_g, a.ln1_b, a.a, m, c, a.eps, ctx);
  cuda::cublaslt_linear_bias(a.a, a.w_qkv, a.b_qkv, a.qkv, m, 3 * c, c, ctx);
  qkv_flash_attention(a, ctx, "block flash attention");
  cuda::cublaslt_linear_bias_residual(a.merged, a.w_o, a.b_o, a.x, a.h, m, c, c, ctx);
  cuda::layernorm(a.h, a.ln2_g, a.ln2_b, a.a2, m, c, a.eps, ctx);
  cuda::cublaslt_linear_gelu(a.a2, a.w1, a.b1, a.g, m, a.f, c, ctx);
  cuda::cublaslt_linear_bias_residual(a.g, a.w2, a.b2, a.h, a.y, m, c, a.f, ctx);
}

FB_CUDA_VARIANTS(TransformerBlockArgs, transformer_block_unfused_cuda, transformer_block_cublaslt_cuda)

}  // namespace fusebench::kernels
