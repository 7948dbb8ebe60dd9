#include "random_fill.h"

#include <cmath>

#include "common/dtype.h"
#include "parallel.h"

namespace fusebench {
namespace {

// splitmix64's finalizer: a bijection of 64-bit words whose outputs pass BigCrush for counter inputs.
uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

template <class T>
float rounded(float x) {
  return to_float(from_float<T>(x));
}

float round_to(float x, Elem e) {
  if (e == Elem::BF16) return rounded<bf16>(x);
  if (e == Elem::F16) return rounded<fp16>(x);
  return x;
}

}  // namespace

void fill_normal(float* out, size_t n, uint32_t seed, double sd, double mean, Elem round) {
  const uint64_t key = mix64(0x6a09e667f3bcc909ULL ^ seed);
  constexpr double kTwoPi = 6.283185307179586;
  constexpr double k2to32 = 4294967296.0;
  // Chunks start at even indices, so each Box–Muller pair is made by one thread.
  parallel_chunks(n, 2, [=](size_t begin, size_t end) {
    for (size_t i = begin; i < end; i += 2) {
      const uint64_t h = mix64(key + (i / 2 + 1) * 0x9e3779b97f4a7c15ULL);
      const double u1 = (static_cast<double>(h >> 32) + 0.5) / k2to32;  // (0, 1): log is finite
      const double u2 = static_cast<double>(h & 0xffffffffULL) / k2to32;
      const double r = std::sqrt(-2.0 * std::log(u1));
      out[i] = round_to(static_cast<float>(mean + sd * r * std::cos(kTwoPi * u2)), round);
      if (i + 1 < end) out[i + 1] = round_to(static_cast<float>(mean + sd * r * std::sin(kTwoPi * u2)), round);
    }
  });
}

void round_floats(float* data, size_t n, Elem elem) {
  if (elem != Elem::BF16 && elem != Elem::F16) return;
  parallel_chunks(n, 1, [=](size_t begin, size_t end) {
    for (size_t i = begin; i < end; ++i) data[i] = round_to(data[i], elem);
  });
}

}  // namespace fusebench
