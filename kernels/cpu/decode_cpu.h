// The pieces the CPU decode steps share (gpt2_decode, llama_decode): one row at a time in float, with
// what a variant stores between ops chosen by keep. The unfused twins round every tensor they store to
// T; the fused variants keep their vectors in float.
#pragma once
#include <cmath>
#include <cstddef>
#include <vector>

#include "common/constants.h"
#include "common/dtype.h"

namespace fusebench::kernels::cpu {

// v as stored: rounded to T where the variant stores T, kept in float where it keeps float.
template <class T, bool kFloat>
void keep(std::vector<float>& v) {
  if constexpr (!kFloat)
    for (float& x : v) x = to_float(from_float<T>(x));
}

// y[j] = Σ_k w[j, k]·x[k] (+ b[j]) for j < n, w [n, k] row-major; eight partial sums per row.
template <class T>
std::vector<float> linear(const std::vector<float>& x, const T* w, const T* b, size_t n) {
  const size_t k = x.size();
  std::vector<float> y(n);
  for (size_t j = 0; j < n; ++j) {
    float acc[8] = {};
    const T* row = w + j * k;
    for (size_t i = 0; i < k; ++i) acc[i % 8] += to_float(row[i]) * x[i];
    float s = 0.f;
    for (float a : acc) s += a;
    y[j] = s + (b != nullptr ? to_float(b[j]) : 0.f);
  }
  return y;
}

// y[j] = Σ_i x[i]·w[i, j] for j < n, w [k, n] row-major (a weight stored in × out); eight partial sums
// per output, as linear's.
template <class T>
std::vector<float> linear_in_out(const std::vector<float>& x, const T* w, size_t n) {
  const size_t k = x.size();
  std::vector<float> acc(8 * n, 0.f), y(n, 0.f);
  for (size_t i = 0; i < k; ++i)
    for (size_t j = 0; j < n; ++j) acc[(i % 8) * n + j] += to_float(w[i * n + j]) * x[i];
  for (size_t p = 0; p < 8; ++p)
    for (size_t j = 0; j < n; ++j) y[j] += acc[p * n + j];
  return y;
}

// The attention of q (heads × 64, the first heads·64 values of q) over the cache rows 0 .. keys − 1 of
// one layer (rows of kv_heads·64), per query head; query head h reads K/V head h / (heads / kv_heads).
template <class T>
std::vector<float> attend_cache(const std::vector<float>& q, const T* kc, const T* vc, size_t heads, size_t kv_heads,
                                size_t keys) {
  const size_t kv = kv_heads * kHeadDim, group = heads / kv_heads;
  std::vector<float> o(heads * kHeadDim), p(keys);
  for (size_t h = 0; h < heads; ++h) {
    const size_t col = h / group * kHeadDim;
    float m = -INFINITY, l = 0.f;
    for (size_t j = 0; j < keys; ++j) {
      float s = 0.f;
      for (size_t d = 0; d < kHeadDim; ++d) s += q[h * kHeadDim + d] * to_float(kc[j * kv + col + d]);
      p[j] = s * static_cast<float>(kAttentionScale);
      m = std::fmax(m, p[j]);
    }
    for (size_t j = 0; j < keys; ++j) l += p[j] = std::exp(p[j] - m);
    for (size_t d = 0; d < kHeadDim; ++d) {
      float acc = 0.f;
      for (size_t j = 0; j < keys; ++j) acc += p[j] * to_float(vc[j * kv + col + d]);
      o[h * kHeadDim + d] = acc / l;
    }
  }
  return o;
}

}  // namespace fusebench::kernels::cpu
