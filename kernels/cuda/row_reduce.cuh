// The building blocks of the row kernels (LayerNorm, softmax), shared by their fused and unfused
// variants so that a speedup measures what fusion removes and nothing else:
//   - warp-shuffle reductions, extended across the warps of a block through shared memory;
//   - the register layout of a row ("slots" of 16 bytes per thread: 4 floats or 8 halves, widened to
//     float), with 16-byte accesses when the row length is a multiple of the pack and coalesced scalar
//     accesses otherwise;
//   - the ladder that picks, from the row length, how many warps share a row and how many slots
//     each thread holds (or the streaming kernels when a row does not fit in registers);
//   - grid sizing from the SM count and the kernel's occupancy.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <type_traits>

#include "common/launch.h"
#include "cuda/cuda_check.cuh"
#include "cuda/elementwise.cuh"

namespace fusebench::cuda {

// Threads of every row-kernel block: 8 warps, each on its own row, or all 8 on one row.
constexpr int kRowThreads = 256;
constexpr unsigned kFullWarp = 0xffffffffu;

struct SumOp {
  __device__ float operator()(float a, float b) const { return a + b; }
};
struct MaxOp {
  __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};

// Butterfly all-reduce: every lane ends with the result, and since a + b == b + a exactly, every
// lane holds the bitwise-same value (the row's threads then take the same branches on it).
template <typename Op>
__device__ __forceinline__ float warp_reduce(float v, Op op) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) v = op(v, __shfl_xor_sync(kFullWarp, v, offset));
  return v;
}

// Reduces over the kRowWarps warps that share a row. With kRowWarps > 1 the whole block is one row
// group, so the __syncthreads are reached by every thread of the block.
template <int kRowWarps, typename Op>
__device__ __forceinline__ float row_reduce(float v, Op op) {
  static_assert(kRowWarps == 1 || kRowWarps * 32 == kRowThreads, "a multi-warp row spans the whole block");
  v = warp_reduce(v, op);
  if constexpr (kRowWarps == 1) {
    return v;
  } else {
    __shared__ float partial[kRowWarps];
    if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = v;
    __syncthreads();
    float r = partial[0];
#pragma unroll
    for (int w = 1; w < kRowWarps; ++w) r = op(r, partial[w]);
    __syncthreads();  // every thread has read `partial` before a later reduction overwrites it
    return r;
  }
}

// A row spread over the kRowThreads = 32·kRowWarps threads of a row group, kSlots slots of kW
// elements per thread (kW = 4 floats or 8 halves: 16 bytes), so rows of up to kCapacity elements live
// in registers, widened to float. Element of component c of slot s for the thread of rank t:
//   vector layout (kVec):  kW·(s·T + t) + c   — one 16-byte pack per slot, consecutive threads adjacent;
//   scalar layout:         (kW·s + c)·T + t   — one element per access, consecutive threads adjacent.
// Both are bijections onto [0, kCapacity); indices stay below 16384, so int is safe.
template <class T, int kRowWarps, int kSlots, bool kVec>
struct RowSlots {
  static constexpr int kW = Pack<T>::N;
  static constexpr int kThreads = 32 * kRowWarps;
  static constexpr int kRowsPerBlock = kRowThreads / kThreads;
  static constexpr int kCapacity = kW * kSlots * kThreads;

  __device__ static int index(int s, int c, int t) {
    return kVec ? kW * (s * kThreads + t) + c : (kW * s + c) * kThreads + t;
  }

  // Loads slot s of a row of n elements; elements past the end read as `fill`. The vector layout
  // needs n % kW == 0 and a 16-byte-aligned row, so a pack is wholly inside the row or wholly past it.
  __device__ static void load(const T* __restrict__ row, int n, int s, int t, float fill, float (&v)[kW]) {
    if constexpr (kVec) {
      const int q = s * kThreads + t;
      if (kW * q < n) {
        const Pack<T> f = load_pack(row, q);
#pragma unroll
        for (int c = 0; c < kW; ++c) v[c] = to_float(f.v[c]);
      } else {
#pragma unroll
        for (int c = 0; c < kW; ++c) v[c] = fill;
      }
    } else {
#pragma unroll
      for (int c = 0; c < kW; ++c) {
        const int i = index(s, c, t);
        v[c] = i < n ? to_float(row[i]) : fill;
      }
    }
  }

  // Stores slot s, rounded to T; elements past the end are not written.
  __device__ static void store(T* __restrict__ row, int n, int s, int t, const float (&v)[kW]) {
    if constexpr (kVec) {
      const int q = s * kThreads + t;
      if (kW * q < n) {
        Pack<T> f;
#pragma unroll
        for (int c = 0; c < kW; ++c) f.v[c] = from_float<T>(v[c]);
        store_pack(row, q, f);
      }
    } else {
#pragma unroll
      for (int c = 0; c < kW; ++c) {
        const int i = index(s, c, t);
        if (i < n) row[i] = from_float<T>(v[c]);
      }
    }
  }
};

// Whether the 16-byte vector layout may be used: rows a multiple of a pack, operands aligned.
template <class T>
inline bool vector_rows_ok(size_t row_length, std::initializer_list<const void*> pointers) {
  return row_length % Pack<T>::N == 0 && aligned16(pointers);
}

template <int kValue>
using IntTag = std::integral_constant<int, kValue>;

// A row of `elements` elements of T in 4-element slot units, and the most a row kernel holds in registers.
template <class T>
size_t row_slot_units(size_t elements) {
  return (elements * 4 + Pack<T>::N - 1) / Pack<T>::N;
}
constexpr size_t kRegisterRowSlotUnits = 8192;

// Whether the row kernels keep a row of `elements` elements of T in registers (else they stream it).
template <class T>
bool row_in_registers(size_t elements) {
  return row_slot_units<T>(elements) <= kRegisterRowSlotUnits;
}

// Calls f(IntTag<kRowWarps>, IntTag<kSlots>, std::bool_constant<kVec>) with the smallest
// configuration whose capacity holds a row of n elements of T: in fp32, one warp per row up to 1024
// floats (GPT-2's 768 → 6 slots, 512 → 4), a whole block per row up to 8192 (halves: twice as many
// elements in the same registers). Past that kSlots is 0: the streaming kernels, which keep no row in
// registers and read it again from global memory (mostly L2).
template <class T, typename F>
void dispatch_rows(size_t elements, bool vec, F&& f) {
  const size_t n = row_slot_units<T>(elements);
  auto with_vec = [&](auto warps, auto slots) {
    if (vec) f(warps, slots, std::true_type{});
    else f(warps, slots, std::false_type{});
  };
  if (n <= 128) with_vec(IntTag<1>{}, IntTag<1>{});
  else if (n <= 256) with_vec(IntTag<1>{}, IntTag<2>{});
  else if (n <= 512) with_vec(IntTag<1>{}, IntTag<4>{});
  else if (n <= 768) with_vec(IntTag<1>{}, IntTag<6>{});
  else if (n <= 1024) with_vec(IntTag<1>{}, IntTag<8>{});
  else if (n <= 2048) with_vec(IntTag<8>{}, IntTag<2>{});
  else if (n <= 4096) with_vec(IntTag<8>{}, IntTag<4>{});
  else if (n <= kRegisterRowSlotUnits) with_vec(IntTag<8>{}, IntTag<8>{});
  else with_vec(IntTag<8>{}, IntTag<0>{});
}

// Blocks for a row kernel: `rows` rows of `threads_per_row` threads each.
template <auto kKernel>
unsigned row_grid(size_t rows, int threads_per_row, const LaunchContext& ctx) {
  return grid_for<kKernel>(kRowThreads, rows * static_cast<size_t>(threads_per_row), ctx);
}

}  // namespace fusebench::cuda
