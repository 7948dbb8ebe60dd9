// CPU causal self-attention and its GPT-2 companion y = LayerNorm(x + merge_heads(O)).
//
// Unfused attention, one full pass per op as the GPU twin launches them: the GEMM writes the raw
// scores Q·Kᵀ of every (query, key) pair, the unfused scale_mask_softmax CPU kernel's three passes
// write `scaled` (×1/√64), `masked` (−∞ after the query's position) and `p`, and O = p·V over every
// key, masked ones included (a dense batched GEMM). Fused:
// the flash-style routine of attention_cpu.cc, one online-softmax pass per query row over its keys
// 0 .. i only, writing nothing but O.
//
// attention_layernorm_residual: unfused adds the merge-heads copy, the residual add and a LayerNorm
// pass, each a full pass over [batch·seq, c]. Fused computes, for a group of up to 4 query rows, the
// attention of every head into a local 4×c buffer, adds x and normalizes each row straight into y; it
// writes neither att.o nor merged nor h.
#include <algorithm>
#include <cmath>
#include <vector>

#include "attention.h"
#include "cpu/attention_cpu.h"
#include "cpu/gemm_cpu.h"
#include "cpu/row_ops.h"
#include "scale_mask_softmax.h"

namespace fusebench::kernels {
namespace {

// o[i, :] = Σ_j p[i, j]·v[j, :] for one head: p [seq, seq], v and o [seq, 64]. Every key enters, as in a
// dense GEMM; the sum over j runs in order, vectorized across the 64 outputs.
void probs_times_values(const float* p, const float* v, float* o, size_t seq) {
  constexpr size_t d = kAttentionHeadDim;
  for (size_t i = 0; i < seq; ++i) {
    float acc[d] = {};
    const float* pi = p + i * seq;
    for (size_t j = 0; j < seq; ++j) {
      const float w = pi[j];
      const float* vj = v + j * d;
      for (size_t x = 0; x < d; ++x) acc[x] += w * vj[x];
    }
    for (size_t x = 0; x < d; ++x) o[i * d + x] = acc[x];
  }
}

cpu::AttentionOperands contiguous_operands(const AttentionArgs& a) {
  const cpu::HeadStrides s = cpu::contiguous_heads(a.heads, a.seq);
  return {a.q, s, a.k, s, a.v, s, a.batch, a.heads, a.seq};
}

}  // namespace

void attention_unfused_cpu(const AttentionArgs& a) {
  const size_t d = kAttentionHeadDim;
  const size_t n = a.seq;
  const size_t heads = a.batch * a.heads;
  const size_t rows = heads * n;
  for (size_t bh = 0; bh < heads; ++bh)
    cpu::gemm(a.q + bh * n * d, a.k + bh * n * d, a.scores + bh * n * n, n, n, d, cpu::NoEpilogue{});
  // Scale, mask and softmax: the unfused scale_mask_softmax passes, as the CUDA twin launches them.
  scale_mask_softmax_unfused_cpu({a.scores, a.scaled, a.masked, a.p, rows, n, n, cpu::attention_scale()});
  for (size_t bh = 0; bh < heads; ++bh) probs_times_values(a.p + bh * n * n, a.v + bh * n * d, a.o + bh * n * d, n);
}

void attention_fused_cpu(const AttentionArgs& a) {
  cpu::flash_attention(contiguous_operands(a), a.o, cpu::contiguous_heads(a.heads, a.seq));
}

void attention_layernorm_residual_unfused_cpu(const AttentionLayerNormArgs& a) {
  const AttentionArgs& att = a.att;
  const size_t c = att.heads * kAttentionHeadDim;
  const size_t m = att.batch * att.seq;
  attention_unfused_cpu(att);
  cpu::merge_heads(att.o, a.merged, att.batch, att.heads, att.seq);
  cpu::add_pass(a.x, a.merged, a.h, m * c);
  cpu::layernorm_pass(a.h, a.gamma, a.beta, a.y, m, c, a.eps);
}

void attention_layernorm_residual_fused_cpu(const AttentionLayerNormArgs& a) {
  const AttentionArgs& att = a.att;
  const size_t d = kAttentionHeadDim;
  const size_t c = att.heads * d;
  const cpu::AttentionOperands ops = contiguous_operands(att);
  std::vector<float> buf(cpu::kFlashQueryRows * c);  // rows of merge_heads(O), then of x + merged
  for (size_t b = 0; b < att.batch; ++b)
    for (size_t s0 = 0; s0 < att.seq; s0 += cpu::kFlashQueryRows) {
      const size_t rows = std::min(cpu::kFlashQueryRows, att.seq - s0);
      for (size_t h = 0; h < att.heads; ++h) cpu::flash_attention_rows(ops, b, h, s0, rows, buf.data() + h * d, c);
      for (size_t r = 0; r < rows; ++r) {
        const size_t off = (b * att.seq + s0 + r) * c;
        float* row = buf.data() + r * c;
        const float* x = a.x + off;
        for (size_t i = 0; i < c; ++i) row[i] = x[i] + row[i];
        cpu::layernorm_row(row, a.gamma, a.beta, a.y + off, c, a.eps);
      }
    }
}

}  // namespace fusebench::kernels
