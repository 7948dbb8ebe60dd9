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
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
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

// The address sanitizer's poisoning, where it is on: a barrier's 8 bytes of shared memory are poisoned
// while it lives, so a plain load or store there (a buffer or statistics overlapping it) fails at once.
#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/asan_interface.h>
#else
#define ASAN_POISON_MEMORY_REGION(addr, size) ((void)(addr), (void)(size))
#define ASAN_UNPOISON_MEMORY_REGION(addr, size) ((void)(addr), (void)(size))
#endif

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
inline size_t shared_bytes = 0;  // what the launch gave the block

// Ends the process with a FAIL line (from any thread: the others may be waiting forever).
[[noreturn]] inline void fail(const char* what, unsigned a = 0, unsigned b = 0) {
  std::printf("FAIL ");
  std::printf(what, a, b);
  std::printf("\n");
  std::fflush(stdout);
  std::_Exit(1);
}

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
// A barrier deadlocked when a phase it waits for has not completed in this long.
constexpr auto kDeadlock = std::chrono::seconds(30);

// The barrier at shared address bar (the caller holds mbarrier_mutex).
inline Mbarrier& mbarrier_at(unsigned bar) {
  const auto it = mbarriers.find(bar);
  if (it == mbarriers.end()) fail("no barrier was initialised at shared byte %u", bar);
  return it->second;
}

inline void land(const Copy& c) {
  std::memcpy(c.dst, c.src, c.bytes - c.zfill);
  std::memset(static_cast<char*>(c.dst) + (c.bytes - c.zfill), 0, c.zfill);
}

// Runs kernel() as `threads` threads of each block of a grid_x × grid_y grid, with the first
// `smem_bytes` of the shared-memory array `smem` filled with 0xff bytes (NaN as floats) before each
// block. The rest of the array is poisoned for the address sanitizer during the launch, so a kernel
// that reaches past what its launcher asked for fails.
template <size_t N, class Kernel>
void launch(unsigned grid_x, unsigned grid_y, unsigned threads, float (&smem)[N], size_t smem_bytes, Kernel kernel) {
  if (smem_bytes > sizeof(smem)) {
    fail("the launch needs %u bytes of shared memory, the emulation has %u", static_cast<unsigned>(smem_bytes),
         static_cast<unsigned>(sizeof(smem)));
  }
  char* const base = reinterpret_cast<char*>(smem);
  ASAN_POISON_MEMORY_REGION(base + smem_bytes, sizeof(smem) - smem_bytes);
  shared_base = base;
  shared_bytes = smem_bytes;
  std::barrier<> barrier(threads);
  block_barrier = &barrier;
  // One team of threads runs every block of the launch, in turn: the host opens each block at `gate`
  // and waits there for the team to finish it (a team per block spent most of the run creating threads).
  std::barrier<> gate(threads + 1);
  bool finished = false;
  std::vector<std::thread> team;
  team.reserve(threads);
  for (unsigned t = 0; t < threads; ++t) {
    team.emplace_back([t, &kernel, &gate, &finished] {
      thread_idx = {t, 0, 0};
      for (;;) {
        gate.arrive_and_wait();  // the block is set up
        if (finished) return;
        issued.clear();
        kernel();
        if (!issued.empty()) fail("thread %u issued copies that no barrier waits for", t);
        gate.arrive_and_wait();  // the block is done
      }
    });
  }
  for (unsigned by = 0; by < grid_y; ++by) {
    for (unsigned bx = 0; bx < grid_x; ++bx) {
      block_idx = {bx, by, 0};
      std::memset(base, 0xff, smem_bytes);
      gate.arrive_and_wait();
      gate.arrive_and_wait();
      for (const auto& [bar, _] : mbarriers) ASAN_UNPOISON_MEMORY_REGION(shared_base + bar, 8);
      mbarriers.clear();
    }
  }
  finished = true;
  gate.arrive_and_wait();
  for (auto& member : team) member.join();
  ASAN_UNPOISON_MEMORY_REGION(base + smem_bytes, sizeof(smem) - smem_bytes);
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
// A barrier must lie 8-byte aligned inside the block's shared memory.
inline void mbarrier_init(unsigned bar, unsigned count) {
  if (bar % 8 != 0 || bar + size_t{8} > fb_emu::shared_bytes) {
    fb_emu::fail("a barrier at shared byte %u lies outside the block's %u bytes or is not 8-byte aligned", bar,
                 static_cast<unsigned>(fb_emu::shared_bytes));
  }
  std::lock_guard lock(fb_emu::mbarrier_mutex);
  fb_emu::mbarriers[bar] = {count, count, 0, {}};
  ASAN_POISON_MEMORY_REGION(fb_emu::shared_base + bar, 8);
}
inline void mbarrier_arrive(unsigned bar) {
  std::lock_guard lock(fb_emu::mbarrier_mutex);
  fb_emu::Mbarrier& b = fb_emu::mbarrier_at(bar);
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
    auto& landing = fb_emu::mbarrier_at(bar).landing;
    landing.insert(landing.end(), fb_emu::issued.begin(), fb_emu::issued.end());
  }
  fb_emu::issued.clear();
  mbarrier_arrive(bar);
}
// Returns once the phase of this parity has completed: the current phase's parity is the other one.
// A wait that never ends (a wrong parity, a missing arrival) fails after kDeadlock.
inline void mbarrier_wait(unsigned bar, unsigned parity) {
  std::unique_lock lock(fb_emu::mbarrier_mutex);
  if (!fb_emu::mbarrier_cv.wait_for(lock, fb_emu::kDeadlock,
                                    [&] { return (fb_emu::mbarrier_at(bar).phase & 1) != parity; })) {
    fb_emu::fail("deadlock: the barrier at shared byte %u never completed its phase of parity %u", bar, parity);
  }
}
