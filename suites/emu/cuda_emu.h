// CUDA kernel source run on the CPU, for the tests of kernels whose indexing a CPU can check: every
// CUDA thread of a block is a std::thread, __syncthreads is a barrier, blocks run one after another.
// Asynchronous copies (cp_async4, as kernels/cuda/async_copy.cuh declares it on the GPU) are deferred
// until the shared-memory barrier phase they are to arrive on completes (the last arrival makes every
// copy attached to the phase land, then starts the next phase), so a kernel that reads a buffer before
// waiting for it reads the poison its launcher left there, as it could on the GPU. Compiled with
// FB_EMU_COPIES_LAND_AT_ISSUE, copies land as they are issued instead: a kernel that copies into a
// buffer before every thread is done reading it then corrupts what a slower thread reads. No timing and no warp-level behaviour (shuffles, lockstep) is
// modelled; what it checks is which element lands where, predication, zero fill and the arithmetic.
//
// Kernels declare `extern __shared__ __align__(16) float smem[];` in their own namespace: the test
// defines that array there before including the kernel (blocks run one at a time, so one array
// serves every block) and passes it to launch(), which poisons it before each block.
#pragma once
#include <math.h>

#include <barrier>
#include <condition_variable>
#include <cstddef>
#include <cstring>
#include <mutex>
#include <thread>
#include <unordered_map>
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
// This thread's copies not yet attached to a barrier phase.
inline thread_local std::vector<Copy> issued;

// A shared-memory barrier (mbarrier): arrivals left in the current phase, phases completed so far, and
// the copies that land when the current phase completes.
struct Mbarrier {
  unsigned count = 0, pending = 0, phase = 0;
  std::vector<Copy> landing;
};
inline std::mutex mbarrier_mutex;
inline std::condition_variable mbarrier_cv;
inline std::unordered_map<unsigned, Mbarrier> mbarriers;  // by 32-bit shared address

inline void land(const Copy& c) {
  std::memcpy(c.dst, c.src, c.bytes - c.zfill);
  std::memset(static_cast<char*>(c.dst) + (c.bytes - c.zfill), 0, c.zfill);
}

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
      mbarriers.clear();
      std::vector<std::thread> team;
      team.reserve(threads);
      for (unsigned t = 0; t < threads; ++t) {
        team.emplace_back([t, &kernel] {
          thread_idx = {t, 0, 0};
          issued.clear();
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
  const fb_emu::Copy c{fb_emu::shared_base + dst, src, 4, keep ? 0u : 4u};
#ifdef FB_EMU_COPIES_LAND_AT_ISSUE
  fb_emu::land(c);
#else
  fb_emu::issued.push_back(c);
#endif
}
inline void cp_async4(unsigned dst, const float* src) { cp_async4_zfill(dst, src, true); }
inline void mbarrier_init(unsigned bar, unsigned count) {
  std::lock_guard lock(fb_emu::mbarrier_mutex);
  fb_emu::mbarriers[bar] = {count, count, 0, {}};
}
inline void mbarrier_arrive(unsigned bar) {
  std::lock_guard lock(fb_emu::mbarrier_mutex);
  fb_emu::Mbarrier& b = fb_emu::mbarriers.at(bar);
  if (--b.pending > 0) return;
  for (const auto& c : b.landing) fb_emu::land(c);
  b.landing.clear();
  b.pending = b.count;
  ++b.phase;
  fb_emu::mbarrier_cv.notify_all();
}
// The thread's copies issued so far land when this phase completes.
inline void cp_async_mbarrier_arrive(unsigned bar) {
  {
    std::lock_guard lock(fb_emu::mbarrier_mutex);
    auto& landing = fb_emu::mbarriers.at(bar).landing;
    landing.insert(landing.end(), fb_emu::issued.begin(), fb_emu::issued.end());
  }
  fb_emu::issued.clear();
  mbarrier_arrive(bar);
}
// Returns once the phase of this parity has completed: the current phase's parity is the other one.
inline void mbarrier_wait(unsigned bar, unsigned parity) {
  std::unique_lock lock(fb_emu::mbarrier_mutex);
  fb_emu::mbarrier_cv.wait(lock, [&] { return (fb_emu::mbarriers.at(bar).phase & 1) != parity; });
}
