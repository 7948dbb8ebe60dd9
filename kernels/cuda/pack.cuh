// 16 bytes of elements of type T (4 floats, or 8 bf16/fp16), the unit every vectorized kernel of
// fusebench loads and stores. Loaded and stored as one uint4, so each access is a single 16-byte
// instruction whatever T is; the elements are widened to float (to_float) for the arithmetic.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstring>

#include "common/dtype.h"

namespace fusebench::cuda {

template <class T>
struct Pack {
  static constexpr int N = 16 / static_cast<int>(sizeof(T));
  T v[N];
};

// The i-th pack of p (p 16-byte aligned).
template <class T>
__device__ __forceinline__ Pack<T> load_pack(const T* __restrict__ p, size_t i) {
  const uint4 raw = reinterpret_cast<const uint4*>(p)[i];
  Pack<T> out;
  memcpy(&out, &raw, sizeof raw);
  return out;
}

template <class T>
__device__ __forceinline__ void store_pack(T* __restrict__ p, size_t i, const Pack<T>& v) {
  uint4 raw;
  memcpy(&raw, &v, sizeof raw);
  reinterpret_cast<uint4*>(p)[i] = raw;
}

}  // namespace fusebench::cuda
