// Could one thread-block cluster run a decode step's whole dependency chain (Hopper)?
//
// gpt2_decode's layer costs ~19 µs on an H100 against 5.2 µs of bytes; what it pays for is the chain of
// grid barriers and L2 round trips between its stages, each slowed by the copies its block has in flight
// (docs/gpt2-decode.md, docs/llama-decode.md "Whose copies a fence waits for"). A design that would cut
// that chain: one cluster (8 or 16 SMs, one GPC) runs every stage and syncs with cluster barriers and
// distributed shared memory, while the other SMs only stream the next layer's weights into L2 for it.
// It pays only if the cluster can take a layer's 15.7 MB from L2 fast enough. This program measures
// what that rests on:
//   cold    the cluster alone reads a region that is not in L2 (DRAM through a few SMs);
//   warm    the cluster reads a region that L2 holds (it read it just before);
//   busy    as warm, while the other SMs stream cold bytes from DRAM into their shared memory (the
//           feeders' traffic on the same L2 and crossbar);
//   fed     the feeders read a region once, alone, and then the cluster reads it: does what other SMs
//           brought in serve the cluster from L2?
// and the cycles of a cluster barrier (barrier.cluster.arrive.release + wait.acquire, every thread).
// Each block streams its share of the region with one thread issuing 16-KiB bulk copies into a ring of 12
// slots (192 KiB), as the decode kernels' producers do, and waits for all of them to land.
//
// Build and run on the GPU machine (sm_90a):
//   nvcc -O3 -std=c++17 -arch=sm_90a -I kernels scripts/device/chain-cluster-probe.cu -o /tmp/ccp && /tmp/ccp [MB]
// MB: the layer's bytes in MiB (default 15: GPT-2 small's 15.7 MB a layer).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cuda/sm90_ops.cuh"

namespace sm90 = fusebench::cuda::sm90;

#define CK(x)                                                                                \
  do {                                                                                       \
    cudaError_t e_ = (x);                                                                    \
    if (e_ != cudaSuccess) {                                                                 \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                          \
    }                                                                                        \
  } while (0)

constexpr int kSlot = 16384;
constexpr int kSlots = 12;
constexpr int kThreads = 64;

__device__ unsigned g_started;  // feeder blocks that have started
__device__ unsigned g_done;     // chain blocks that have finished their reads: the feeders stop

struct Stamp {
  long long cycles;              // clock64 from the first copy issued to the last landed
  unsigned long long t0, t1;     // %globaltimer at the same two points (ns)
  long long barrier_cycles;      // one cluster barrier, mean of kBarrierReps (chain blocks)
  unsigned long long bytes;      // bytes this block read
  unsigned smid, waited_out;     // waited_out: the feeders were not all resident within kWaitCycles
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
// slot is reused once its previous copy has landed. `stop` (may be null) ends the stream early once it
// reaches `stop_at`. Returns the chunks read; every copy has landed when it returns.
__device__ long long stream_chunks(const char* src, size_t span, long long chunks, uint32_t ring, uint32_t full,
                                   const unsigned* stop, unsigned stop_at) {
  long long i = 0;
  for (; i < chunks; ++i) {
    const int s = static_cast<int>(i % kSlots);
    if (i >= kSlots) sm90::mbar_wait(full + 8 * s, static_cast<uint32_t>((i / kSlots - 1) & 1));
    if (stop != nullptr && (i & 15) == 0 && *reinterpret_cast<const volatile unsigned*>(stop) >= stop_at) break;
    const size_t off = (static_cast<size_t>(i) * kSlot) % span;
    sm90::mbar_arrive_expect_tx(full + 8 * s, kSlot);
    sm90::bulk_load(ring + s * kSlot, src + off, kSlot, full + 8 * s);
  }
  for (long long j = i > kSlots ? i - kSlots : 0; j < i; ++j)  // the copies still in flight
    sm90::mbar_wait(full + 8 * static_cast<int>(j % kSlots), static_cast<uint32_t>((j / kSlots) & 1));
  return i;
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
    asm volatile("mov.u32 %0, %%smid;" : "=r"(st.smid));
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
    st.bytes = static_cast<unsigned long long>(stream_chunks(src, share, chunks, ring_s, full_s, nullptr, 0)) * kSlot;
    st.cycles = clock64() - c0;
    st.t1 = global_ns();
    atomicAdd(&g_done, 1u);
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

// The feeders: no cluster. Block b streams its share of `region` `passes` times, or until every chain
// block is done (`chain_blocks` > 0).
__global__ void __launch_bounds__(kThreads, 1)
    feed(const char* __restrict__ region, size_t share, int passes, unsigned chain_blocks, Stamp* out) {
#ifdef FB_SM90A_DEVICE
  extern __shared__ __align__(1024) char ring[];
  __shared__ __align__(8) unsigned long long full[kSlots];
  const uint32_t ring_s = sm90::smem_addr(ring), full_s = sm90::smem_addr(full);
  if (threadIdx.x == 0) {
    for (int s = 0; s < kSlots; ++s) sm90::mbar_init(full_s + 8 * s, 1);
    sm90::mbar_init_fence();
    atomicAdd(&g_started, 1u);
    Stamp st = {};
    asm volatile("mov.u32 %0, %%smid;" : "=r"(st.smid));
    const char* src = region + static_cast<size_t>(blockIdx.x) * share;
    const long long chunks = static_cast<long long>(share / kSlot) * passes;
    st.t0 = global_ns();
    const long long c0 = clock64();
    st.bytes = static_cast<unsigned long long>(stream_chunks(src, share, chunks, ring_s, full_s,
                                                             chain_blocks > 0 ? &g_done : nullptr, chain_blocks)) *
               kSlot;
    st.cycles = clock64() - c0;
    st.t1 = global_ns();
    out[blockIdx.x] = st;
  }
#endif
}

struct Result {
  double median_cycles = 0, max_cycles = 0, gbps_block = 0, tbps = 0, barrier = 0, span_us = 0;
  unsigned long long bytes = 0;
  int waited_out = 0;
};

static double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Summary of n stamps: bytes over the wall from the first start to the last end (globaltimer), the
// median and slowest block in cycles, and a block's rate at the median.
static Result summarize(const std::vector<Stamp>& s, double cycles_per_ns) {
  Result r;
  std::vector<double> cyc, bar;
  unsigned long long t0 = ~0ull, t1 = 0;
  for (const Stamp& x : s) {
    cyc.push_back(static_cast<double>(x.cycles));
    bar.push_back(static_cast<double>(x.barrier_cycles));
    r.bytes += x.bytes;
    r.waited_out += static_cast<int>(x.waited_out);
    t0 = std::min(t0, x.t0);
    t1 = std::max(t1, x.t1);
  }
  r.median_cycles = median(cyc);
  r.max_cycles = *std::max_element(cyc.begin(), cyc.end());
  r.barrier = median(bar);
  r.span_us = (t1 - t0) / 1e3;
  const double per_block = static_cast<double>(r.bytes) / s.size();
  r.gbps_block = per_block / (r.median_cycles / cycles_per_ns);  // bytes per ns = GB/s
  r.tbps = r.bytes / (r.max_cycles / cycles_per_ns) / 1e3;
  return r;
}

struct Bufs {
  char* big;
  size_t big_bytes;
  Stamp* chain_out;
  Stamp* feed_out;
  size_t smem;
};

static void zero_counters(cudaStream_t st) {
  void* p = nullptr;
  CK(cudaGetSymbolAddress(&p, g_started));
  CK(cudaMemsetAsync(p, 0, sizeof(unsigned), st));
  CK(cudaGetSymbolAddress(&p, g_done));
  CK(cudaMemsetAsync(p, 0, sizeof(unsigned), st));
  CK(cudaStreamSynchronize(st));
}

static void launch_chain(const Bufs& b, cudaStream_t st, int cluster, int grid, const char* region, size_t share,
                         int passes, unsigned feeders) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(grid);
  cfg.blockDim = dim3(kThreads);
  cfg.dynamicSmemBytes = b.smem;
  cfg.stream = st;
  cudaLaunchAttribute a;
  a.id = cudaLaunchAttributeClusterDimension;
  a.val.clusterDim.x = cluster;
  a.val.clusterDim.y = 1;
  a.val.clusterDim.z = 1;
  cfg.attrs = &a;
  cfg.numAttrs = 1;
  CK(cudaLaunchKernelEx(&cfg, chain, region, share, passes, feeders, b.chain_out));
}

static std::vector<Stamp> fetch(const Stamp* d, int n) {
  std::vector<Stamp> h(n);
  CK(cudaMemcpy(h.data(), d, n * sizeof(Stamp), cudaMemcpyDeviceToHost));
  return h;
}

static void evict_l2(const Bufs& b) {  // 256 MiB written far from every region read: L2 holds none of them
  CK(cudaMemset(b.big + b.big_bytes - (size_t{256} << 20), 0, size_t{256} << 20));
  CK(cudaDeviceSynchronize());
}

int main(int argc, char** argv) {
  const long mib = argc > 1 ? std::strtol(argv[1], nullptr, 10) : 15;
  if (mib < 1 || mib > 48) {
    std::fprintf(stderr, "usage: %s [MB from 1 to 48]\n", argv[0]);
    return 2;
  }
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  const int sms = prop.multiProcessorCount;
  std::printf("%s, %d SMs, L2 %d MB; a layer of %ld MiB\n", prop.name, sms, prop.l2CacheSize >> 20, mib);
  Bufs b{};
  b.smem = static_cast<size_t>(kSlots) * kSlot;
  b.big_bytes = size_t{2} << 30;
  CK(cudaMalloc(&b.big, b.big_bytes));
  CK(cudaMemset(b.big, 1, b.big_bytes));
  CK(cudaMalloc(&b.chain_out, sms * sizeof(Stamp)));
  CK(cudaMalloc(&b.feed_out, sms * sizeof(Stamp)));
  CK(cudaFuncSetAttribute(chain, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(b.smem)));
  CK(cudaFuncSetAttribute(chain, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  CK(cudaFuncSetAttribute(feed, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(b.smem)));
  cudaStream_t s1, s2;
  CK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
  CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));

  const size_t layer = static_cast<size_t>(mib) << 20;
  const char* region_a = b.big;                         // the layer the chain reads
  const char* region_b = b.big + (size_t{256} << 20);   // the layer the feeders bring in
  const char* cold = b.big + (size_t{512} << 20);       // 1 GiB of cold bytes

  // The clock: cycles per ns from a long warm read by every SM (no cluster), median block.
  double cycles_per_ns = 0;
  {
    zero_counters(s1);
    launch_chain(b, s1, 1, sms, region_a, layer / sms / kSlot * kSlot, 1, 0);  // brings the region into L2
    launch_chain(b, s1, 1, sms, region_a, layer / sms / kSlot * kSlot, 64, 0);
    CK(cudaStreamSynchronize(s1));
    std::vector<double> r;
    for (const Stamp& x : fetch(b.chain_out, sms)) r.push_back(static_cast<double>(x.cycles) / (x.t1 - x.t0));
    cycles_per_ns = median(r);
    std::printf("SM clock while streaming: %.3f GHz\n\n", cycles_per_ns);
  }

  std::printf("%-6s %7s %5s %9s %10s %10s %12s %11s %8s  %s\n", "test", "cluster", "grid", "MB read", "med. cyc",
              "max cyc", "GB/s a block", "TB/s total", "barrier", "notes");
  auto row = [&](const char* test, int cluster, int grid, const Result& r, const char* note) {
    std::printf("%-6s %7d %5d %9.1f %10.0f %10.0f %12.1f %11.2f %8.0f  %s%s\n", test, cluster, grid, r.bytes / 1e6,
                r.median_cycles, r.max_cycles, r.gbps_block, r.tbps, r.barrier, note,
                r.waited_out ? " (feeders not all resident: the chain ran without them)" : "");
  };
  for (int cluster : {8, 16}) {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(cluster);
    cfg.blockDim = dim3(kThreads);
    cfg.dynamicSmemBytes = b.smem;
    cudaLaunchAttribute a;
    a.id = cudaLaunchAttributeClusterDimension;
    a.val.clusterDim.x = cluster;
    a.val.clusterDim.y = 1;
    a.val.clusterDim.z = 1;
    cfg.attrs = &a;
    cfg.numAttrs = 1;
    int fit = 0;
    if (cudaOccupancyMaxActiveClusters(&fit, chain, &cfg) != cudaSuccess || fit < 1) {
      cudaGetLastError();
      std::printf("clusters of %d: none fit, skipped\n", cluster);
      continue;
    }
    for (int clusters : {1, 2}) {
      if (clusters > fit) continue;
      const int grid = cluster * clusters;
      const int feeders = sms - grid;
      const size_t share = layer / grid / kSlot * kSlot;
      // cold: 8 layers' worth of bytes that L2 does not hold, so that DRAM sets the rate.
      evict_l2(b);
      zero_counters(s1);
      launch_chain(b, s1, cluster, grid, cold, share * 8, 1, 0);
      CK(cudaStreamSynchronize(s1));
      row("cold", cluster, grid, summarize(fetch(b.chain_out, grid), cycles_per_ns), "DRAM, 8 layers");
      // warm1 / warm: the layer read once to bring it into L2, then once / 8 times more.
      zero_counters(s1);
      launch_chain(b, s1, cluster, grid, region_a, share, 1, 0);
      launch_chain(b, s1, cluster, grid, region_a, share, 1, 0);
      CK(cudaStreamSynchronize(s1));
      row("warm1", cluster, grid, summarize(fetch(b.chain_out, grid), cycles_per_ns), "L2, one pass");
      zero_counters(s1);
      launch_chain(b, s1, cluster, grid, region_a, share, 8, 0);
      CK(cudaStreamSynchronize(s1));
      row("warm", cluster, grid, summarize(fetch(b.chain_out, grid), cycles_per_ns), "L2, 8 passes");
      // busy: as warm, while the feeders stream cold bytes until the chain is done.
      zero_counters(s1);
      launch_chain(b, s1, cluster, grid, region_a, share, 8, static_cast<unsigned>(feeders));
      const size_t cold_share = (size_t{1} << 30) / feeders / kSlot * kSlot;
      feed<<<feeders, kThreads, b.smem, s2>>>(cold, cold_share, 1, static_cast<unsigned>(grid), b.feed_out);
      CK(cudaGetLastError());
      CK(cudaStreamSynchronize(s1));
      CK(cudaStreamSynchronize(s2));
      {
        const Result fr = summarize(fetch(b.feed_out, feeders), cycles_per_ns);
        char note[160];
        std::snprintf(note, sizeof note, "L2, 8 passes; the %d feeders read %.1f MB from DRAM meanwhile, %.2f TB/s",
                      feeders, fr.bytes / 1e6, fr.bytes / (fr.span_us * 1e6));
        row("busy", cluster, grid, summarize(fetch(b.chain_out, grid), cycles_per_ns), note);
      }
      // fed: the feeders alone read a fresh layer once; then the chain reads it once.
      evict_l2(b);
      zero_counters(s1);
      const size_t fed_share = (layer / feeders + kSlot - 1) / kSlot * kSlot;  // rounded up: every byte the chain reads
      feed<<<feeders, kThreads, b.smem, s1>>>(region_b, fed_share, 1, 0, b.feed_out);
      CK(cudaGetLastError());
      launch_chain(b, s1, cluster, grid, region_b, share, 1, 0);
      CK(cudaStreamSynchronize(s1));
      row("fed", cluster, grid, summarize(fetch(b.chain_out, grid), cycles_per_ns), "brought into L2 by the feeders");
    }
  }
  CK(cudaFree(b.big));
  CK(cudaFree(b.chain_out));
  CK(cudaFree(b.feed_out));
  return 0;
}
