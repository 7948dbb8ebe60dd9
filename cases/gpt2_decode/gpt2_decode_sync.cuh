// How the blocks of the fused GPT-2 decode kernels wait for each other: a grid barrier split into arrive
// and wait (one atomic a block), per-(layer, head) completion counters, and the optional stage stamps of
// GPT2_DECODE_STAGE_TIMES. Each fused decode step's translation unit includes it (gpt2_decode_fused.cu,
// llama_decode_fused.cu) and gets counters of its own, as static device memory; the host functions that
// reach them are static too.
//
// The barrier count is zeroed on the stream before every launch (zero_barrier: a 4-byte memset, part of
// the timed call) and only grows within it, so the k-th barrier opens when it reaches k·gridDim.x: the
// last block's one atomic releases everybody, with no reset and no second word to publish. The head
// counters are back at zero at the end of every launch (the kernels clear a layer's counters once
// nobody reads them), so the harness's poisoned scratch never reaches them. Two fused steps must not run
// at once (the harness never does). Every wait gives up after ~10 s (it traps), so a broken invariant
// fails instead of hanging.
#pragma once
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "common/launch.h"
#include "cuda/cuda_check.cuh"
#include "gpt2_decode.h"

namespace fusebench::kernels::gpt2 {

constexpr long long kWaitTimeoutCycles = 20'000'000'000LL;

static __device__ unsigned g_barrier_count;  // arrivals in this launch: zeroed on the stream before each launch
static __device__ unsigned g_head_done[kMaxLayers * kMaxHeads];

// Zeroes the barrier count on the stream (before each launch of a kernel that uses the grid barrier).
// `static`: every translation unit that includes this header (gpt2_decode_fused.cu, llama_decode_fused.cu)
// has its own g_barrier_count, so each needs its own copy of this function and of its cached address. An
// inline function would be one across them, and the first caller's counter would be the one zeroed for
// every kernel.
static void zero_barrier(cudaStream_t stream) {
  static void* count = nullptr;
  if (count == nullptr) FB_CUDA_CHECK(cudaGetSymbolAddress(&count, g_barrier_count));
  FB_CUDA_CHECK(cudaMemsetAsync(count, 0, sizeof(unsigned), stream));
}

// Launches a persistent kernel of one parameter struct cooperatively with `blocks` blocks of `threads`
// threads and `smem` bytes of dynamic shared memory, after checking that they can be co-resident (else it
// throws, naming the occupancy it needs; the cooperative launch checks again). The occupancy query is kept
// per kernel for the last shared-memory size: host time before the launch shows in the device timing as
// idle time after the start event. `what` names the kernel in the error ("gpt2_decode fused (ring)").
template <class P>
static void launch_persistent(void (*kernel)(P), P params, int blocks, int threads, size_t smem, const LaunchContext& ctx,
                       const char* what) {
  static size_t occupancy_smem = 0;
  static int per_sm = 0;
  if (occupancy_smem != smem) {
    FB_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
    FB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem));
    occupancy_smem = smem;
  }
  if (per_sm < 1 || static_cast<long long>(per_sm) * ctx.sm_count < blocks)
    throw std::runtime_error(std::string(what) + ": the persistent grid needs " +
                             std::to_string(blocks) + " co-resident blocks of " + std::to_string(threads) +
                             " threads and " + std::to_string(smem) + " B of shared memory; the device holds " +
                             std::to_string(per_sm) + " per multiprocessor × " + std::to_string(ctx.sm_count));
  const auto stream = static_cast<cudaStream_t>(ctx.stream);
  zero_barrier(stream);
  void* args[] = {&params};
  FB_CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(kernel), dim3(blocks), dim3(threads), args,
                                            smem, stream));
}

// Arrive: every write of the group G before it is published (G's barrier, then thread 0's release add:
// cumulative over what the group wrote).
template <class G>
__device__ __forceinline__ void grid_arrive() {
  G::sync();
  if (threadIdx.x == 0) asm volatile("red.release.gpu.global.add.u32 [%0], 1;" ::"l"(&g_barrier_count) : "memory");
}

#ifndef GPT2_POLL_BACKOFF
#define GPT2_POLL_BACKOFF 100
#endif
// Cycles a waiting thread lets pass after a poll that found the count short, before the next: ~130
// blocks poll one word, and polls that come more often slow the arrivals they wait for
// (docs/gpt2-decode-tries.md, "Polling").
constexpr long long kPollBackoff = GPT2_POLL_BACKOFF;

// Thread 0 polls load() until it is ≥ target (kPollBackoff cycles apart; it traps after ~10 s), then the
// group G meets.
template <class G, class Load>
__device__ __forceinline__ void poll_until(unsigned target, Load load) {
  if (threadIdx.x == 0) {
    const long long start = clock64();
    unsigned seen = load();
    while (seen < target) {
      const long long now = clock64();
      if (now - start > kWaitTimeoutCycles) __trap();
      if constexpr (kPollBackoff > 0) {
        while (clock64() - now < kPollBackoff) {
        }
      }
      seen = load();
    }
  }
  G::sync();
}

// Thread 0 waits until *counter ≥ target (acquire), then the group G: its barrier orders every thread's
// reads after it.
template <class G>
__device__ __forceinline__ void wait_count(const unsigned* counter, unsigned target) {
  poll_until<G>(target, [counter] {
    unsigned seen;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(seen) : "l"(counter) : "memory");
    return seen;
  });
}

// Waits until every block has arrived at the k-th barrier of this launch.
template <class G>
__device__ __forceinline__ void grid_wait(unsigned k) {
  wait_count<G>(&g_barrier_count, k * gridDim.x);
}

// Publishes one more finished chunk of a head: the group's writes first (G's barrier), then thread 0's
// release add (cumulative over what the group wrote, as the grid barrier's arrival).
template <class G>
__device__ __forceinline__ void count_done(unsigned* counter) {
  G::sync();
  if (threadIdx.x == 0) asm volatile("red.release.gpu.global.add.u32 [%0], 1;" ::"l"(counter) : "memory");
}

// The GPU's nanosecond timer (%globaltimer: steps of about a microsecond on the H100).
__device__ __forceinline__ unsigned long long globaltimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

#ifdef GPT2_DECODE_STAGE_TIMES
// Optional instrumentation (scripts/device/gpt2-decode-bench.cu `stages`): thread 0 of each block stamps the
// global timer when a stage's work is done (before arriving) and when it is released (after the wait), and
// its SM's cycle counter beside it: %globaltimer moves in steps of about a microsecond on the H100, too
// coarse for the spans inside a stage, which the bench takes from the cycle counts (one SM's clock: within
// a block only).
static __device__ unsigned long long g_stage_ns[kTimedBlocks * kStamps];
static __device__ long long g_stage_clk[kTimedBlocks * kStamps];
static __device__ unsigned long long g_ring_wait_clk[kTimedBlocks];  // the ring consumers' waits for data, cycles
__device__ __forceinline__ void stamp(int i) {
  if (threadIdx.x == 0 && blockIdx.x < kTimedBlocks && i < static_cast<int>(kStamps)) {
    g_stage_clk[blockIdx.x * kStamps + i] = clock64();
    g_stage_ns[blockIdx.x * kStamps + i] = globaltimer();
  }
}
#define FB_STAMP(i) ::fusebench::kernels::gpt2::stamp(i)
#define FB_SUB_STAMP(l, i) ::fusebench::kernels::gpt2::stamp(static_cast<int>(kSubBase + kSubStamps * (l) + (i)))
#else
#define FB_STAMP(i)
#define FB_SUB_STAMP(l, i)
#endif

}  // namespace fusebench::kernels::gpt2
