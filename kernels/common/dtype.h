// The precisions a case is stored in: fp32, and the half types bf16 and fp16 (16-bit storage,
// arithmetic in fp32, as PyTorch autocast runs them). A kernel templated on its element type T reads
// with to_float(T) and writes with from_float<T>(float): round to nearest even, the same on the host
// (the CPU backend, the workspace's uploads) and on the device (CUDA's conversion instructions).
#pragma once
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#define FB_HD __host__ __device__ __forceinline__
#else
#define FB_HD inline
#endif

namespace fusebench {

// Raw 16-bit storage; layout-compatible with CUDA's __nv_bfloat16 and __half.
struct bf16 {
  uint16_t bits;
};
struct fp16 {
  uint16_t bits;
};

// X(T) for each element type: the explicit instantiations of a kernel template in every precision.
#define FB_FOR_EACH_DTYPE(X) X(float) X(::fusebench::bf16) X(::fusebench::fp16)

// Explicit instantiations of a case's variant template `fn` (taking `const Args<T>&`, and on CUDA a
// LaunchContext) for every precision, in the file that defines it.
#define FB_VARIANT_CPU_T(fn, Args, T) template void fn<T>(const Args<T>&);
#define FB_VARIANT_CUDA_T(fn, Args, T) template void fn<T>(const Args<T>&, const LaunchContext&);
#define FB_VARIANT_IN_EACH_DTYPE(KIND, fn, Args)                                                \
  FB_VARIANT_##KIND##_T(fn, Args, float) FB_VARIANT_##KIND##_T(fn, Args, ::fusebench::bf16) \
      FB_VARIANT_##KIND##_T(fn, Args, ::fusebench::fp16)
#define FB_CPU_VARIANTS(Args, unfused, fused) \
  FB_VARIANT_IN_EACH_DTYPE(CPU, unfused, Args) FB_VARIANT_IN_EACH_DTYPE(CPU, fused, Args)
#define FB_CUDA_VARIANTS(Args, unfused, fused) \
  FB_VARIANT_IN_EACH_DTYPE(CUDA, unfused, Args) FB_VARIANT_IN_EACH_DTYPE(CUDA, fused, Args)

// The name results and baselines use for each element type.
template <class T>
constexpr const char* dtype_name();
template <>
constexpr const char* dtype_name<float>() {
  return "fp32";
}
template <>
constexpr const char* dtype_name<bf16>() {
  return "bf16";
}
template <>
constexpr const char* dtype_name<fp16>() {
  return "fp16";
}

namespace detail {

FB_HD float bits_to_float(uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
#endif
}

FB_HD uint32_t float_to_bits(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
#endif
}

// IEEE binary16 → binary32, exact (subnormals, infinities and NaNs included).
inline float half_bits_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1Fu, man = h & 0x3FFu;
  if (exp == 0x1F) return bits_to_float(sign | 0x7F800000u | (man << 13));  // inf, NaN
  if (exp == 0) {
    if (man == 0) return bits_to_float(sign);
    exp = 113;  // subnormal: normalize (2^-14 · man/1024)
    while ((man & 0x400u) == 0) {
      man <<= 1;
      --exp;
    }
    man &= 0x3FFu;
    return bits_to_float(sign | (exp << 23) | (man << 13));
  }
  return bits_to_float(sign | ((exp + 112) << 23) | (man << 13));
}

// binary32 → binary16, round to nearest even; overflow to ±inf, NaN stays NaN.
inline uint16_t float_to_half_bits(float f) {
  const uint32_t u = float_to_bits(f);
  const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  const uint32_t abs = u & 0x7FFFFFFFu;
  if (abs > 0x7F800000u) return static_cast<uint16_t>(sign | 0x7E00u);  // NaN
  if (abs >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);  // rounds to ≥ 65520: inf
  if (abs < 0x38800000u) {  // below 2^-14: subnormal or zero, in units of 2^-24
    const uint32_t man = (abs & 0x7FFFFFu) | 0x800000u;
    const int shift = 126 - static_cast<int>(abs >> 23);  // value / 2^-24 = man · 2^(e − 126)
    if (shift > 24) return sign;                              // below 2^-25: rounds to zero
    const uint32_t q = man >> shift, rem = man & ((1u << shift) - 1), half = 1u << (shift - 1);
    return static_cast<uint16_t>(sign | (q + (rem > half || (rem == half && (q & 1u)))));
  }
  const uint32_t q = (abs >> 13) - (112u << 10), rem = abs & 0x1FFFu;  // rebias 127 → 15
  return static_cast<uint16_t>(sign | (q + (rem > 0x1000u || (rem == 0x1000u && (q & 1u)))));
}

// binary32 → bfloat16, round to nearest even; NaN stays NaN (also the device path below sm_80).
FB_HD uint16_t float_to_bf16_bits(float f) {
  const uint32_t u = float_to_bits(f);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((u >> 16) | 0x40u);
  return static_cast<uint16_t>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

}  // namespace detail

FB_HD float to_float(float x) { return x; }
FB_HD float to_float(bf16 x) { return detail::bits_to_float(static_cast<uint32_t>(x.bits) << 16); }
FB_HD float to_float(fp16 x) {
#if defined(__CUDA_ARCH__)
  return __half2float(__ushort_as_half(x.bits));
#else
  return detail::half_bits_to_float(x.bits);
#endif
}

template <class T>
FB_HD T from_float(float x);
template <>
FB_HD float from_float<float>(float x) {
  return x;
}
template <>
FB_HD bf16 from_float<bf16>(float x) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const __nv_bfloat16_raw r = __float2bfloat16_rn(x);
  return bf16{r.x};
#else
  return bf16{detail::float_to_bf16_bits(x)};
#endif
}
template <>
FB_HD fp16 from_float<fp16>(float x) {
#if defined(__CUDA_ARCH__)
  return fp16{__half_as_ushort(__float2half_rn(x))};
#else
  return fp16{detail::float_to_half_bits(x)};
#endif
}

}  // namespace fusebench
