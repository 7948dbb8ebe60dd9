// Could one thread-block cluster run a decode step's whole dependency chain (Hopper)?
//
// gpt2_decode's layer costs ~19 µs on an H100 against 5.2 µs of bytes; what it pays for is the chain of
// grid barriers and L2 round trips between its stages, each slowed by the copies its block has in flight
// (docs/gpt2-decode.md; docs/llama-decode-tries.md, "Whose copies a fence waits for"). A design that would cut
// that chain: one cluster (8 or 16 SMs, one GPC) runs every stage and syncs with cluster barriers and
// distributed shared memory, while the other SMs only stream the next layer's weights into L2 for it.
// It pays only if the cluster can take a layer's 15.7 MB from L2 fast enough. This program measures
// what that rests on, for clusters of 8 and 16 blocks, one or two of them:
//   warm    the cluster reads a region that L2 holds (it read it just before), 8 times: its L2 rate,
//           and the SM clock that turns the other rows' cycles into time;
//   warm1   the same, once;
//   cold    the cluster alone reads 8 layers' worth of bytes that L2 does not hold: its DRAM rate;
//   pipe    the design's steady state: the cluster reads layer A (in L2) once while the other SMs (the
//           feeders, a second kernel) read layer B from DRAM once, into their own shared memory;
//   next    right after pipe, the cluster reads B: did the feeders' reads leave it in L2?
//   fed     the feeders alone read a fresh B, then the cluster reads it;
// and the cycles of a cluster barrier (barrier.cluster.arrive.release + wait.acquire, every thread).
// Each block streams its share of the region with one thread issuing 16-KiB bulk copies into a ring of 12
// slots (192 KiB), as the decode kernels' producers do, and waits for all of them to land. Rates: a
// block's share over its own time (the median block), and all bytes over the slowest block's time.
// pipe prints how much of the cluster's read the feeders' read overlapped (globaltimer, ~1 µs ticks):
// if the cluster could only start after the feeders, the row says so.
//
// Build and run on the GPU machine (sm_90a):
//   nvcc -O3 -std=c++17 -arch=sm_90a -I kernels scripts/device/chain-cluster-probe.cu -o /tmp/ccp && /tmp/ccp [MB]
// MB: the layer's bytes in MiB, 4 to 24 (default 15: GPT-2 small's 15.7 MB a layer; L2 must hold two).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cuda/sm90_ops.cuh"
#include "probe.cuh"

namespace sm90 = fusebench::cuda::sm90;


constexpr int kSlot = 16384;
constexpr int kSlots = 12;
constexpr int kThreads = 64;

__device__ unsigned g_started;  // feeder blocks that have started

struct Stamp {
  long long cycles;              // clock64 from the first copy issued to the last landed
  unsigned long long t0, t1;     // %globaltimer at the same two points (ns)
  long long barrier_cycles;      // one cluster barrier, mean of kBarrierReps (chain blocks)
  unsigned long long bytes;      // bytes this block read
  unsigned waited_out;           // the feeders were not all resident within kWaitCycles
};

#ifdef FB_SM90A_DEVICE
constexpr int kBarrierReps = 64;
constexpr long long kWaitCycles = 4'000'000'000LL;  // ~2 s: feeders that never start are reported, not waited for

__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ void cluster_sync_all() {
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}

// Thread 0 streams `chunks` 16-KiB chunks from src (wrapping within `span` bytes) through the ring; a
// slot is reused once its previous copy has landed. Every copy has landed when it returns.
__device__ void stream_chunks(const char* src, size_t span, long long chunks, uint32_t ring, uint32_t full) {
  long long i = 0;
  for (; i < chunks; ++i) {
    const int s = static_cast<int>(i % kSlots);
    if (i >= kSlots) sm90::mbar_wait(full + 8 * s, static_cast<uint32_t>((i / kSlots - 1) & 1));
    const size_t off = (static_cast<size_t>(i) * kSlot) % span;
    sm90::mbar_arrive_expect_tx(full + 8 * s, kSlot);
    sm90::bulk_load(ring + s * kSlot, src + off, kSlot, full + 8 * s);
  }
  for (long long j = i > kSlots ? i - kSlots : 0; j < i; ++j)  // the copies still in flight
    sm90::mbar_wait(full + 8 * static_cast<int>(j % kSlots), static_cast<uint32_t>((j / kSlots) & 1));
}
#endif

// The chain: launched in clusters. Block b reads [b·share, (b + 1)·share) of region `passes` times.
__global__ void __launch_bounds__(kThreads, 1)
    chain(const char* __restrict__ region, size_t share, int passes, unsigned feeders, Stamp* out) {
#ifdef FB_SM90A_DEVICE
  extern __shared__ __align__(1024) char ring[];
  __shared__ __align__(8) unsigned long long full[kSlots];
  const uint32_t ring_s = sm90::smem_addr(ring), full_s = sm90::smem_addr(full);
  Stamp st = {};
  if (threadIdx.x == 0) {
    for (int s = 0; s < kSlots; ++s) sm90::mbar_init(full_s + 8 * s, 1);
    sm90::mbar_init_fence();
    const long long start = clock64();
    while (*reinterpret_cast<volatile unsigned*>(&g_started) < feeders)
      if (clock64() - start > kWaitCycles) {
        st.waited_out = 1;
        break;
      }
  }
  __syncthreads();
  cluster_sync_all();
  if (threadIdx.x == 0) {
    const char* src = region + static_cast<size_t>(blockIdx.x) * share;
    const long long chunks = static_cast<long long>(share / kSlot) * passes;
    st.t0 = global_ns();
    const long long c0 = clock64();
    stream_chunks(src, share, chunks, ring_s, full_s);
    st.cycles = clock64() - c0;
    st.t1 = global_ns();
    st.bytes = static_cast<unsigned long long>(chunks) * kSlot;
  }
  __syncthreads();
  cluster_sync_all();
  const long long b0 = clock64();
  for (int r = 0; r < kBarrierReps; ++r) cluster_sync_all();
  if (threadIdx.x == 0) {
    st.barrier_cycles = (clock64() - b0) / kBarrierReps;
    out[blockIdx.x] = st;
  }
#endif
}

// The feeders: no cluster. Block b streams [b·share, (b + 1)·share) of `region` once.
__global__ void __launch_bounds__(kThreads, 1) feed(const char* __restrict__ region, size_t share, Stamp* out) {
#ifdef FB_SM90A_DEVICE
  extern __shared__ __align__(1024) char ring[];
  __shared__ __align__(8) unsigned long long full[kSlots];
  const uint32_t ring_s = sm90::smem_addr(ring), full_s = sm90::smem_addr(full);
  if (threadIdx.x == 0) {
    for (int s = 0; s < kSlots; ++s) sm90::mbar_init(full_s + 8 * s, 1);
    sm90::mbar_init_fence();
    atomicAdd(&g_started, 1u);
    Stamp st = {};
    const char* src = region + static_cast<size_t>(blockIdx.x) * share;
    const long long chunks = static_cast<long long>(share / kSlot);
    st.t0 = global_ns();
    const long long c0 = clock64();
    stream_chunks(src, share, chunks, ring_s, full_s);
    st.bytes = static_cast<unsigned long long>(chunks) * kSlot;
    st.cycles = clock64() - c0;
    st.t1 = global_ns();
    out[blockIdx.x] = st;
  }
#endif
}

struct Result {
  double median_cycles = 0, max_cycles = 0, gbps_block = 0, tbps = 0, barrier = 0;
  unsigned long long bytes = 0, t0 = ~0ull, t1 = 0;
  int waited_out = 0;
};

// Summary of the stamps: the median and slowest block's cycles, a block's rate at the median, all bytes
// over the slowest block's time, and the first start and last end (globaltimer).
static Result summarize(const std::vector<Stamp>& s, double cycles_per_ns) {
  Result r;
  std::vector<double> cyc, bar;
  for (const Stamp& x : s) {
    cyc.push_back(static_cast<double>(x.cycles));
    bar.push_back(static_cast<double>(x.barrier_cycles));
    r.bytes += x.bytes;
    r.waited_out += static_cast<int>(x.waited_out);
    r.t0 = std::min(r.t0, x.t0);
    r.t1 = std::max(r.t1, x.t1);
  }
  r.median_cycles = median(cyc);
  r.max_cycles = *std::max_element(cyc.begin(), cyc.end());
  r.barrier = median(bar);
  r.gbps_block = static_cast<double>(r.bytes) / s.size() / (r.median_cycles / cycles_per_ns);  // bytes/ns = GB/s
  r.tbps = r.bytes / (r.max_cycles / cycles_per_ns) / 1e3;
  return r;
}

struct Bufs {
  char* big;
  size_t big_bytes;
  Stamp* chain_out;
  Stamp* feed_out;
  size_t smem;
  cudaStream_t s1, s2;
  int sms;
};

static void zero_counters(const Bufs& b) {
  void* p = nullptr;
  CK(cudaGetSymbolAddress(&p, g_started));
  CK(cudaMemsetAsync(p, 0, sizeof(unsigned), b.s1));
  CK(cudaStreamSynchronize(b.s1));
}

// A launch of the chain kernel: `grid` blocks in clusters of `cluster`, on s1 (`attr` holds the attribute).
static cudaLaunchConfig_t chain_config(const Bufs& b, int cluster, int grid, cudaLaunchAttribute* attr) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(grid);
  cfg.blockDim = dim3(kThreads);
  cfg.dynamicSmemBytes = b.smem;
  cfg.stream = b.s1;
  *attr = cluster_dim(cluster);
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  return cfg;
}

static void launch_chain(const Bufs& b, int cluster, int grid, const char* region, size_t share, int passes,
                         unsigned feeders) {
  cudaLaunchAttribute attr;
  const cudaLaunchConfig_t cfg = chain_config(b, cluster, grid, &attr);
  CK(cudaLaunchKernelEx(&cfg, chain, region, share, passes, feeders, b.chain_out));
}

static void launch_feed(const Bufs& b, cudaStream_t st, int blocks, const char* region, size_t share) {
  feed<<<blocks, kThreads, b.smem, st>>>(region, share, b.feed_out);
  CK(cudaGetLastError());
}

static std::vector<Stamp> fetch(const Stamp* d, int n) {
  std::vector<Stamp> h(n);
  CK(cudaMemcpy(h.data(), d, n * sizeof(Stamp), cudaMemcpyDeviceToHost));
  return h;
}

// L2 made to hold none of the regions read, and no dirty lines: 256 MiB at the buffer's end written, then
// read by every SM.
static void evict_l2(const Bufs& b) {
  const size_t bytes = size_t{256} << 20;
  char* tail = b.big + b.big_bytes - bytes;
  CK(cudaMemsetAsync(tail, 0, bytes, b.s1));
  launch_feed(b, b.s1, b.sms, tail, bytes / b.sms / kSlot * kSlot);
  CK(cudaStreamSynchronize(b.s1));
}

static bool cluster_fits(const Bufs& b, int cluster, int clusters) {
  cudaLaunchAttribute attr;
  const cudaLaunchConfig_t cfg = chain_config(b, cluster, cluster * clusters, &attr);
  int fit = 0;
  if (cudaOccupancyMaxActiveClusters(&fit, chain, &cfg) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return fit >= clusters;
}

int main(int argc, char** argv) {
  const long mib = argc > 1 ? std::strtol(argv[1], nullptr, 10) : 15;
  if (mib < 4 || mib > 24) {
    std::fprintf(stderr, "usage: %s [MB from 4 to 24: L2 must hold two layers]\n", argv[0]);
    return 2;
  }
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  Bufs b{};
  b.sms = prop.multiProcessorCount;
  std::printf("%s, %d SMs, L2 %d MB; a layer of %ld MiB\n", prop.name, b.sms, prop.l2CacheSize >> 20, mib);
  b.smem = static_cast<size_t>(kSlots) * kSlot;
  b.big_bytes = size_t{2} << 30;
  CK(cudaMalloc(&b.big, b.big_bytes));
  CK(cudaMemset(b.big, 1, b.big_bytes));
  CK(cudaDeviceSynchronize());  // the fill is on the legacy stream, which the streams below do not wait for
  CK(cudaMalloc(&b.chain_out, b.sms * sizeof(Stamp)));
  CK(cudaMalloc(&b.feed_out, b.sms * sizeof(Stamp)));
  CK(cudaFuncSetAttribute(chain, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(b.smem)));
  CK(cudaFuncSetAttribute(chain, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  CK(cudaFuncSetAttribute(feed, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(b.smem)));
  CK(cudaStreamCreateWithFlags(&b.s1, cudaStreamNonBlocking));
  CK(cudaStreamCreateWithFlags(&b.s2, cudaStreamNonBlocking));

  const size_t layer = static_cast<size_t>(mib) << 20;
  const char* region_a = b.big;                        // the layer the cluster reads
  const char* region_b = b.big + (size_t{256} << 20);  // the layer the feeders bring in
  const char* cold = b.big + (size_t{512} << 20);      // bytes L2 has not seen since the last eviction

  std::printf("%-6s %7s %5s %8s %10s %10s %12s %11s %8s  %s\n", "test", "cluster", "grid", "MB read", "med. cyc",
              "max cyc", "GB/s a block", "TB/s total", "barrier", "notes");
  for (int cluster : {8, 16})
    for (int clusters : {1, 2}) {
      const int grid = cluster * clusters;
      if (!cluster_fits(b, cluster, clusters)) {
        std::printf("%d clusters of %d do not fit: skipped\n", clusters, cluster);
        continue;
      }
      const int feeders = b.sms - grid;
      const size_t share = layer / grid / kSlot * kSlot;
      const size_t feed_share = (layer / feeders + kSlot - 1) / kSlot * kSlot;  // rounded up: the whole layer
      double clk = 0;  // SM cycles per ns, from the warm row
      auto row = [&](const char* test, const Result& r, const std::string& note) {
        std::printf("%-6s %7d %5d %8.1f %10.0f %10.0f %12.1f %11.2f %8.0f  %s%s\n", test, cluster, grid, r.bytes / 1e6,
                    r.median_cycles, r.max_cycles, r.gbps_block, r.tbps, r.barrier, note.c_str(),
                    r.waited_out ? " (the feeders were not all resident: the cluster read alone)" : "");
      };
      // The cluster reads `region` once, `block_share` bytes a block, and prints its row (no feeders run).
      auto read_row = [&](const char* test, const char* region, size_t block_share, const char* note) {
        launch_chain(b, cluster, grid, region, block_share, 1, 0);
        CK(cudaStreamSynchronize(b.s1));
        row(test, summarize(fetch(b.chain_out, grid), clk), note);
      };
      // warm: the layer read once to bring it into L2, then 8 times; the clock from its blocks.
      launch_chain(b, cluster, grid, region_a, share, 1, 0);
      launch_chain(b, cluster, grid, region_a, share, 8, 0);
      CK(cudaStreamSynchronize(b.s1));
      {
        const std::vector<Stamp> st = fetch(b.chain_out, grid);
        std::vector<double> ratio;
        for (const Stamp& x : st) ratio.push_back(static_cast<double>(x.cycles) / static_cast<double>(x.t1 - x.t0));
        clk = median(ratio);
        char note[64];
        std::snprintf(note, sizeof note, "L2, 8 passes; SM clock %.3f GHz", clk);
        row("warm", summarize(st, clk), note);
      }
      read_row("warm1", region_a, share, "L2, one pass");
      evict_l2(b);
      read_row("cold", cold, share * 8, "DRAM, 8 layers' bytes");
      // pipe: A in L2, B not; the cluster reads A while the feeders read B. Then next: the cluster reads B.
      evict_l2(b);
      launch_chain(b, cluster, grid, region_a, share, 1, 0);
      zero_counters(b);
      launch_chain(b, cluster, grid, region_a, share, 1, static_cast<unsigned>(feeders));  // waits for the feeders
      launch_feed(b, b.s2, feeders, region_b, feed_share);
      CK(cudaStreamSynchronize(b.s1));
      CK(cudaStreamSynchronize(b.s2));
      {
        const Result c = summarize(fetch(b.chain_out, grid), clk), f = summarize(fetch(b.feed_out, feeders), clk);
        const double lo = static_cast<double>(std::max(c.t0, f.t0)), hi = static_cast<double>(std::min(c.t1, f.t1));
        const double overlap = c.t1 > c.t0 ? std::max(0.0, hi - lo) / static_cast<double>(c.t1 - c.t0) : 0;
        char note[160];
        std::snprintf(note, sizeof note, "L2 while %d feeders read %.1f MB from DRAM at %.2f TB/s; overlap %.0f%%",
                      feeders, f.bytes / 1e6, f.tbps, 100 * overlap);
        row("pipe", c, note);
      }
      read_row("next", region_b, share, "the layer the feeders read during pipe");
      // fed: the feeders alone read a fresh B, then the cluster reads it.
      evict_l2(b);
      launch_feed(b, b.s1, feeders, region_b, feed_share);  // before the chain's launch on the same stream
      read_row("fed", region_b, share, "read by the feeders alone just before");
    }
  CK(cudaFree(b.big));
  CK(cudaFree(b.chain_out));
  CK(cudaFree(b.feed_out));
  return 0;
}
