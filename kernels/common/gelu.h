// GELU, tanh form: 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))). Shared by the CPU and CUDA
// kernels so every variant on every backend does the same float math.
#pragma once
#include <cmath>
#include <type_traits>

#include "common/constants.h"

#if defined(__CUDACC__)
#define FB_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define FB_HOST_DEVICE inline
#endif

namespace fusebench {

// tanh(u) = 1 − 2 / (e^{2u} + 1). Through expf it is about twice as fast as glibc's tanhf on the
// CPU backend and no slower on the GPU; the absolute error stays below 1e-7 (e^{2u} overflowing
// to inf for large u gives exactly 1, underflowing to 0 gives exactly −1).
FB_HOST_DEVICE float tanh_via_exp(float u) { return 1.0f - 2.0f / (expf(2.0f * u) + 1.0f); }

FB_HOST_DEVICE float gelu_tanh(float x) {
  const float k_sqrt_2_over_pi = static_cast<float>(kGeluSqrt2OverPi);
  const float k_cubic = static_cast<float>(kGeluCubic);
  const float inner = k_sqrt_2_over_pi * (x + k_cubic * x * x * x);
  return 0.5f * x * (1.0f + tanh_via_exp(inner));
}

#if defined(__CUDACC__)
// The tanh GELU in its cheaper sigmoid form, 0.5·x·(1 + tanh(u)) = x / (1 + e^(−2u)), on the fast
// base-2 exponential and division: −2u·log2(e) = x·(a + b·x²) with the constants folded (three FP32
// operations), then ex2.approx and __fdividef; a few ulp from gelu_tanh, no cancellation in the negative
// tail; the exponent is capped at 115 so 2^z stays finite: for very negative x the result is x·2^-115,
// a tiny negative number where the exact GELU is (only fp16 flushes it to −0), as the natural-base cap
// of 80 gave before. Used
// where the math shows: the GEMM epilogues, and the half-precision kernels, whose 8 elements per
// 16-byte load make them compute-bound (with the accurate expf and division gelu_scale ran far below
// the copy bandwidth, and with the natural-base form, whose exponent took two operations more, the
// issue slots were still the limit, not memory: docs/measurements.md, "Half-precision math"), and whose
// bf16/fp16 result cannot tell the forms apart.
__device__ __forceinline__ float gelu_fast(float x) {
  constexpr float a = static_cast<float>(-2.0 * kGeluSqrt2OverPi * 1.4426950408889634);  // −2·√(2/π)·log2(e)
  constexpr float b = static_cast<float>(-2.0 * kGeluSqrt2OverPi * 1.4426950408889634 * kGeluCubic);
  const float z = fminf(x * fmaf(b, x * x, a), 115.0f);
  float e;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(e) : "f"(z));
  return __fdividef(x, 1.0f + e);
}

// GELU for elements stored in T: the accurate form for fp32, the fast one for the half types.
template <class T>
__device__ __forceinline__ float gelu_of(float x) {
  if constexpr (std::is_same_v<T, float>) return gelu_tanh(x);
  else return gelu_fast(x);
}

// GELU as an elementwise functor for the CUDA map kernels (the unfused twins' GELU kernel).
template <class T>
struct GeluOp {
  __device__ float operator()(float x) const { return gelu_of<T>(x); }
};
#endif

}  // namespace fusebench
