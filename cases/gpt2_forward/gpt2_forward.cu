// CUDA GPT-2 forward (gpt2_forward.h). Unfused: the token gather, the position gather and their
// broadcast add (as nn.Embedding twice and `+` launch them), each layer's block one op per launch
// (common/gpt2_block.h's unfused twin, 22 launches), the LayerNorm row kernel and the cuBLAS LM-head
// GEMM writing the logits in place. Fused: one embedding kernel (gather, gather, add), each layer's
// fused block (7 launches), the same LayerNorm, the LM-head GEMM into 16-byte-aligned rows and their
// compaction into the logits.
#include <type_traits>
#include <utility>

#include "cuda/building_blocks.h"
#include "cuda/cublas_ops.h"
#include "cuda/cuda_check.cuh"
#include "cuda/elementwise.cuh"
#include "gpt2_forward.h"

namespace fusebench::kernels {
namespace {

constexpr int kThreads = 256;

// dst row r = table row index(r), for r < rows: nn.Embedding's gather (tokens: token_of; positions: r).
template <class T, bool kTokens>
__global__ void gather_kernel(const T* table, T* dst, size_t rows, size_t c, size_t vocab) {
  const size_t n = rows * c;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const size_t r = i / c, j = i - r * c;
    dst[i] = table[(kTokens ? gpt2::token_of(r, vocab) : r) * c + j];
  }
}

// x[b, t] = te[b, t] + pe[t]: the broadcast add.
template <class T>
__global__ void add_positions_kernel(const T* te, const T* pe, T* x, size_t m, size_t seq, size_t c) {
  const size_t n = m * c, per_seq = seq * c;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += static_cast<size_t>(gridDim.x) * blockDim.x)
    x[i] = from_float<T>(to_float(te[i]) + to_float(pe[i % per_seq]));
}

// x[b, t] = wte[token(b, t)] + wpe[t] in one pass: the fused embedding.
template <class T>
__global__ void embedding_kernel(const T* wte, const T* wpe, T* x, size_t m, size_t seq, size_t c, size_t vocab) {
  const size_t n = m * c;
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const size_t r = i / c, j = i - r * c;
    x[i] = from_float<T>(to_float(wte[gpt2::token_of(r, vocab) * c + j]) + to_float(wpe[(r % seq) * c + j]));
  }
}

// dst rows 0 .. rows: src's rows, then zeros up to padded_rows (the padded LM-head weight), 16 B a thread.
template <class T>
__global__ void pad_rows_kernel(const T* src, T* dst, size_t rows, size_t padded_rows, size_t c) {
  constexpr size_t kPack = 16 / sizeof(T);
  const size_t n = padded_rows * c / kPack, valid = rows * c / kPack;
  const auto* s = reinterpret_cast<const uint4*>(src);
  auto* d = reinterpret_cast<uint4*>(dst);
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n; i += static_cast<size_t>(gridDim.x) * blockDim.x)
    d[i] = i < valid ? s[i] : make_uint4(0, 0, 0, 0);
}

// dst[r, j] = src[r, j] for j < n, src's rows ld elements apart (ld % (16 / sizeof(T)) == 0), dst's n:
// one block per row at a time, 16-byte loads, element stores.
template <class T>
__global__ void compact_rows_kernel(const T* src, T* dst, size_t rows, size_t n, size_t ld) {
  constexpr size_t kPack = 16 / sizeof(T);
  for (size_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const auto* s = reinterpret_cast<const uint4*>(src + r * ld);
    T* d = dst + r * n;
    for (size_t p = threadIdx.x; p * kPack < n; p += blockDim.x) {
      const uint4 v = s[p];
      const T* e = reinterpret_cast<const T*>(&v);
#pragma unroll
      for (size_t k = 0; k < kPack; ++k)
        if (p * kPack + k < n) d[p * kPack + k] = e[k];
    }
  }
}

// logits = LNf(x)·wteᵀ: the LayerNorm row kernel and the cuBLAS GEMM over the vocabulary as it is
// (unfused, as eager's F.linear runs it) or padded to a multiple of 8, then compacted (fused).
template <class T>
void lm_head(const Gpt2ForwardArgs<T>& a, const T* x, bool padded, const LaunchContext& ctx) {
  const size_t m = a.batch * a.seq, c = a.hidden;
  auto stream = static_cast<cudaStream_t>(ctx.stream);
  cuda::layernorm(x, a.lnf_g, a.lnf_b, a.xn, m, c, a.eps, ctx);
  if (!padded) {
    cuda::cublas_gemm_xwt(a.xn, a.wte, a.logits, m, a.vocab, c, ctx);
    return;
  }
  const size_t vp = gpt2::padded_vocab(a.vocab);
  pad_rows_kernel<T><<<cuda::grid_for<pad_rows_kernel<T>>(kThreads, vp * c * sizeof(T) / 16, ctx), kThreads, 0, stream>>>(a.wte, a.wte_pad, a.vocab, vp, c);
  FB_CUDA_CHECK_LAUNCH("gpt2_forward LM-head weight padding");
  cuda::cublas_gemm_xwt(a.xn, a.wte_pad, a.logits_pad, m, vp, c, ctx);
  const size_t rows_at_once = static_cast<size_t>(ctx.sm_count) * 8;
  const unsigned grid = static_cast<unsigned>(m < rows_at_once ? m : rows_at_once);
  compact_rows_kernel<T><<<ctx.max_blocks > 0 && grid > ctx.max_blocks ? static_cast<unsigned>(ctx.max_blocks) : grid,
                           kThreads, 0, stream>>>(a.logits_pad, a.logits, m, a.vocab, vp);
  FB_CUDA_CHECK_LAUNCH("gpt2_forward logits compaction");
}

}  // namespace

template <class T>
void gpt2_forward_unfused_cuda(const Gpt2ForwardArgs<T>& a, const LaunchContext& ctx) {
  const size_t m = a.batch * a.seq, c = a.hidden;
  auto stream = static_cast<cudaStream_t>(ctx.stream);
  gather_kernel<T, true><<<cuda::grid_for<gather_kernel<T, true>>(kThreads, m * c, ctx), kThreads, 0, stream>>>(a.wte, a.te, m, c, a.vocab);
  FB_CUDA_CHECK_LAUNCH("gpt2_forward token gather");
  gather_kernel<T, false><<<cuda::grid_for<gather_kernel<T, false>>(kThreads, a.seq * c, ctx), kThreads, 0, stream>>>(a.wpe, a.pe, a.seq, c, a.vocab);
  FB_CUDA_CHECK_LAUNCH("gpt2_forward position gather");
  add_positions_kernel<T><<<cuda::grid_for<add_positions_kernel<T>>(kThreads, m * c, ctx), kThreads, 0, stream>>>(a.te, a.pe, a.x0, m, a.seq, c);
  FB_CUDA_CHECK_LAUNCH("gpt2_forward embedding add");
  T* x = a.x0;
  T* y = a.x1;
  for (size_t l = 0; l < a.layers; ++l) {
    transformer_block_unfused_cuda<T>(gpt2::block_args(a, l, x, y), ctx);
    std::swap(x, y);
  }
  lm_head(a, x, false, ctx);
}

template <class T>
void gpt2_forward_fused_cuda(const Gpt2ForwardArgs<T>& a, const LaunchContext& ctx) {
  const size_t m = a.batch * a.seq, c = a.hidden;
  embedding_kernel<T><<<cuda::grid_for<embedding_kernel<T>>(kThreads, m * c, ctx), kThreads, 0, static_cast<cudaStream_t>(ctx.stream)>>>(
      a.wte, a.wpe, a.x0, m, a.seq, c, a.vocab);
  FB_CUDA_CHECK_LAUNCH("gpt2_forward embedding");
  T* x = a.x0;
  T* y = a.x1;
  for (size_t l = 0; l < a.layers; ++l) {
    if constexpr (std::is_same_v<T, float>)
      transformer_block_fused_cuda(gpt2::block_args(a, l, x, y), ctx);
    else
      transformer_block_cublaslt_cuda<T>(gpt2::block_args(a, l, x, y), ctx);
    std::swap(x, y);
  }
  lm_head(a, x, true, ctx);
}

FB_CUDA_VARIANTS(Gpt2ForwardArgs, gpt2_forward_unfused_cuda, gpt2_forward_fused_cuda)

}  // namespace fusebench::kernels
