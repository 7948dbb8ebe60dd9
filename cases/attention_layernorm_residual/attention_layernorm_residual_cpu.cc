// CPU y = LayerNorm(x + merge_heads(O)). Unfused: the unfused attention, then the merge-heads copy, the
// residual add and a LayerNorm pass, each a full pass over [batch·seq, c]. Fused (fp32): for a group of
// up to 4 query rows, the attention of every head into a local 4×c buffer, then x added and each row
// normalized straight into y; it writes neither o nor merged nor h. Fused (bf16/fp16), as the GPU's:
// the flash routine writes merged-heads rows rounded to T, then x + merged (rounded to T, as the row
// kernel normalizes the h it would store) is normalized into y.
#include <algorithm>
#include <type_traits>
#include <vector>

#include "attention_layernorm_residual.h"
#include "cpu/attention_cpu.h"
#include "cpu/row_ops.h"

namespace fusebench::kernels {

template <class T>
void attention_layernorm_residual_unfused_cpu(const AttentionLayerNormArgs<T>& a) {
  const size_t c = a.heads * kHeadDim;
  const size_t m = a.batch * a.seq;
  cpu::attention_unfused(a);
  cpu::merge_heads(a.o, a.merged, a.batch, a.heads, a.seq);
  cpu::add_pass(a.x, a.merged, a.h, m * c);
  cpu::layernorm_pass(a.h, a.gamma, a.beta, a.y, m, c, a.eps);
}

template <class T>
void attention_layernorm_residual_fused_cpu(const AttentionLayerNormArgs<T>& a) {
  const size_t d = kHeadDim;
  const size_t c = a.heads * d;
  if constexpr (!std::is_same_v<T, float>) {
    const size_t m = a.batch * a.seq;
    cpu::flash_attention_half<T>(a, a.merged, cpu::interleaved_heads(a.seq, c));
    std::vector<T> h(c);
    for (size_t row = 0; row < m; ++row) {
      cpu::add_pass(a.x + row * c, a.merged + row * c, h.data(), c);
      cpu::layernorm_row(h.data(), a.gamma, a.beta, a.y + row * c, c, a.eps);
    }
  } else {
    const cpu::AttentionOperands ops = cpu::contiguous_operands(a);
    std::vector<float> buf(cpu::kFlashQueryRows * c);  // rows of merge_heads(O), then of x + merged
    for (size_t b = 0; b < a.batch; ++b)
      for (size_t s0 = 0; s0 < a.seq; s0 += cpu::kFlashQueryRows) {
        const size_t rows = std::min(cpu::kFlashQueryRows, a.seq - s0);
        for (size_t h = 0; h < a.heads; ++h) cpu::flash_attention_rows(ops, b, h, s0, rows, buf.data() + h * d, c);
        for (size_t r = 0; r < rows; ++r) {
          const size_t off = (b * a.seq + s0 + r) * c;
          float* row = buf.data() + r * c;
          cpu::add_pass(a.x + off, row, row, c);
          cpu::layernorm_row(row, a.gamma, a.beta, a.y + off, c, a.eps);
        }
      }
  }
}

FB_CPU_VARIANTS(AttentionLayerNormArgs, attention_layernorm_residual_unfused_cpu,
                attention_layernorm_residual_fused_cpu)

}  // namespace fusebench::kernels
