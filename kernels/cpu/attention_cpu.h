// The CPU attention building blocks shared by attention.cc and transformer_block.cc: the strided
// description of where Q, K, V live, the flash-style causal attention that reads them in place
// (attention_cpu.cc), and the merge-heads copy of the unfused variants.
//
// Strides let one routine serve every layout: the attention cases' [batch, heads, seq, 64] tensors,
// and the transformer block's qkv [batch·seq, 3c] (Q, K, V at column offsets 0, c, 2c, head h at
// +h·64, row stride 3c), with the output written either as [batch, heads, seq, 64] or straight into
// merged heads [batch·seq, c].
#pragma once
#include <cmath>
#include <cstddef>

#include "attention.h"

namespace fusebench::kernels::cpu {

// The score scale 1/√64 (exactly 0.125), shared by both variants.
inline float attention_scale() { return 1.0f / std::sqrt(static_cast<float>(kAttentionHeadDim)); }

// Element (b, h, s, d) of an operand is at base[b·batch + h·head + s·seq + d]; the 64 d are contiguous.
struct HeadStrides {
  size_t batch, head, seq;
  size_t at(size_t b, size_t h, size_t s) const { return b * batch + h * head + s * seq; }
};

// [batch, heads, seq, 64], contiguous.
inline HeadStrides contiguous_heads(size_t heads, size_t seq) {
  return {heads * seq * kAttentionHeadDim, seq * kAttentionHeadDim, kAttentionHeadDim};
}

// Heads side by side in rows of `row_len` floats, row b·seq + s, head h at column offset h·64: the
// merged-heads layout [batch·seq, c] (row_len = c) and the Q/K/V parts of qkv (row_len = 3c, with the
// base pointer offset by 0, c or 2c).
inline HeadStrides interleaved_heads(size_t seq, size_t row_len) {
  return {seq * row_len, kAttentionHeadDim, row_len};
}

struct AttentionOperands {
  const float* q;
  HeadStrides qs;
  const float* k;
  HeadStrides ks;
  const float* v;
  HeadStrides vs;
  size_t batch, heads, seq;
};

// Query rows handled together by flash_attention_rows: one GEMM register tile high.
constexpr size_t kFlashQueryRows = 4;

// Causal attention, softmax(q_i·Kᵀ/8 + mask)·V, of the query rows i0 .. i0 + rows − 1 (rows ≤ 4) of
// head (b, h): row r's 64 outputs go to out[r·ldo, +64). One online-softmax pass over the keys 0 .. i
// of each row (running max, running sum, a rescaled accumulator), never forming a seq×seq matrix.
void flash_attention_rows(const AttentionOperands& a, size_t b, size_t h, size_t i0, size_t rows, float* out,
                          size_t ldo);

// flash_attention_rows over every row of every head, output element (b, h, s, d) at o[os.at(b, h, s) + d].
void flash_attention(const AttentionOperands& a, float* o, const HeadStrides& os);

// merged[b, s, h·64 + d] = o[b, h, s, d]: the copy an eager framework makes before the out-projection.
inline void merge_heads(const float* o, float* merged, size_t batch, size_t heads, size_t seq) {
  const size_t d = kAttentionHeadDim;
  const size_t c = heads * d;
  for (size_t b = 0; b < batch; ++b)
    for (size_t s = 0; s < seq; ++s) {
      float* dst = merged + (b * seq + s) * c;
      for (size_t h = 0; h < heads; ++h) {
        const float* src = o + ((b * heads + h) * seq + s) * d;
        for (size_t i = 0; i < d; ++i) dst[h * d + i] = src[i];
      }
    }
}

}  // namespace fusebench::kernels::cpu
