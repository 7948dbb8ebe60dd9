// CPU residual add + LayerNorm. Both variants normalize with the same row function; the fused one
// normalizes each row right after writing its h, while the row is still in L1.
#include <cmath>

#include "residual_layernorm.h"

namespace fusebench::kernels {
namespace {

// Eight partial sums: the compiler can keep them in one vector register without reassociating
// (no -ffast-math), and the rounding error grows with n/8 instead of n.
constexpr size_t kLanes = 8;

float sum_row(const float* v, size_t n) {
  float acc[kLanes] = {};
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (size_t k = 0; k < kLanes; ++k) acc[k] += v[i + k];
  for (; i < n; ++i) acc[i % kLanes] += v[i];
  float s = 0.0f;
  for (float a : acc) s += a;
  return s;
}

float sum_sq_dev(const float* v, size_t n, float mean) {
  float acc[kLanes] = {};
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (size_t k = 0; k < kLanes; ++k) {
      const float d = v[i + k] - mean;
      acc[k] += d * d;
    }
  for (; i < n; ++i) {
    const float d = v[i] - mean;
    acc[i % kLanes] += d * d;
  }
  float s = 0.0f;
  for (float a : acc) s += a;
  return s;
}

// Two passes over the row (mean, then the mean of squared deviations): unlike E[h²] − E[h]², the
// variance does not cancel catastrophically when the mean is large against the spread.
void layernorm_row(const float* h, const float* gamma, const float* beta, float* y, size_t n, float eps) {
  const float mean = sum_row(h, n) / static_cast<float>(n);
  const float var = sum_sq_dev(h, n, mean) / static_cast<float>(n);
  const float rstd = 1.0f / std::sqrt(var + eps);
  for (size_t i = 0; i < n; ++i) y[i] = (h[i] - mean) * rstd * gamma[i] + beta[i];
}

}  // namespace

void residual_layernorm_unfused_cpu(const ResidualLayerNormArgs& a) {
  const size_t n = a.rows * a.hidden;
  for (size_t i = 0; i < n; ++i) a.h[i] = a.x[i] + a.r[i];
  for (size_t row = 0; row < a.rows; ++row) {
    const size_t off = row * a.hidden;
    layernorm_row(a.h + off, a.gamma, a.beta, a.y + off, a.hidden, a.eps);
  }
}

void residual_layernorm_fused_cpu(const ResidualLayerNormArgs& a) {
  for (size_t row = 0; row < a.rows; ++row) {
    const size_t off = row * a.hidden;
    for (size_t i = 0; i < a.hidden; ++i) a.h[off + i] = a.x[off + i] + a.r[off + i];
    layernorm_row(a.h + off, a.gamma, a.beta, a.y + off, a.hidden, a.eps);
  }
}

}  // namespace fusebench::kernels
