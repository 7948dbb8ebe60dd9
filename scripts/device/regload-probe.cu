// Does a release wait for other warps' loads into registers, as it waits for their copies (Hopper)?
//
// fence-probe.cu found that a release at gpu scope (`fence.acq_rel.gpu`, `red.release.gpu`) in one warp
// waits until the bulk copies or cp.async that other warps of its block issued have landed, and that an
// L2 round trip (`ld.acquire.gpu`) queues behind them (docs/llama-decode-tries.md, "Whose copies a fence
// waits for"). The decode kernels' rings stream their weights that way, so every grid barrier's arrival
// waits for the block's ring to fill. This probe asks the same of plain loads into registers: one block
// an SM, `warps` loader warps each issuing `per` 16-byte `ld.global.nc` a lane (fresh DRAM lines each
// round), or the same bytes as 16-byte cp.async into shared memory; once every loader warp has issued
// its loads (a flag in shared memory, no bar.sync: a barrier might wait for the loads), thread 0 (warp
// 0, which loads nothing) times one operation with the SM's cycle counter:
//   fence   fence.acq_rel.gpu;   red     red.release.gpu.global.add (a barrier's arrival)
//   ldacq   ld.acquire.gpu of a word that L2 holds (a barrier's poll);   ldrlx   ld.relaxed.gpu of it
// and the time until the loads have all landed (registers: the last loader lane's first use of its data).
// Every block loads at once (DRAM shared by all SMs, as in the kernels), each round and launch from lines
// no load has touched since L2 last held them.
//
// Build and run on the GPU machine:
//   nvcc -O3 -std=c++17 -arch=sm_90a -I kernels scripts/device/regload-probe.cu -o /tmp/rp && /tmp/rp
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "cuda/async_copy.cuh"
#include "probe.cuh"

namespace cu = fusebench::cuda;

constexpr int kRounds = 24;
constexpr int kMaxWarps = 8;  // loader warps
constexpr size_t kRegionVecs = 128 * 1024 / 16;  // the most a block loads in a round: 8 warps of 16 KB
enum Op { kFence, kRed, kLdAcquire, kLdRelaxed, kOps };
const char* kOpNames[kOps] = {"fence", "red", "ldacq", "ldrlx"};
enum Mode { kNone, kRegs, kCpAsync };
const char* kModeNames[] = {"none", "ld.nc->regs", "cp.async16"};

__device__ unsigned g_bar;
__device__ unsigned g_count;
__device__ unsigned g_words[1024 * 32];
__device__ unsigned g_sink;

__device__ __forceinline__ void grid_barrier(unsigned target) { probe_grid_barrier(&g_bar, target); }

template <int kPer>
__global__ void __launch_bounds__(32 * (1 + kMaxWarps), 1)
    probe(const uint4* __restrict__ big, size_t big_vecs, size_t base, int mode, int op, long long* out) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  extern __shared__ __align__(16) uint4 ring[];
  __shared__ __align__(8) unsigned long long full;
  __shared__ volatile unsigned issued[kMaxWarps];
  __shared__ unsigned long long land;
  __shared__ unsigned sink;
  const int b = blockIdx.x;
  const int warps = blockDim.x / 32 - 1;
  const int lanes = warps * 32;
  const int loader = static_cast<int>(threadIdx.x) - 32;  // -32..-1 in warp 0
  const unsigned bar = cu::shared_address(&full);
  if (threadIdx.x == 0) {
    cu::mbarrier_init(bar, static_cast<unsigned>(lanes));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    sink = 0;
  }
  if (threadIdx.x < kMaxWarps) issued[threadIdx.x] = 0;
  unsigned acc = 0;
  unsigned* word = &g_words[b * 32];
  const size_t block_vecs = static_cast<size_t>(lanes) * kPer;  // at most kRegionVecs
  for (int r = 0; r < kRounds; ++r) {
    grid_barrier(static_cast<unsigned>(r + 1) * gridDim.x);
    if (threadIdx.x == 0) land = 0;
    __syncthreads();
    // A fresh 128 KB region of `big` for each block and round, past the regions of the launches before
    // (`base`), so that no load hits in L2.
    const size_t off = (base + (static_cast<size_t>(r) * gridDim.x + b) * kRegionVecs) % (big_vecs - block_vecs);
    uint4 v[kPer];
    if (loader >= 0 && mode != kNone) {
      const uint4* src = big + off + loader;
      if (mode == kRegs) {
#pragma unroll
        for (int i = 0; i < kPer; ++i)
          asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
                       : "=r"(v[i].x), "=r"(v[i].y), "=r"(v[i].z), "=r"(v[i].w)
                       : "l"(src + static_cast<size_t>(i) * lanes)
                       : "memory");
      } else {
        const unsigned dst = cu::shared_address(ring + loader);
#pragma unroll
        for (int i = 0; i < kPer; ++i) cu::cp_async16(dst + 16u * i * lanes, src + static_cast<size_t>(i) * lanes);
        cu::cp_async_mbarrier_arrive(bar);
      }
      __syncwarp();
      if (loader % 32 == 0) issued[loader / 32] = static_cast<unsigned>(r + 1);
    }
    long long t0 = 0;
    if (threadIdx.x == 0) {
      if (mode != kNone)
        for (int w = 0; w < warps; ++w)
          while (issued[w] != static_cast<unsigned>(r + 1)) {
          }
      unsigned x = 0;
      t0 = clock64();
      switch (op) {
        case kFence: asm volatile("fence.acq_rel.gpu;" ::: "memory"); break;
        case kRed: asm volatile("red.release.gpu.global.add.u32 [%0], 1;" ::"l"(&g_count) : "memory"); break;
        case kLdAcquire: asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(x) : "l"(word) : "memory"); break;
        case kLdRelaxed: asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(x) : "l"(word) : "memory"); break;
        default: break;
      }
      // The result's first use waits for the load; the store keeps it from being dropped.
      asm volatile("st.volatile.shared.u32 [%0], %1;" ::"r"(cu::shared_address(&sink)), "r"(x) : "memory");
      const long long t1 = clock64();
      out[(static_cast<size_t>(r) * gridDim.x + b) * 2] = t1 - t0;
      if (mode == kCpAsync) {
        cu::mbarrier_wait(bar, static_cast<unsigned>(r & 1));
        land = static_cast<unsigned long long>(clock64());
      }
    }
    if (loader >= 0 && mode == kRegs) {
#pragma unroll
      for (int i = 0; i < kPer; ++i) acc ^= v[i].x ^ v[i].y ^ v[i].z ^ v[i].w;
      asm volatile("" ::"r"(acc));
      atomicMax(&land, static_cast<unsigned long long>(clock64()));
    }
    __syncthreads();
    if (threadIdx.x == 0)
      out[(static_cast<size_t>(r) * gridDim.x + b) * 2 + 1] = mode == kNone ? 0 : static_cast<long long>(land) - t0;
  }
  if (acc == 0x9e3779b9u) g_sink = acc;  // keeps the loads' data alive
#endif
}

template <int kPer>
static void run(int sms, const uint4* big, size_t big_vecs, long long* out, int warps, int mode, int op, double* op_cyc,
                double* land_cyc) {
  void* bar_ptr = nullptr;
  CK(cudaGetSymbolAddress(&bar_ptr, g_bar));
  CK(cudaMemset(bar_ptr, 0, sizeof(unsigned)));
  const size_t smem = mode == kCpAsync ? static_cast<size_t>(warps) * 32 * kPer * 16 : 0;
  CK(cudaFuncSetAttribute(probe<kPer>, cudaFuncAttributeMaxDynamicSharedMemorySize, 160 * 1024));
  // Each launch reads the 400 MB past the last one's (2 GB in all, L2 50 MB).
  static size_t launches = 0;
  size_t base = (launches++ * kRounds * sms * kRegionVecs) % big_vecs;
  void* args[] = {&big, &big_vecs, &base, &mode, &op, &out};
  CK(cudaLaunchCooperativeKernel(reinterpret_cast<void*>(probe<kPer>), dim3(sms), dim3(32 * (1 + warps)), args, smem));
  CK(cudaDeviceSynchronize());
  std::vector<long long> h(static_cast<size_t>(kRounds) * sms * 2);
  CK(cudaMemcpy(h.data(), out, h.size() * sizeof(long long), cudaMemcpyDeviceToHost));
  std::vector<long long> ops, lands;
  for (int r = 4; r < kRounds; ++r)
    for (int b = 0; b < sms; ++b) {
      ops.push_back(h[(static_cast<size_t>(r) * sms + b) * 2]);
      lands.push_back(h[(static_cast<size_t>(r) * sms + b) * 2 + 1]);
    }
  *op_cyc = median(ops);
  *land_cyc = median(lands);
}

template <int kPer>
static void table(int sms, const uint4* big, size_t big_vecs, long long* out) {
  for (int mode : {kRegs, kCpAsync})
    for (int warps : {1, 2, 4, 8}) {
      const int kb = warps * 32 * kPer * 16 / 1024;
      std::printf("%-12s %d warp%s x %2d KB = %3d KB:", kModeNames[mode], warps, warps == 1 ? " " : "s", kb / warps, kb);
      double land = 0;
      for (int op = 0; op < kOps; ++op) {
        double o = 0, l = 0;
        run<kPer>(sms, big, big_vecs, out, warps, mode, op, &o, &l);
        std::printf(" %7.0f", o);
        land = std::max(land, l);
      }
      // From t0, not from the first load's issue: a rate from it would overstate DRAM's.
      std::printf("   landing %6.0f\n", land);
    }
}

int main() {
  int khz = 0;
  const int sms = print_device(&khz).multiProcessorCount;
  std::printf("\n");
  const size_t big_bytes = size_t{2} << 30;
  uint4* big = nullptr;
  long long* out = nullptr;
  CK(cudaMalloc(&big, big_bytes));
  CK(cudaMemset(big, 1, big_bytes));
  CK(cudaMalloc(&out, static_cast<size_t>(kRounds) * sms * 2 * sizeof(long long)));
  const size_t big_vecs = big_bytes / 16;
  std::printf("\ncycles of thread 0's operation once the loader warps have issued (median block, rounds 4..%d)\n",
              kRounds - 1);
  std::printf("%-38s", "nothing in flight:");
  for (int op = 0; op < kOps; ++op) {
    double o = 0, l = 0;
    run<8>(sms, big, big_vecs, out, 1, kNone, op, &o, &l);
    std::printf(" %5s %5.0f", kOpNames[op], o);
  }
  std::printf("\n%-38s", "loads a lane, then per row:");
  for (int op = 0; op < kOps; ++op) std::printf(" %7s", kOpNames[op]);
  std::printf("\n");
  std::printf("-- 8 loads of 16 B a lane (4 KB a warp)\n");
  table<8>(sms, big, big_vecs, out);
  std::printf("-- 16 loads of 16 B a lane (8 KB a warp)\n");
  table<16>(sms, big, big_vecs, out);
  std::printf("-- 32 loads of 16 B a lane (16 KB a warp)\n");
  table<32>(sms, big, big_vecs, out);
  CK(cudaFree(big));
  CK(cudaFree(out));
  return 0;
}
