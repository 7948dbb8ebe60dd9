// The unfused GPT-2 decode step: one launch per op, as eager PyTorch runs it at batch 1 (149 launches
// at 12 layers): the two embedding gathers and their add; per layer LN1 (the suite's row kernel), the
// QKV GEMV with its bias (cuBLASLt, BIAS epilogue, as addmm), the K/V append into the cache, the
// split-KV attention over the cache rows 0 .. pos and its combine, the out-projection GEMV + bias, the
// residual add, LN2, FFN1 + bias, GELU, FFN2 + bias, the residual add; then LNf and the LM-head GEMV.
// Capture-safe: no allocation, no synchronization, every launch on ctx.stream (cuBLAS's handles and
// workspace are made on first use, so a graph captures a call after a first one). Every kernel of ours
// opens with the PDL wait and goes through cuda::launch_kernel, so the graph twin records it with
// programmatic dependent launch where the device has it (cuda/launch_pdl.cuh); the cuBLAS/cuBLASLt GEMVs
// stay plain launches.
#include "cuda/building_blocks.h"
#include "cuda/cublas_ops.h"
#include "cuda/launch_pdl.cuh"
#include "decode_unfused.cuh"
#include "gpt2_decode.h"

namespace fusebench::kernels {
namespace {

using namespace gpt2;

// The cache rows pos of one layer: K and V from qkv's K and V thirds (the cache update, k_cache[:, pos] = k).
template <class T>
__global__ void kv_append_kernel(const T* qkv, T* k_row, T* v_row, int c) {
  cuda::pdl_begin();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < c; i += gridDim.x * blockDim.x) {
    k_row[i] = qkv[c + i];
    v_row[i] = qkv[2 * c + i];
  }
}

}  // namespace

template <class T>
void gpt2_decode_unfused_cuda(const Gpt2DecodeArgs<T>& a, const LaunchContext& ctx) {
  const size_t c = a.hidden, f = a.f, cc = c * c, fc = f * c, cache_layer = a.ctx * c;
  const int ci = static_cast<int>(c);
  const auto row_blocks = static_cast<unsigned>((c + 255) / 256);
  cuda::launch_kernel(copy_row_kernel<T>, row_blocks, 256, 0, ctx, "copy_row_kernel", a.wte + a.token * c, a.a, ci);
  cuda::launch_kernel(copy_row_kernel<T>, row_blocks, 256, 0, ctx, "copy_row_kernel", a.wpe + a.pos * c, a.proj, ci);
  cuda::add(a.a, a.proj, a.x, c, ctx);
  const AttentionSplit split = attention_split(a.pos + 1, a.heads, static_cast<size_t>(ctx.sm_count));
  for (size_t l = 0; l < a.layers; ++l) {
    T* kc = a.k_cache + l * cache_layer;
    T* vc = a.v_cache + l * cache_layer;
    cuda::layernorm(a.x, a.ln1_g + l * c, a.ln1_b + l * c, a.a, 1, c, a.eps, ctx);
    cuda::cublaslt_linear_bias(a.a, a.w_qkv + l * 3 * cc, a.b_qkv + l * 3 * c, a.qkv, 1, 3 * c, c, ctx);
    cuda::launch_kernel(kv_append_kernel<T>, row_blocks, 256, 0, ctx, "kv_append_kernel", a.qkv, kc + a.pos * c,
                        vc + a.pos * c, ci);
    const dim3 chunks(static_cast<unsigned>(split.splits), static_cast<unsigned>(a.heads));
    cuda::launch_kernel(attention_chunk_kernel<T>, chunks, kAttentionThreads, 0, ctx, "attention_chunk_kernel", a.qkv,
                        kc, vc, c, 1u, a.pos + 1, split.chunk, a.att_part);
    cuda::launch_kernel(attention_combine_kernel<T>, static_cast<unsigned>(a.heads), 64, 0, ctx,
                        "attention_combine_kernel", a.att_part, split.splits, a.att);
    cuda::cublaslt_linear_bias(a.att, a.w_o + l * cc, a.b_o + l * c, a.proj, 1, c, c, ctx);
    cuda::add(a.x, a.proj, a.h, c, ctx);
    cuda::layernorm(a.h, a.ln2_g + l * c, a.ln2_b + l * c, a.a, 1, c, a.eps, ctx);
    cuda::cublaslt_linear_bias(a.a, a.w1 + l * fc, a.b1 + l * f, a.f1, 1, f, c, ctx);
    cuda::gelu(a.f1, a.g, f, ctx);
    cuda::cublaslt_linear_bias(a.g, a.w2 + l * fc, a.b2 + l * c, a.proj, 1, c, f, ctx);
    cuda::add(a.h, a.proj, a.x, c, ctx);
  }
  cuda::layernorm(a.x, a.lnf_g, a.lnf_b, a.a, 1, c, a.eps, ctx);
  cuda::cublas_gemm_xwt(a.a, a.wte, a.logits, 1, a.vocab, c, ctx);
}

#define FB_INSTANTIATE(T) template void gpt2_decode_unfused_cuda<T>(const Gpt2DecodeArgs<T>&, const LaunchContext&);
FB_FOR_EACH_DTYPE(FB_INSTANTIATE)
#undef FB_INSTANTIATE

}  // namespace fusebench::kernels
