// The unfused Llama decode step (195 launches at 16 layers): the embedding gather; per layer the RMSNorm
// (the suite's row kernel), the QKV GEMV (cuBLAS), RoPE on q and k with the K/V append into the cache, the
// split-KV attention over the cache rows 0 .. pos and its combine (gpt2_decode's, decode_unfused.cuh),
// the out-projection GEMV, the residual add, the RMSNorm, the gate/up GEMV, SwiGLU, the down GEMV, the
// residual add; then the final RMSNorm and the LM-head GEMV. Capture-safe and recorded with PDL as
// gpt2_decode_unfused.cu says.
#include "../gpt2_decode/decode_unfused.cuh"
#include "cuda/building_blocks.h"
#include "cuda/cublas_ops.h"
#include "cuda/launch_pdl.cuh"
#include "llama_decode.h"

namespace fusebench::kernels {
namespace {

using namespace gpt2;

// RoPE at position pos on every head of q and k, in place in qkv, and the cache rows pos of one layer:
// the turned k and v. qkv's first heads + kv_heads heads are q's and k's; V head j lies kv elements after
// K head j. One warp per head (heads + kv_heads blocks); lane i turns the pair (i, i + 32).
template <class T>
__global__ void rope_kv_append_kernel(T* qkv, T* k_row, T* v_row, int heads, int kv, size_t pos, float theta) {
  cuda::pdl_begin();
  const int h = blockIdx.x, i = threadIdx.x;
  double sin_d, cos_d;
  sincos(llama::rope_angle(pos, i, theta), &sin_d, &cos_d);
  const float sn = static_cast<float>(sin_d), cs = static_cast<float>(cos_d);
  T* x = qkv + h * 64;
  const float x0 = to_float(x[i]), x1 = to_float(x[i + 32]);
  const T y0 = from_float<T>(x0 * cs - x1 * sn), y1 = from_float<T>(x1 * cs + x0 * sn);
  x[i] = y0;
  x[i + 32] = y1;
  if (h < heads) return;
  const int j = (h - heads) * 64;
  k_row[j + i] = y0;
  k_row[j + i + 32] = y1;
  v_row[j + i] = x[kv + i];
  v_row[j + i + 32] = x[kv + i + 32];
}

}  // namespace

template <class T>
void llama_decode_unfused_cuda(const LlamaDecodeArgs<T>& a, const LaunchContext& ctx) {
  const size_t c = a.hidden, f = a.f, kv = a.kv_heads * 64, q = c + 2 * kv, cache_layer = a.ctx * kv;
  const auto group = static_cast<unsigned>(a.heads / a.kv_heads);
  cuda::launch_kernel(copy_row_kernel<T>, static_cast<unsigned>((c + 255) / 256), 256, 0, ctx, "copy_row_kernel",
                      a.embed + a.token * c, a.x, static_cast<int>(c));
  const AttentionSplit split = attention_split(a.pos + 1, a.heads, static_cast<size_t>(ctx.sm_count));
  for (size_t l = 0; l < a.layers; ++l) {
    T* kc = a.k_cache + l * cache_layer;
    T* vc = a.v_cache + l * cache_layer;
    cuda::rmsnorm(a.x, a.attn_norm + l * c, a.a, 1, c, a.eps, ctx);
    cuda::cublas_gemm_xwt(a.a, a.w_qkv + l * q * c, a.qkv, 1, q, c, ctx);
    cuda::launch_kernel(rope_kv_append_kernel<T>, static_cast<unsigned>(a.heads + a.kv_heads), 32, 0, ctx,
                        "rope_kv_append_kernel", a.qkv, kc + a.pos * kv, vc + a.pos * kv, static_cast<int>(a.heads),
                        static_cast<int>(kv), a.pos, a.rope_theta);
    const dim3 chunks(static_cast<unsigned>(split.splits), static_cast<unsigned>(a.heads));
    cuda::launch_kernel(attention_chunk_kernel<T>, chunks, kAttentionThreads, 0, ctx, "attention_chunk_kernel", a.qkv,
                        kc, vc, kv, group, a.pos + 1, split.chunk, a.att_part);
    cuda::launch_kernel(attention_combine_kernel<T>, static_cast<unsigned>(a.heads), 64, 0, ctx,
                        "attention_combine_kernel", a.att_part, split.splits, a.att);
    cuda::cublas_gemm_batched(a.att, a.w_o + l * c * c, a.proj, 1, 1, c, c, false, ctx);  // Wo in × out
    cuda::add(a.x, a.proj, a.h, c, ctx);
    cuda::rmsnorm(a.h, a.ffn_norm + l * c, a.a, 1, c, a.eps, ctx);
    cuda::cublas_gemm_xwt(a.a, a.w_gu + l * 2 * f * c, a.gu, 1, 2 * f, c, ctx);
    cuda::swiglu(a.gu, a.g, f, ctx);
    cuda::cublas_gemm_batched(a.g, a.w_down + l * f * c, a.proj, 1, 1, c, f, false, ctx);  // W_down in × out
    cuda::add(a.h, a.proj, a.x, c, ctx);
  }
  cuda::rmsnorm(a.x, a.norm_f, a.a, 1, c, a.eps, ctx);
  cuda::cublas_gemm_xwt(a.a, a.embed, a.logits, 1, a.vocab, c, ctx);
}

#define FB_INSTANTIATE(T) template void llama_decode_unfused_cuda<T>(const LlamaDecodeArgs<T>&, const LaunchContext&);
FB_FOR_EACH_DTYPE(FB_INSTANTIATE)
#undef FB_INSTANTIATE

}  // namespace fusebench::kernels
