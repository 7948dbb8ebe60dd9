// CUDA kernel source run on the CPU, for the tests of kernels whose indexing a CPU can check: every
// CUDA thread of a block is a fiber (ucontext) on one OS thread, run round-robin: each runs until it
// waits (__syncthreads, a shared-memory barrier's phase) or ends, so the first threads run as far ahead
// of the others as the barriers let them; blocks run one after another. (A std::thread per CUDA thread
// spent minutes of CI in the kernel's futex calls: 256 threads woken at every barrier.) A wait that no
// thread can end any more (a wrong parity, a missing arrival) fails at once as a deadlock.
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

#include <ucontext.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
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
#include <sanitizer/common_interface_defs.h>
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
inline Index block_idx;
// The block's shared memory: shared_address() returns offsets from it, as 32-bit shared addresses are.
inline char* shared_base = nullptr;
inline size_t shared_bytes = 0;  // what the launch gave the block

// Ends the process with a FAIL line.
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

// A shared-memory barrier (mbarrier): arrivals left in the current phase, phases completed so far, and
// the copies that land when the current phase completes.
struct Mbarrier {
  unsigned count = 0, pending = 0, phase = 0;
  std::vector<Copy> landing;
};
inline std::unordered_map<unsigned, Mbarrier> mbarriers;  // by 32-bit shared address

// The barrier at shared address bar.
inline Mbarrier& mbarrier_at(unsigned bar) {
  const auto it = mbarriers.find(bar);
  if (it == mbarriers.end()) fail("no barrier was initialised at shared byte %u", bar);
  return it->second;
}

inline void land(const Copy& c) {
  std::memcpy(c.dst, c.src, c.bytes - c.zfill);
  std::memset(static_cast<char*>(c.dst) + (c.bytes - c.zfill), 0, c.zfill);
}

// One CUDA thread: its index, its stack and context, and its copies not yet attached to a barrier phase.
struct Fiber {
  Index idx;
  ucontext_t context{};
  char* stack = nullptr;
  std::vector<Copy> issued;
  bool done = false;
  void* fake_stack = nullptr;  // the address sanitizer's, while switched away
  // While it waits: what it waits for (the launch's loop asks before switching to it: a switch costs
  // system calls, a question does not).
  bool (*ready)(const void*) = nullptr;
  const void* ready_arg = nullptr;
};
// Bytes of stack per CUDA thread (the sanitizers' redzones make frames several times larger).
constexpr size_t kFiberStack = size_t{256} << 10;

// The fibers' stacks, kept from launch to launch (fresh ones per launch cost a page fault a page).
inline std::vector<std::unique_ptr<char[]>> stacks;
inline Fiber* current = nullptr;          // the CUDA thread running now
inline ucontext_t scheduler{};            // the launch's own context
inline const void* scheduler_stack = nullptr;  // its stack, for the sanitizer's switch annotations
inline size_t scheduler_stack_bytes = 0;
inline unsigned long long progress = 0;   // arrivals and ends so far: unchanged over a round, a deadlock
inline unsigned syncthreads_arrived = 0, syncthreads_generation = 0, block_threads = 0;
inline void (*fiber_body)(void*) = nullptr;  // the launch's kernel, type-erased
inline void* fiber_body_arg = nullptr;

// The address sanitizer must be told of every stack switch (its shadow of each stack stays right).
inline void switch_from_scheduler(Fiber& f) {
#ifdef __SANITIZE_ADDRESS__
  void* save = nullptr;
  __sanitizer_start_switch_fiber(&save, f.stack, kFiberStack);
  swapcontext(&scheduler, &f.context);
  __sanitizer_finish_switch_fiber(save, nullptr, nullptr);
#else
  swapcontext(&scheduler, &f.context);
#endif
}

// Back to the launch's loop; returns when the loop runs this thread again.
inline void yield() {
  Fiber& f = *current;
#ifdef __SANITIZE_ADDRESS__
  __sanitizer_start_switch_fiber(&f.fake_stack, scheduler_stack, scheduler_stack_bytes);
  swapcontext(&f.context, &scheduler);
  __sanitizer_finish_switch_fiber(f.fake_stack, nullptr, nullptr);
#else
  swapcontext(&f.context, &scheduler);
#endif
}

inline void fiber_entry() {
#ifdef __SANITIZE_ADDRESS__
  __sanitizer_finish_switch_fiber(nullptr, &scheduler_stack, &scheduler_stack_bytes);
#endif
  Fiber& f = *current;
  fiber_body(fiber_body_arg);
  if (!f.issued.empty()) fail("thread %u issued copies that no barrier waits for", f.idx.x);
  f.done = true;
  ++progress;
#ifdef __SANITIZE_ADDRESS__
  __sanitizer_start_switch_fiber(nullptr, scheduler_stack, scheduler_stack_bytes);  // this stack is done with
#endif
  setcontext(&scheduler);
}

// Waits, as the current CUDA thread, until ready() holds, letting the other threads run meanwhile.
template <class Ready>
void wait_until(Ready ready) {
  if (ready()) return;
  Fiber& f = *current;
  f.ready = [](const void* r) { return (*static_cast<const Ready*>(r))(); };
  f.ready_arg = &ready;
  while (!ready()) yield();
  f.ready = nullptr;
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
  block_threads = threads;
  fiber_body = [](void* k) { (*static_cast<Kernel*>(k))(); };
  fiber_body_arg = &kernel;
  std::vector<Fiber> team(threads);
  while (stacks.size() < threads) stacks.emplace_back(new char[kFiberStack]);  // uninitialised: no zeroing needed
  for (unsigned t = 0; t < threads; ++t) team[t] = Fiber{{t, 0, 0}, {}, stacks[t].get()};
  for (unsigned by = 0; by < grid_y; ++by) {
    for (unsigned bx = 0; bx < grid_x; ++bx) {
      block_idx = {bx, by, 0};
      std::memset(base, 0xff, smem_bytes);
      syncthreads_arrived = 0;
      for (Fiber& f : team) {
        f.done = false;
        f.ready = nullptr;
        f.issued.clear();
        getcontext(&f.context);
        f.context.uc_stack.ss_sp = f.stack;
        f.context.uc_stack.ss_size = kFiberStack;
        f.context.uc_link = nullptr;
        makecontext(&f.context, fiber_entry, 0);
      }
      // Round-robin until every thread has ended; a round in which no thread arrived anywhere or ended,
      // while some still wait, can never end: a deadlock.
      for (unsigned live = threads; live > 0;) {
        const unsigned long long before = progress;
        for (Fiber& f : team) {
          if (f.done || (f.ready && !f.ready(f.ready_arg))) continue;
          current = &f;
          switch_from_scheduler(f);
          if (f.done) --live;
        }
        current = nullptr;
        if (live > 0 && progress == before) {
          fail("deadlock: %u of the block's threads wait for a barrier phase that no thread can complete", live);
        }
      }
      for (const auto& [bar, _] : mbarriers) ASAN_UNPOISON_MEMORY_REGION(shared_base + bar, 8);
      mbarriers.clear();
    }
  }
  ASAN_UNPOISON_MEMORY_REGION(base + smem_bytes, sizeof(smem) - smem_bytes);
}

}  // namespace fb_emu

#define threadIdx (::fb_emu::current->idx)
#define blockIdx (::fb_emu::block_idx)

template <class T>
T __ldg(const T* p) {
  return *p;
}
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
// Every thread of the block arrives, then all go on: the last to arrive starts the next generation.
inline void __syncthreads() {
  ++fb_emu::progress;
  const unsigned generation = fb_emu::syncthreads_generation;
  if (++fb_emu::syncthreads_arrived == fb_emu::block_threads) {
    fb_emu::syncthreads_arrived = 0;
    ++fb_emu::syncthreads_generation;
    return;
  }
  fb_emu::wait_until([generation] { return fb_emu::syncthreads_generation != generation; });
}

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
  fb_emu::current->issued.push_back(c);
#endif
}
inline void cp_async4(unsigned dst, const float* src) { cp_async4_zfill(dst, src, true); }
// A barrier must lie 8-byte aligned inside the block's shared memory.
inline void mbarrier_init(unsigned bar, unsigned count) {
  if (bar % 8 != 0 || bar + size_t{8} > fb_emu::shared_bytes) {
    fb_emu::fail("a barrier at shared byte %u lies outside the block's %u bytes or is not 8-byte aligned", bar,
                 static_cast<unsigned>(fb_emu::shared_bytes));
  }
  fb_emu::mbarriers[bar] = {count, count, 0, {}};
  ASAN_POISON_MEMORY_REGION(fb_emu::shared_base + bar, 8);
}
inline void mbarrier_arrive(unsigned bar) {
  ++fb_emu::progress;
  fb_emu::Mbarrier& b = fb_emu::mbarrier_at(bar);
  if (--b.pending > 0) return;
  for (const auto& c : b.landing) fb_emu::land(c);
  b.landing.clear();
  b.pending = b.count;
  ++b.phase;
}
// The thread's copies issued so far land when this phase completes.
inline void cp_async_mbarrier_arrive(unsigned bar) {
  auto& issued = fb_emu::current->issued;
  auto& landing = fb_emu::mbarrier_at(bar).landing;
  landing.insert(landing.end(), issued.begin(), issued.end());
  issued.clear();
  mbarrier_arrive(bar);
}
// Returns once the phase of this parity has completed: the current phase's parity is the other one.
// A wait that no thread can end (a wrong parity, a missing arrival) fails as a deadlock (launch).
inline void mbarrier_wait(unsigned bar, unsigned parity) {
  fb_emu::wait_until([bar, parity] { return (fb_emu::mbarrier_at(bar).phase & 1) != parity; });
}
