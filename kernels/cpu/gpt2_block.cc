// CPU GPT-2 pre-LN transformer block (transformer_block.h), c = heads·64, m = batch·seq rows.
//
// Unfused: every op a separate full pass into its own scratch buffer, as an eager framework runs the
// block: LN1 → a, GEMM → qkv_t, bias → qkv, three head-split copies → q, k, v, the unfused attention
// (scores, scaled, masked, p, o), the merge-heads copy → merged, GEMM → proj_t, bias → proj,
// add → h, LN2 → a2, GEMM → f1_t, bias → f1, GELU → g, GEMM → f2_t, bias → f2, add → y.
//
// Fused: five steps that write only qkv, merged, h, g and y. LN1 is fused into the QKV GEMM the CPU
// way (normalize a block of rows into a local buffer, multiply it while hot; cpu::gemm_layernorm)
// with the bias in the epilogue; the flash-style attention reads Q, K and V in place from qkv through
// strides and writes merged heads directly; the out-projection GEMM adds bias and the residual x in
// its epilogue to write h; LN2 is fused into the FFN1 GEMM with a bias+GELU epilogue writing g; the
// FFN2 GEMM adds bias and the residual h to write y. The GEMM, LayerNorm and epilogue math is the
// unfused passes' own, so only the attention (online against a full softmax) rounds differently.
//
// Library-fused in bf16/fp16, as the GPU runs it: LN1 → a, the GEMM with the bias epilogue → qkv, the
// flash routine on qkv (widened) → merged, the GEMM with bias + residual x → h, LN2 → a2, the GEMM with
// bias + GELU → g, the GEMM with bias + residual h → y, each stored tensor rounded to T once.
#include <vector>

#include "common/gpt2_block.h"

#include "cpu/attention_cpu.h"
#include "cpu/gemm_any.h"
#include "cpu/gemm_cpu.h"
#include "cpu/row_ops.h"
#include "cpu/widen.h"

namespace fusebench::kernels {
template <class T>
void transformer_block_unfused_cpu(const TransformerBlockArgs<T>& a) {
  const size_t c = a.heads * kHeadDim;
  const size_t m = a.batch * a.seq;
  cpu::layernorm_pass(a.x, a.ln1_g, a.ln1_b, a.a, m, c, a.eps);
  cpu::gemm_any(a.a, a.w_qkv, a.qkv_t, m, 3 * c, c);
  cpu::bias_pass(a.qkv_t, a.b_qkv, a.qkv, m, 3 * c);
  cpu::split_heads(a.qkv, 0, a.q, a.batch, a.seq, a.heads);
  cpu::split_heads(a.qkv, c, a.k, a.batch, a.seq, a.heads);
  cpu::split_heads(a.qkv, 2 * c, a.v, a.batch, a.seq, a.heads);
  cpu::attention_unfused(AttentionTensorsOf<T>{a.q, a.k, a.v, a.o, a.scores, a.scaled, a.masked, a.p, a.batch, a.heads, a.seq});
  cpu::merge_heads(a.o, a.merged, a.batch, a.heads, a.seq);
  cpu::gemm_any(a.merged, a.w_o, a.proj_t, m, c, c);
  cpu::bias_pass(a.proj_t, a.b_o, a.proj, m, c);
  cpu::add_pass(a.x, a.proj, a.h, m * c);
  cpu::layernorm_pass(a.h, a.ln2_g, a.ln2_b, a.a2, m, c, a.eps);
  cpu::gemm_any(a.a2, a.w1, a.f1_t, m, a.f, c);
  cpu::bias_pass(a.f1_t, a.b1, a.f1, m, a.f);
  cpu::gelu_pass(a.f1, a.g, m * a.f);
  cpu::gemm_any(a.g, a.w2, a.f2_t, m, c, a.f);
  cpu::bias_pass(a.f2_t, a.b2, a.f2, m, c);
  cpu::add_pass(a.h, a.f2, a.y, m * c);
}

void transformer_block_fused_cpu(const TransformerBlockArgs<float>& a) {
  const size_t c = a.heads * kHeadDim;
  const size_t m = a.batch * a.seq;
  cpu::gemm_layernorm(a.x, a.ln1_g, a.ln1_b, a.eps, a.w_qkv, a.qkv, m, 3 * c, c, cpu::BiasEpilogue{a.b_qkv});
  const cpu::HeadStrides in_qkv = cpu::interleaved_heads(a.seq, 3 * c);
  const cpu::AttentionOperands ops{a.qkv, in_qkv, a.qkv + c, in_qkv, a.qkv + 2 * c, in_qkv, a.batch, a.heads, a.seq};
  cpu::flash_attention(ops, a.merged, cpu::interleaved_heads(a.seq, c));
  cpu::gemm(a.merged, a.w_o, a.h, m, c, c, cpu::BiasResidualEpilogue{a.b_o, a.x, c});
  cpu::gemm_layernorm(a.h, a.ln2_g, a.ln2_b, a.eps, a.w1, a.g, m, a.f, c, cpu::BiasGeluEpilogue{a.b1});
  cpu::gemm(a.g, a.w2, a.y, m, c, a.f, cpu::BiasResidualEpilogue{a.b2, a.h, c});
}

template <class T>
void transformer_block_cublaslt_cpu(const TransformerBlockArgs<T>& a) {
  const size_t c = a.heads * kHeadDim;
  const size_t m = a.batch * a.seq;
  cpu::layernorm_pass(a.x, a.ln1_g, a.ln1_b, a.a, m, c, a.eps);
  cpu::gemm_any(a.a, a.w_qkv, a.qkv, m, 3 * c, c, [&](auto wide) { return cpu::BiasEpilogue{wide(a.b_qkv, 3 * c)}; });
  const std::vector<float> qkv = cpu::widen(a.qkv, m * 3 * c);
  std::vector<float> merged(m * c);
  const cpu::HeadStrides in_qkv = cpu::interleaved_heads(a.seq, 3 * c);
  cpu::flash_attention({qkv.data(), in_qkv, qkv.data() + c, in_qkv, qkv.data() + 2 * c, in_qkv, a.batch, a.heads, a.seq},
                       merged.data(), cpu::interleaved_heads(a.seq, c));
  cpu::narrow(merged.data(), a.merged, m * c);
  cpu::gemm_any(a.merged, a.w_o, a.h, m, c, c,
                [&](auto wide) { return cpu::BiasResidualEpilogue{wide(a.b_o, c), wide(a.x, m * c), c}; });
  cpu::layernorm_pass(a.h, a.ln2_g, a.ln2_b, a.a2, m, c, a.eps);
  cpu::gemm_any(a.a2, a.w1, a.g, m, a.f, c, [&](auto wide) { return cpu::BiasGeluEpilogue{wide(a.b1, a.f)}; });
  cpu::gemm_any(a.g, a.w2, a.y, m, c, a.f,
                [&](auto wide) { return cpu::BiasResidualEpilogue{wide(a.b2, c), wide(a.h, m * c), c}; });
}

FB_CPU_VARIANTS(TransformerBlockArgs, transformer_block_unfused_cpu, transformer_block_cublaslt_cpu)

}  // namespace fusebench::kernels
