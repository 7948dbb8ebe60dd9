// Host-side numerics helpers, where JavaScript loops cost seconds at GPU sizes:
// linearRow(a, w, b, y), one row of a Linear layer in float64 for the references (src/reference/linear.ts;
// the transformer block's K/V projections are 0.6 G multiply-adds), and firstNonFinite(data), the first NaN
// or infinity of an output (the numerics check scans every element of GPU-sized outputs).
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "js_api.h"
#include "js_args.h"
#include "parallel.h"

namespace fusebench::js {
namespace {

// Σ a[i]·w[i] in float64, in four interleaved partial sums (the compiler vectorizes them).
double dot(const double* a, const float* w, size_t k) {
  double s[4] = {0, 0, 0, 0};
  size_t i = 0;
  for (; i + 4 <= k; i += 4)
    for (size_t l = 0; l < 4; ++l) s[l] += a[i + l] * static_cast<double>(w[i + l]);
  double sum = (s[0] + s[1]) + (s[2] + s[3]);
  for (; i < k; ++i) sum += a[i] * static_cast<double>(w[i]);
  return sum;
}

}  // namespace

Napi::Value linear_row(const Napi::CallbackInfo& info) {
  const Napi::Env env = info.Env();
  auto typed = [&](size_t i, napi_typedarray_type t) {
    return info.Length() > i && info[i].IsTypedArray() && info[i].As<Napi::TypedArray>().TypedArrayType() == t;
  };
  if (!typed(0, napi_float64_array) || !typed(1, napi_float32_array) ||
      !(info[2].IsUndefined() || typed(2, napi_float32_array)) || !typed(3, napi_float64_array))
    throw Napi::TypeError::New(env,
                               "Expected (a: Float64Array, w: Float32Array, b: Float32Array | undefined, y: Float64Array)");
  const auto a = info[0].As<Napi::Float64Array>();
  const auto w = info[1].As<Napi::Float32Array>();
  auto y = info[3].As<Napi::Float64Array>();  // the caller's: JS owns every array the addon hands back
  const size_t k = a.ElementLength();
  const size_t n = y.ElementLength();
  // An empty a is taken as k = 1 for the bound, so the rows read never pass the end of w.
  const size_t k_bound = k > 0 ? k : 1;
  if (n > w.ElementLength() / k_bound) throw Napi::RangeError::New(env, "Expected y.length·max(a.length, 1) at most w.length");
  const float* bias = nullptr;
  if (!info[2].IsUndefined()) {
    const auto b = info[2].As<Napi::Float32Array>();
    if (b.ElementLength() < n) throw Napi::RangeError::New(env, "Expected b to hold at least n values");
    bias = b.Data();
  }
  for (size_t j = 0; j < n; ++j) y[j] = dot(a.Data(), w.Data() + j * k, k) + (bias ? bias[j] : 0.0);
  return env.Undefined();
}

Napi::Value first_non_finite(const Napi::CallbackInfo& info) {
  if (info.Length() < 1 || !info[0].IsTypedArray() ||
      info[0].As<Napi::TypedArray>().TypedArrayType() != napi_float32_array)
    throw Napi::TypeError::New(info.Env(), "Expected a Float32Array for `data`");
  const auto data = info[0].As<Napi::Float32Array>();
  const float* p = data.Data();
  const size_t n = data.ElementLength();
  std::atomic<size_t> first{n};
  parallel_chunks(n, 1, [p, &first](size_t begin, size_t end) {
    for (size_t i = begin; i < end && i < first.load(std::memory_order_relaxed); ++i) {
      if (std::isfinite(p[i])) continue;
      size_t seen = first.load();
      while (i < seen && !first.compare_exchange_weak(seen, i)) {
      }
      return;
    }
  });
  return Napi::Number::New(info.Env(), first.load() == n ? -1.0 : static_cast<double>(first.load()));
}

}  // namespace fusebench::js
