// Half-precision tensors on the CPU backend's float routines: widen the operands to float, compute,
// and round what is stored back to T (round to nearest even). The CPU runs the half types this way, so
// its arithmetic is fp32 like the GPU's and its stored values are the GPU's roundings.
#pragma once
#include <cstddef>
#include <vector>

#include "common/dtype.h"

namespace fusebench::kernels::cpu {

template <class T>
std::vector<float> widen(const T* x, size_t n) {
  std::vector<float> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = to_float(x[i]);
  return out;
}

template <class T>
void narrow(const float* x, T* out, size_t n) {
  for (size_t i = 0; i < n; ++i) out[i] = from_float<T>(x[i]);
}

}  // namespace fusebench::kernels::cpu
