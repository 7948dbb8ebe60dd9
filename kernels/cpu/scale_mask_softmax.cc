// CPU scale + causal mask + softmax. The unfused variant makes three passes over memory (scale,
// mask, softmax); the fused one applies scale and mask as it reads each row. Both use the same row
// softmax, so they differ only in where the masked scores come from.
#include <cmath>
#include <limits>

#include "scale_mask_softmax.h"

namespace fusebench::kernels {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// The last unmasked key of a row: keys j > limit are masked. Negative when every key is.
long long causal_limit(size_t row, const ScaleMaskSoftmaxArgs& a) {
  return static_cast<long long>(row % a.seq_q) + static_cast<long long>(a.seq_k) - static_cast<long long>(a.seq_q);
}

// Softmax of one row of n scores given by score(j), into out. exp(−inf − max) is exactly 0, so
// masked keys get 0; a row with every key masked has max −inf and is written as zeros, not NaN.
template <typename Score>
void softmax_row(Score score, float* out, size_t n) {
  float max = kNegInf;
  for (size_t j = 0; j < n; ++j) max = std::fmax(max, score(j));
  if (max == kNegInf) {
    for (size_t j = 0; j < n; ++j) out[j] = 0.0f;
    return;
  }
  constexpr size_t kLanes = 8;  // partial sums: error grows with n/8, not n
  float acc[kLanes] = {};
  for (size_t j = 0; j < n; ++j) {
    const float e = std::exp(score(j) - max);
    out[j] = e;
    acc[j % kLanes] += e;
  }
  float sum = 0.0f;
  for (float v : acc) sum += v;
  const float inv = 1.0f / sum;
  for (size_t j = 0; j < n; ++j) out[j] *= inv;
}

}  // namespace

void scale_mask_softmax_unfused_cpu(const ScaleMaskSoftmaxArgs& a) {
  const size_t n = a.rows * a.seq_k;
  for (size_t i = 0; i < n; ++i) a.scaled[i] = a.s[i] * a.scale;
  for (size_t row = 0; row < a.rows; ++row) {
    const long long limit = causal_limit(row, a);
    const size_t off = row * a.seq_k;
    for (size_t j = 0; j < a.seq_k; ++j)
      a.masked[off + j] = static_cast<long long>(j) > limit ? kNegInf : a.scaled[off + j];
  }
  for (size_t row = 0; row < a.rows; ++row) {
    const float* in = a.masked + row * a.seq_k;
    softmax_row([in](size_t j) { return in[j]; }, a.p + row * a.seq_k, a.seq_k);
  }
}

void scale_mask_softmax_fused_cpu(const ScaleMaskSoftmaxArgs& a) {
  for (size_t row = 0; row < a.rows; ++row) {
    const long long limit = causal_limit(row, a);
    const float* in = a.s + row * a.seq_k;
    const float scale = a.scale;
    auto score = [in, limit, scale](size_t j) {
      return static_cast<long long>(j) > limit ? kNegInf : in[j] * scale;
    };
    softmax_row(score, a.p + row * a.seq_k, a.seq_k);
  }
}

}  // namespace fusebench::kernels
