// CUDA kernel source run on the CPU, for the tests of kernels whose indexing a CPU can check: every
// CUDA thread of a block is a std::thread, __syncthreads is a barrier, blocks run one after another.
// Asynchronous copies (cp_async4, as kernels/cuda/async_copy.cuh declares it on the GPU) are deferred
// until cp_async_wait releases their group, so a kernel that reads a stage before waiting for it reads the poison its launcher
// left there, as it could on the GPU. No timing and no warp-level behaviour (shuffles, lockstep) is
// modelled; what it checks is which element lands where, predication, zero fill and the arithmetic.
//
// Kernels declare `extern __shared__ __align__(16) float smem[];` in their own namespace: the test
// defines that array there before including the kernel (blocks run one at a time, so one array
// serves every block) and passes it to launch(), which poisons it before each block.
#pragma once
#include <math.h>

#include <barrier>
#include <cstddef>
#include <cstring>
#include <thread>
#include <utility>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__
#define __align__(n) __attribute__((aligned(n)))

struct alignas(16) float4 {
  float x, y, z, w;
};
inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }

namespace fb_emu {

struct Index {
  unsigned x = 0, y = 0, z = 0;
};
inline thread_local Index thread_idx;
inline Index block_idx;
inline std::barrier<>* block_barrier = nullptr;
// The block's shared memory: shared_address() returns offsets from it, as 32-bit shared addresses are.
inline char* shared_base = nullptr;

struct Copy {
  void* dst;
  const void* src;
  size_t bytes, zfill;
};
inline thread_local std::vector<Copy> open_group;
inline thread_local std::vector<std::vector<Copy>> committed;

// Runs kernel() as `threads` threads of each block of a grid_x × grid_y grid, with `smem` (bytes)
// filled with 0xff bytes (NaN as floats) before each block.
template <class Kernel>
void launch(unsigned grid_x, unsigned grid_y, unsigned threads, void* smem, size_t smem_bytes, Kernel kernel) {
  for (unsigned by = 0; by < grid_y; ++by) {
    for (unsigned bx = 0; bx < grid_x; ++bx) {
      block_idx = {bx, by, 0};
      std::memset(smem, 0xff, smem_bytes);
      shared_base = static_cast<char*>(smem);
      std::barrier<> barrier(threads);
      block_barrier = &barrier;
      std::vector<std::thread> team;
      team.reserve(threads);
      for (unsigned t = 0; t < threads; ++t) {
        team.emplace_back([t, &kernel] {
          thread_idx = {t, 0, 0};
          open_group.clear();
          committed.clear();
          kernel();
        });
      }
      for (auto& member : team) member.join();
    }
  }
}

}  // namespace fb_emu

#define threadIdx (::fb_emu::thread_idx)
#define blockIdx (::fb_emu::block_idx)

template <class T>
T __ldg(const T* p) {
  return *p;
}
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline void __syncthreads() { fb_emu::block_barrier->arrive_and_wait(); }

// kernels/cuda/async_copy.cuh's functions. A zero-filled copy still reads a byte of its source, so
// the address sanitizer checks that the kernel passes a valid one, as the GPU requires.
inline unsigned shared_address(const void* p) {
  return static_cast<unsigned>(static_cast<const char*>(p) - fb_emu::shared_base);
}
inline void cp_async4_zfill(unsigned dst, const float* src, bool keep) {
  [[maybe_unused]] volatile char touch = *reinterpret_cast<const volatile char*>(src);
  fb_emu::open_group.push_back({fb_emu::shared_base + dst, src, 4, keep ? 0u : 4u});
}
inline void cp_async4(unsigned dst, const float* src) { cp_async4_zfill(dst, src, true); }
inline void cp_async_commit() {
  fb_emu::committed.push_back(std::move(fb_emu::open_group));
  fb_emu::open_group.clear();
}
// Completes every committed group but the newest kNewer.
template <int kNewer>
void cp_async_wait() {
  while (fb_emu::committed.size() > static_cast<size_t>(kNewer)) {
    for (const auto& c : fb_emu::committed.front()) {
      std::memcpy(c.dst, c.src, c.bytes - c.zfill);
      std::memset(static_cast<char*>(c.dst) + (c.bytes - c.zfill), 0, c.zfill);
    }
    fb_emu::committed.erase(fb_emu::committed.begin());
  }
}
