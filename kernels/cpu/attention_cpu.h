// The CPU attention building blocks of the attention cases and the transformer block: the strided
// description of where Q, K, V live, the flash-style causal attention that reads them in place
// (attention_cpu.cc), the unfused attention, and the head split/merge copies of the unfused variants.
//
// Strides let one routine serve every layout: the attention cases' [batch, heads, seq, d] tensors (d = 64,
// or kWideHeadDim in the attention case),
// and the transformer block's qkv [batch·seq, 3c] (Q, K, V at column offsets 0, c, 2c, head h at
// +h·64, row stride 3c), with the output written either as [batch, heads, seq, 64] or straight into
// merged heads [batch·seq, c].
#pragma once
#include <cmath>
#include <cstddef>

#include "common/attention_tensors.h"
#include "common/dtype.h"
#include "common/constants.h"

namespace fusebench::kernels::cpu {

// The score scale 1/√d (1/√64 = 0.125 exactly), shared by both variants.
inline float attention_scale(size_t d = kHeadDim) {
  return d == kHeadDim ? static_cast<float>(kAttentionScale) : static_cast<float>(1.0 / std::sqrt(static_cast<double>(d)));
}

// Element (b, h, s, d) of an operand is at base[b·batch + h·head + s·seq + d]; the d are contiguous.
struct HeadStrides {
  size_t batch, head, seq;
  size_t at(size_t b, size_t h, size_t s) const { return b * batch + h * head + s * seq; }
};

// [batch, heads, seq, d], contiguous.
inline HeadStrides contiguous_heads(size_t heads, size_t seq, size_t d = kHeadDim) {
  return {heads * seq * d, seq * d, d};
}

// Heads side by side in rows of `row_len` floats, row b·seq + s, head h at column offset h·64: the
// merged-heads layout [batch·seq, c] (row_len = c) and the Q/K/V parts of qkv (row_len = 3c, with the
// base pointer offset by 0, c or 2c).
inline HeadStrides interleaved_heads(size_t seq, size_t row_len) {
  return {seq * row_len, kHeadDim, row_len};
}

struct AttentionOperands {
  const float* q;
  HeadStrides qs;
  const float* k;
  HeadStrides ks;
  const float* v;
  HeadStrides vs;
  size_t batch, heads, seq;
  size_t d = kHeadDim;  // the head dimension, at most kWideHeadDim
};

// The operands of contiguous [batch, heads, seq, d] Q, K, V.
inline AttentionOperands contiguous_operands(const AttentionTensors& a, size_t d = kHeadDim) {
  const HeadStrides s = contiguous_heads(a.heads, a.seq, d);
  return {a.q, s, a.k, s, a.v, s, a.batch, a.heads, a.seq, d};
}

// Query rows handled together by flash_attention_rows: one GEMM register tile high.
constexpr size_t kFlashQueryRows = 4;

// Causal attention, softmax(q_i·Kᵀ/√d + mask)·V, of the query rows i0 .. i0 + rows − 1 (rows ≤ 4) of
// head (b, h): row r's d outputs go to out[r·ldo, +d). One online-softmax pass over the keys 0 .. i
// of each row (running max, running sum, a rescaled accumulator), never forming a seq×seq matrix.
void flash_attention_rows(const AttentionOperands& a, size_t b, size_t h, size_t i0, size_t rows, float* out,
                          size_t ldo);

// flash_attention_rows over every row of every head, output element (b, h, s, d) at o[os.at(b, h, s) + d].
void flash_attention(const AttentionOperands& a, float* o, const HeadStrides& os);

// merged[b, s, h·64 + d] = o[b, h, s, d]: the copy an eager framework makes before the out-projection.
template <class T>
void merge_heads(const T* o, T* merged, size_t batch, size_t heads, size_t seq) {
  const size_t d = kHeadDim;
  const size_t c = heads * d;
  for (size_t b = 0; b < batch; ++b)
    for (size_t s = 0; s < seq; ++s) {
      T* dst = merged + (b * seq + s) * c;
      for (size_t h = 0; h < heads; ++h) {
        const T* src = o + ((b * heads + h) * seq + s) * d;
        for (size_t i = 0; i < d; ++i) dst[h * d + i] = src[i];
      }
    }
}

// dst[b, h, s, :] = qkv[b·seq + s, offset + h·64 + :]: a head-split copy out of a [batch·seq, 3·heads·64] projection.
template <class T>
void split_heads(const T* qkv, size_t offset, T* dst, size_t batch, size_t seq, size_t heads) {
  const size_t d = kHeadDim;
  const size_t row_len = 3 * heads * d;
  for (size_t b = 0; b < batch; ++b)
    for (size_t h = 0; h < heads; ++h)
      for (size_t s = 0; s < seq; ++s) {
        const T* src = qkv + (b * seq + s) * row_len + offset + h * d;
        T* out = dst + ((b * heads + h) * seq + s) * d;
        for (size_t i = 0; i < d; ++i) out[i] = src[i];
      }
}

// The unfused causal attention, one full pass per op as the GPU twin launches them: the GEMM writes
// the raw scores Q·Kᵀ of every (query, key) pair, the scale, mask and softmax passes (softmax_cpu.h)
// write scaled, masked and p, and O = p·V over every key, masked ones included (a dense GEMM). T is
// float, bf16 or fp16: the arithmetic in float, every stored tensor rounded to T. d: the head dimension.
template <class T>
void attention_unfused(const AttentionTensorsOf<T>& a, size_t d = kHeadDim);

// flash_attention on contiguous bf16 or fp16 Q, K, V: the operands widened to float, O rounded to T
// and written at o with the strides os (a.o is not used; os spans batch·heads·seq·d elements).
// Instantiated for bf16 and fp16.
template <class T>
void flash_attention_half(const AttentionTensorsOf<T>& a, T* o, const HeadStrides& os, size_t d = kHeadDim);

}  // namespace fusebench::kernels::cpu
