// Small CPU passes shared by the cases: the LayerNorm and RMSNorm of one row, and the full-buffer bias,
// GELU and add passes that the unfused variants run one after another, as an eager framework launches them. The fused
// variants use the same float expressions inside their GEMM epilogues (gemm_cpu.h), so the two
// variants of a case differ in where the values live between ops, not in the math. Every pass takes
// tensors of T (float, bf16 or fp16), computes in float and rounds what it stores to T.
#pragma once
#include <cmath>
#include <cstddef>

#include "common/dtype.h"
#include "common/gelu.h"

namespace fusebench::kernels::cpu {

// Eight partial sums: the compiler can keep them in vector registers without reassociating (no
// -ffast-math), and the rounding error grows with n/8 instead of n.
constexpr size_t kRowLanes = 8;

template <class T>
float row_sum(const T* v, size_t n) {
  float acc[kRowLanes] = {};
  size_t i = 0;
  for (; i + kRowLanes <= n; i += kRowLanes)
    for (size_t l = 0; l < kRowLanes; ++l) acc[l] += to_float(v[i + l]);
  for (; i < n; ++i) acc[i % kRowLanes] += to_float(v[i]);
  float s = 0.0f;
  for (float a : acc) s += a;
  return s;
}

template <class T>
float row_sum_sq_dev(const T* v, size_t n, float mean) {
  float acc[kRowLanes] = {};
  size_t i = 0;
  for (; i + kRowLanes <= n; i += kRowLanes)
    for (size_t l = 0; l < kRowLanes; ++l) {
      const float d = to_float(v[i + l]) - mean;
      acc[l] += d * d;
    }
  for (; i < n; ++i) {
    const float d = to_float(v[i]) - mean;
    acc[i % kRowLanes] += d * d;
  }
  float s = 0.0f;
  for (float a : acc) s += a;
  return s;
}

// y = (x − mean)·rstd·γ + β over one row of n features. Two passes over the row (mean, then the mean
// of squared deviations): unlike E[x²] − E[x]², the variance
// does not cancel catastrophically when the mean is large against the spread. y may alias x.
template <class T>
void layernorm_row(const T* x, const T* gamma, const T* beta, T* y, size_t n, float eps) {
  const float mean = row_sum(x, n) / static_cast<float>(n);
  const float var = row_sum_sq_dev(x, n, mean) / static_cast<float>(n);
  const float rstd = 1.0f / std::sqrt(var + eps);
  for (size_t i = 0; i < n; ++i)
    y[i] = from_float<T>((to_float(x[i]) - mean) * rstd * to_float(gamma[i]) + to_float(beta[i]));
}

// y = x·rstd·γ with rstd = 1/√(mean(x²) + ε) over one row of n features (RMSNorm). y may alias x; γ may
// be of another type than x and y (a float row normalized with γ in T).
template <class T, class G>
void rmsnorm_row(const T* x, const G* gamma, T* y, size_t n, float eps) {
  const float sq = row_sum_sq_dev(x, n, 0.0f);
  const float rstd = 1.0f / std::sqrt(sq / static_cast<float>(n) + eps);
  for (size_t j = 0; j < n; ++j) y[j] = from_float<T>(to_float(x[j]) * rstd * to_float(gamma[j]));
}

// LayerNorm of every row of x [rows, n] into y.
template <class T>
void layernorm_pass(const T* x, const T* gamma, const T* beta, T* y, size_t rows, size_t n, float eps) {
  for (size_t r = 0; r < rows; ++r) layernorm_row(x + r * n, gamma, beta, y + r * n, n, eps);
}

// u[r, c] = t[r, c] + b[c] over [rows, cols].
template <class T>
void bias_pass(const T* t, const T* b, T* u, size_t rows, size_t cols) {
  for (size_t r = 0; r < rows; ++r) {
    const T* in = t + r * cols;
    T* out = u + r * cols;
    for (size_t c = 0; c < cols; ++c) out[c] = from_float<T>(to_float(in[c]) + to_float(b[c]));
  }
}

// y = gelu(u) elementwise over n values (the tanh GELU every backend shares, common/gelu.h).
template <class T>
void gelu_pass(const T* u, T* y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = from_float<T>(gelu_tanh(to_float(u[i])));
}

// y = a + b elementwise over n values. The residual stream is always the left operand, in both
// variants of every case, so the fused epilogues round the same way.
template <class T>
void add_pass(const T* a, const T* b, T* y, size_t n) {
  for (size_t i = 0; i < n; ++i) y[i] = from_float<T>(to_float(a[i]) + to_float(b[i]));
}

}  // namespace fusebench::kernels::cpu
