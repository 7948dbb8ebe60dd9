// CPU scale + causal mask + softmax over attention scores [rows, seq_k], rows = batch·heads·seq_q: the
// three passes of the unfused twins (scale, mask, softmax, each a full pass over memory) and the fused
// row pass that applies scale and mask as it reads each row. Both use the same row softmax, so they
// differ only in where the masked scores come from. Key j is masked for query i when
// j > i + (seq_k − seq_q); a row with every key masked is all zeros, never NaN.
#pragma once
#include <cmath>
#include <cstddef>
#include <limits>
#include <type_traits>

#include "common/dtype.h"

namespace fusebench::kernels::cpu {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// The last unmasked key of a row: keys j > limit are masked. Negative when every key is.
inline long long causal_limit(size_t row, size_t seq_q, size_t seq_k) {
  return static_cast<long long>(row % seq_q) + static_cast<long long>(seq_k) - static_cast<long long>(seq_q);
}

// Softmax of one row of n scores given by score(j) (floats), into out. exp(−inf − max) is exactly 0, so
// masked keys get 0; a row with every key masked has max −inf and is written as zeros, not NaN. A float
// row holds the exponentials until they are normalized; a half row would round them, so it takes them
// again from the scores.
template <class T, typename Score>
void softmax_row(Score score, T* out, size_t n) {
  float max = kNegInf;
  for (size_t j = 0; j < n; ++j) max = std::fmax(max, score(j));
  if (max == kNegInf) {
    for (size_t j = 0; j < n; ++j) out[j] = from_float<T>(0.0f);
    return;
  }
  constexpr size_t kLanes = 8;  // partial sums: error grows with n/8, not n
  float acc[kLanes] = {};
  for (size_t j = 0; j < n; ++j) {
    const float e = std::exp(score(j) - max);
    if constexpr (std::is_same_v<T, float>) out[j] = e;
    acc[j % kLanes] += e;
  }
  float sum = 0.0f;
  for (float v : acc) sum += v;
  const float inv = 1.0f / sum;
  for (size_t j = 0; j < n; ++j) {
    if constexpr (std::is_same_v<T, float>) out[j] *= inv;
    else out[j] = from_float<T>(std::exp(score(j) - max) * inv);
  }
}

// The unfused passes: scaled = s·scale, masked = scaled with −∞ where masked, p = softmax(masked).
template <class T>
void scale_mask_softmax_passes(const T* s, T* scaled, T* masked, T* p, size_t rows, size_t seq_q, size_t seq_k,
                               float scale) {
  const size_t n = rows * seq_k;
  for (size_t i = 0; i < n; ++i) scaled[i] = from_float<T>(to_float(s[i]) * scale);
  const T neg_inf = from_float<T>(kNegInf);
  for (size_t row = 0; row < rows; ++row) {
    const long long limit = causal_limit(row, seq_q, seq_k);
    const size_t off = row * seq_k;
    for (size_t j = 0; j < seq_k; ++j) masked[off + j] = static_cast<long long>(j) > limit ? neg_inf : scaled[off + j];
  }
  for (size_t row = 0; row < rows; ++row) {
    const T* in = masked + row * seq_k;
    softmax_row([in](size_t j) { return to_float(in[j]); }, p + row * seq_k, seq_k);
  }
}

// The fused pass: p = softmax(scale·s + mask), one read of each row.
template <class T>
void scale_mask_softmax_rows(const T* s, T* p, size_t rows, size_t seq_q, size_t seq_k, float scale) {
  for (size_t row = 0; row < rows; ++row) {
    const long long limit = causal_limit(row, seq_q, seq_k);
    const T* in = s + row * seq_k;
    auto score = [in, limit, scale](size_t j) {
      return static_cast<long long>(j) > limit ? kNegInf : to_float(in[j]) * scale;
    };
    softmax_row(score, p + row * seq_k, seq_k);
  }
}

}  // namespace fusebench::kernels::cpu
