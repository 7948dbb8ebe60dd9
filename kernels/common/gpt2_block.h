// A GPT-2 pre-LN transformer block, with c = heads·64 and m = batch·seq rows:
//   a = LN1(x); qkv = a·Wqkvᵀ + bqkv; o = causal attention over the heads of qkv;
//   h = x + merge_heads(o)·Woᵀ + bo; y = h + gelu(LN2(h)·W1ᵀ + b1)·W2ᵀ + b2.
// qkv's columns are [Q | K | V], each split into heads of 64. In every precision (T = float, bf16,
// fp16; half GEMMs on tensor cores with fp32 accumulation). Unfused: one launch per op, as an eager
// framework runs the block (LayerNorm, GEMM, bias, the head split copies, the unfused attention, the
// merge copy, add, ...). Fused (fp32 only): five of fusebench's kernels: the LN1-folded QKV GEMM,
// flash attention reading Q/K/V in place from qkv and writing merged heads, the out-projection GEMM
// with a bias+residual epilogue, the LN2-folded FFN1 GEMM with a bias+GELU epilogue, and the FFN2 GEMM
// with a bias+residual epilogue, plus gemm.cuh's small passes: the two weight folds with the row
// statistics of x in one launch, and the row statistics of h (7 launches). Library-fused
// (cublaslt; the fused variant in bf16/fp16): the LayerNorm kernels feeding cuBLASLt GEMMs with the
// BIAS, GELU_BIAS and BIAS + β·C residual epilogues, around the same in-place flash attention (the
// tensor-core kernel in bf16/fp16): 7 launches.
#pragma once
#include <cstddef>

#include "common/dtype.h"
#include "common/launch.h"

namespace fusebench::kernels {

template <class T>
struct TransformerBlockArgs {
  // Inputs.
  const T* x;                      // [m, c]
  const T* ln1_g, *ln1_b;          // [c]
  const T* w_qkv, *b_qkv;          // [3c, c], [3c]
  const T* w_o, *b_o;              // [c, c], [c]
  const T* ln2_g, *ln2_b;          // [c]
  const T* w1, *b1;                // [f, c], [f]
  const T* w2, *b2;                // [c, f], [c]
  // Outputs of both variants.
  T* h;                            // [m, c]
  T* y;                            // [m, c]
  // Scratch (the fused variants use qkv, merged and g; the library-fused one a and a2 too).
  T* a;                            // [m, c] LN1(x)
  T* qkv_t, *qkv;                  // [m, 3c]
  T* q, *k, *v;                    // [batch, heads, seq, 64] split copies
  T* scores, *scaled, *masked, *p; // [batch, heads, seq, seq]
  T* o;                            // [batch, heads, seq, 64]
  T* merged;                       // [m, c]
  T* proj_t, *proj;                // [m, c]
  T* a2;                           // [m, c] LN2(h)
  T* f1_t, *f1, *g;                // [m, f]
  T* f2_t, *f2;                    // [m, c]
  // fp32 fused scratch: the LayerNorm-folded weights (gemm.cuh): w·diag(γ), Σ_k γ_k·w_jk, b_j + Σ_k β_k·w_jk.
  T* wqkv_f, *cqkv, *dqkv;         // [3c, c], [3c], [3c]
  T* w1_f, *c1, *d1;               // [f, c], [f], [f]
  T* stats1, *stats2;              // [m, 2] the rows' mean and rstd of x (LN1) and h (LN2)
  size_t batch, seq, heads, f;
  float eps;
};

FB_VARIANT_DECL(transformer_block_unfused, TransformerBlockArgs)
FB_VARIANT_DECL(transformer_block_cublaslt, TransformerBlockArgs)  // bf16/fp16 on the CPU: the GPU's library path
void transformer_block_fused_cpu(const TransformerBlockArgs<float>& a);
FB_IF_CUDA(void transformer_block_fused_cuda(const TransformerBlockArgs<float>& a, const LaunchContext& ctx);)  // fusebench's fp32 GEMMs

}  // namespace fusebench::kernels
