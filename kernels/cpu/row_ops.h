// Small CPU passes shared by the cases: the LayerNorm and RMSNorm of one row, and the full-buffer bias,
// GELU and add passes that the unfused variants run one after another, as an eager framework launches them. The fused
// variants use the same float expressions inside their GEMM epilogues (gemm_cpu.h), so the two
// variants of a case differ in where the values live between ops, not in the math.
#pragma once
#include <cmath>
#include <cstddef>

#include "common/gelu.h"

namespace fusebench::kernels::cpu {

// Eight partial sums: the compiler can keep them in vector registers without reassociating (no
// -ffast-math), and the rounding error grows with n/8 instead of n.
constexpr size_t kRowLanes = 8;

inline float row_sum(const float* v, size_t n) {
  float acc[kRowLanes] = {};
  size_t i = 0;
  for (; i + kRowLanes <= n; i += kRowLanes)
    for (size_t l = 0; l < kRowLanes; ++l) acc[l] += v[i + l];
  for (; i < n; ++i) acc[i % kRowLanes] += v[i];
  float s = 0.0f;
  for (float a : acc) s += a;
  return s;
}

inline float row_sum_sq_dev(const float* v, size_t n, float mean) {
  float acc[kRowLanes] = {};
  size_t i = 0;
  for (; i + kRowLanes <= n; i += kRowLanes)
    for (size_t l = 0; l < kRowLanes; ++l) {
      const float d = v[i + l] - mean;
      acc[l] += d * d;
    }
  for (; i < n; ++i) {
    const float d = v[i] - mean;
    acc[i % kRowLanes] += d * d;
  }
  float s = 0.0f;
  for (float a : acc) s += a;
  return s;
}

// y = (x − mean)·rstd·γ + β over one row of n features. Two passes over the row (mean, then the mean
// of squared deviations): unlike E[x²] − E[x]², the variance
// does not cancel catastrophically when the mean is large against the spread. y may alias x.
inline void layernorm_row(const float* x, const float* gamma, const float* beta, float* y, size_t n, float eps) {
  const float mean = row_sum(x, n) / static_cast<float>(n);
  const float var = row_sum_sq_dev(x, n, mean) / static_cast<float>(n);
  const float rstd = 1.0f / std::sqrt(var + eps);
  for (size_t i = 0; i < n; ++i) y[i] = (x[i] - mean) * rstd * gamma[i] + beta[i];
}

// y = x·rstd·γ with rstd = 1/√(mean(x²) + ε) over one row of n features (RMSNorm). y may alias x.
inline void rmsnorm_row(const float* x, const float* gamma, float* y, size_t n, float eps) {
  float acc[kRowLanes] = {};
  size_t i = 0;
  for (; i + kRowLanes <= n; i += kRowLanes)
    for (size_t l = 0; l < kRowLanes; ++l) acc[l] += x[i + l] * x[i + l];
  for (; i < n; ++i) acc[i % kRowLanes] += x[i] * x[i];
  float sq = 0.0f;
  for (float a : acc) sq += a;
  const float rstd = 1.0f / std::sqrt(sq / static_cast<float>(n) + eps);
  for (size_t j = 0; j < n; ++j) y[j] = x[j] * rstd * gamma[j];
}

// LayerNorm of every row of x [rows, n] into y.
inline void layernorm_pass(const float* x, const float* gamma, const float* beta, float* y, size_t rows, size_t n,
                           float eps) {
  for (size_t r = 0; r < rows; ++r) layernorm_row(x + r * n, gamma, beta, y + r * n, n, eps);
}

// u[r, c] = t[r, c] + b[c] over [rows, cols].
inline void bias_pass(const float* t, const float* b, float* u, size_t rows, size_t cols) {
  for (size_t r = 0; r < rows; ++r) {
    const float* in = t + r * cols;
    float* out = u + r * cols;
    for (size_t c = 0; c < cols; ++c) out[c] = in[c] + b[c];
  }
}

// y = gelu(u) elementwise over n values (the tanh GELU every backend shares, common/gelu.h).
inline void gelu_pass(const float* u, float* y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = gelu_tanh(u[i]);
}

// y = a + b elementwise over n values. The residual stream is always the left operand, in both
// variants of every case, so the fused epilogues round the same way.
inline void add_pass(const float* a, const float* b, float* y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = a[i] + b[i];
}

}  // namespace fusebench::kernels::cpu
