// Measuring aid (LLAMA_FEEDER; never in a normal build): a second kernel of kFeedBlocks blocks, on the SMs
// that the ring kernel leaves free when it runs on fewer blocks than the device has SMs, asks L2 for the
// ring kernel's FFN rows ahead of it. For layer l it waits until the ring kernel's grid barrier count says
// that stage LLAMA_FEED_AT of the layer has begun (0: the layer's QKV, 1: its attention), then requests
// LLAMA_FEED_KB KB of every block's FFN stream (gate rows, up rows, down rows: 768 KB a block at the
// Llama-3.2-1B shape) from offset LLAMA_FEED_SKIP_KB on (what the ring holds already), offset by offset
// over the blocks. LLAMA_FEEDER 1: 16 KB bulk prefetches (cp.async.bulk.prefetch.L2); 2: prefetch.global.L2
// of one 128-byte line a thread. Its blocks ask for more shared memory than an SM has beside a ring
// block, so that none of them shares an SM with one: a block's own L2 requests delay its own round trips
// (docs/llama-decode.md, "Whose copies a fence waits for").
#pragma once
#include <cuda_runtime.h>

#include "../gpt2_decode/gpt2_decode_sync.cuh"
#include "cuda/cuda_check.cuh"
#include "llama_decode.h"

#ifndef LLAMA_FEED_AT
#define LLAMA_FEED_AT 1
#endif
#ifndef LLAMA_FEED_KB
#define LLAMA_FEED_KB 128
#endif
#ifndef LLAMA_FEED_SKIP_KB
#define LLAMA_FEED_SKIP_KB 208
#endif

namespace fusebench::kernels::llama::feeder {

constexpr int kFeedBlocks = 4, kFeedThreads = 512;
constexpr size_t kFeedSmem = 120 * 1024;  // one a SM, and none beside a ring block

template <class T>
struct FeedParams {
  const T* w_gu;
  const T* w_down;
  size_t layers, f, c, chunk;  // chunk: FFN columns a ring block owns
  unsigned blocks;             // the ring kernel's grid
};

#ifdef FB_SM90A_DEVICE
template <class T>
__global__ void __launch_bounds__(kFeedThreads) llama_feed_kernel(const __grid_constant__ FeedParams<T> p) {
  const size_t row = p.c * sizeof(T), part_bytes = p.chunk * row;
  const size_t skip = size_t{LLAMA_FEED_SKIP_KB} * 1024;
  const size_t want = skip + size_t{LLAMA_FEED_KB} * 1024, end = want < 3 * part_bytes ? want : 3 * part_bytes;
#if LLAMA_FEEDER == 1
  constexpr size_t kReq = 16384;
#else
  constexpr size_t kReq = 128;
#endif
  const size_t per_block = end > skip ? (end - skip + kReq - 1) / kReq : 0, total = per_block * p.blocks;
  for (size_t l = 0; l < p.layers; ++l) {
    if (threadIdx.x == 0) {
      const unsigned target = static_cast<unsigned>(3 * l + LLAMA_FEED_AT) * p.blocks;
      const long long start = clock64();
      unsigned seen;
      for (;;) {
        asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(seen) : "l"(&gpt2::g_barrier_count) : "memory");
        if (seen >= target) break;
        if (clock64() - start > gpt2::kWaitTimeoutCycles) __trap();
        __nanosleep(256);
      }
    }
    __syncthreads();
    for (size_t i = blockIdx.x + size_t(gridDim.x) * threadIdx.x; i < total; i += size_t(gridDim.x) * blockDim.x) {
      const size_t b = i % p.blocks, off = skip + (i / p.blocks) * kReq, part = off / part_bytes, in = off % part_bytes;
      const T* base = part < 2 ? p.w_gu + (l * 2 * p.f + part * p.f + b * p.chunk) * p.c
                               : p.w_down + (l * p.f + b * p.chunk) * p.c;
      const char* addr = reinterpret_cast<const char*>(base) + in;
#if LLAMA_FEEDER == 1
      const size_t stop = end < (part + 1) * part_bytes ? end : (part + 1) * part_bytes;
      const unsigned len = static_cast<unsigned>(stop - off < kReq ? stop - off : kReq);
      asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(addr), "r"(len) : "memory");
#else
      asm volatile("prefetch.global.L2 [%0];" ::"l"(addr));
#endif
    }
  }
}
#else
template <class T>
__global__ void llama_feed_kernel(const __grid_constant__ FeedParams<T>) {
  __trap();
}
#endif

// Streams and events of the feeder's fork and join, made once.
struct FeedStream {
  cudaStream_t stream = nullptr;
  cudaEvent_t fork = nullptr, join = nullptr;
  FeedStream() {
    FB_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    FB_CUDA_CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    FB_CUDA_CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
  }
};

// Before the ring kernel's launch on `main`: the barrier count zeroed, and the feeder's stream forked.
inline void fork(cudaStream_t main, FeedStream& fs) {
  gpt2::zero_barrier(main);
  FB_CUDA_CHECK(cudaEventRecord(fs.fork, main));
  FB_CUDA_CHECK(cudaStreamWaitEvent(fs.stream, fs.fork, 0));
}

// After it: the feeder launched on its stream, and `main` joined to it.
template <class T>
void launch_and_join(cudaStream_t main, FeedStream& fs, const FeedParams<T>& p) {
  static const bool set = [] {
    FB_CUDA_CHECK(cudaFuncSetAttribute(llama_feed_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(kFeedSmem)));
    return true;
  }();
  (void)set;
  llama_feed_kernel<T><<<kFeedBlocks, kFeedThreads, kFeedSmem, fs.stream>>>(p);
  FB_CUDA_CHECK(cudaGetLastError());
  FB_CUDA_CHECK(cudaEventRecord(fs.join, fs.stream));
  FB_CUDA_CHECK(cudaStreamWaitEvent(main, fs.join, 0));
}

}  // namespace fusebench::kernels::llama::feeder
