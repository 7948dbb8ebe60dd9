// A GPT-2 pre-LN transformer block, with c = heads·64 and m = batch·seq rows:
//   a = LN1(x); qkv = a·Wqkvᵀ + bqkv; o = causal attention over the heads of qkv;
//   h = x + merge_heads(o)·Woᵀ + bo; y = h + gelu(LN2(h)·W1ᵀ + b1)·W2ᵀ + b2.
// qkv's columns are [Q | K | V], each split into heads of 64. Unfused: one launch per op, as an
// eager framework runs the block (LayerNorm, GEMM, bias, the head split copies, the unfused
// attention, the merge copy, add, ...). Fused: five kernels: the LN1-folded QKV GEMM, flash
// attention reading Q/K/V in place from qkv and writing merged heads, the out-projection GEMM with
// a bias+residual epilogue, the LN2-folded FFN1 GEMM with a bias+GELU epilogue, and the FFN2 GEMM
// with a bias+residual epilogue (plus the two small weight-folding kernels of gemm.cuh).
#pragma once
#include <cstddef>

#include "common/launch.h"

namespace fusebench::kernels {

struct TransformerBlockArgs {
  // Inputs.
  const float* x;                      // [m, c]
  const float* ln1_g, *ln1_b;          // [c]
  const float* w_qkv, *b_qkv;          // [3c, c], [3c]
  const float* w_o, *b_o;              // [c, c], [c]
  const float* ln2_g, *ln2_b;          // [c]
  const float* w1, *b1;                // [f, c], [f]
  const float* w2, *b2;                // [c, f], [c]
  // Outputs of both variants.
  float* h;                            // [m, c]
  float* y;                            // [m, c]
  // Scratch (the fused variant uses qkv, merged and g).
  float* a;                            // [m, c] LN1(x)
  float* qkv_t, *qkv;                  // [m, 3c]
  float* q, *k, *v;                    // [batch, heads, seq, 64] split copies
  float* scores, *scaled, *masked, *p; // [batch, heads, seq, seq]
  float* o;                            // [batch, heads, seq, 64]
  float* merged;                       // [m, c]
  float* proj_t, *proj;                // [m, c]
  float* a2;                           // [m, c] LN2(h)
  float* f1_t, *f1, *g;                // [m, f]
  float* f2_t, *f2;                    // [m, c]
  // Fused scratch: the LayerNorm-folded weights (gemm.cuh): w·diag(γ), Σ_k γ_k·w_jk, b_j + Σ_k β_k·w_jk.
  float* wqkv_f, *cqkv, *dqkv;         // [3c, c], [3c], [3c]
  float* w1_f, *c1, *d1;               // [f, c], [f], [f]
  size_t batch, seq, heads, f;
  float eps;
};

void transformer_block_unfused_cpu(const TransformerBlockArgs& a);
void transformer_block_fused_cpu(const TransformerBlockArgs& a);

#ifdef FUSEBENCH_WITH_CUDA
void transformer_block_unfused_cuda(const TransformerBlockArgs& a, const LaunchContext& ctx);
void transformer_block_fused_cuda(const TransformerBlockArgs& a, const LaunchContext& ctx);
#endif

}  // namespace fusebench::kernels
