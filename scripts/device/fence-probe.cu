// What an L2 round trip or a release costs a block while its bulk copies are in flight (Hopper).
//
// The decode kernels' spans aid found a grid barrier's arrival (`red.release.gpu`) taking ~7 k cycles
// right after the block's ring had asked for 96 KB, and ~3.5 k after 64 KB (docs/llama-decode-tries.md). This
// program measures that directly. One block per SM; in each round warp 1 issues `slots` bulk copies of
// 16 KiB (fresh DRAM lines each round) into shared memory, or the same bytes as L2 prefetches, or
// nothing, or the same bytes as 16-byte cp.async (LDGSTS: the generic proxy, each of warp 1's 32 lanes
// issuing its share and completing a second mbarrier with cp.async.mbarrier.arrive); then thread 0 (in
// warp 0, which issued none of them) times one operation with the SM's cycle counter:
//   fence    fence.acq_rel.gpu
//   red      red.release.gpu.global.add (the barrier's arrival)
//   redrlx   red.relaxed.gpu.global.add
//   ldacq    ld.acquire.gpu of a word that L2 holds (the barrier's poll)
//   ldrlx    ld.relaxed.gpu of that word
//   st+fence a store, then fence.acq_rel.gpu
//   dsmem    ld.shared::cluster of the next block's shared memory (cluster launches only)
//   fence.cl fence.acq_rel.cluster;  fence.cta  fence.acq_rel.cta
//   st64rlx  st.relaxed.gpu of a 64-bit word (its issue only)
// and the time until the copies have all landed. Either every block copies (DRAM shared by all SMs, as
// in the kernels) or block 0 alone. It also asks whether a cooperative launch takes a cluster
// dimension, and how many clusters of 2, 4, 8 and 16 such blocks fit.
//
// Build and run on the GPU machine:
//   nvcc -O3 -std=c++17 -arch=sm_90a -I kernels scripts/device/fence-probe.cu -o /tmp/fence-probe && /tmp/fence-probe
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cuda/async_copy.cuh"
#include "cuda/sm90_ops.cuh"
#include "probe.cuh"

namespace sm90 = fusebench::cuda::sm90;

constexpr int kSlot = 16384;
constexpr int kMaxSlots = 12;
constexpr int kThreads = 64;
constexpr int kRounds = 24;
enum Op { kFence, kRed, kRedRelaxed, kLdAcquire, kLdRelaxed, kStFence, kDsmem, kFenceCluster, kFenceCta, kStRelaxed64, kOps };
const char* kOpNames[kOps] = {"fence", "red", "redrlx", "ldacq", "ldrlx", "st+fence", "dsmem", "fence.cl", "fence.cta", "st64rlx"};
enum Load { kNone, kBulk, kPrefetch, kCpAsync };
const char* kLoadNames[] = {"none", "bulk->smem", "prefetch.L2", "cp.async16"};

__device__ unsigned g_bar;
__device__ unsigned g_count;
__device__ unsigned g_words[132 * 32];

#ifdef FB_SM90A_DEVICE
__device__ __forceinline__ void grid_barrier(unsigned target) { probe_grid_barrier(&g_bar, target); }

__device__ __forceinline__ unsigned cluster_peer_addr(const void* p) {
  unsigned rank, size, local = sm90::smem_addr(p), remote;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(size));
  unsigned peer = (rank + 1) % size;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(peer));
  return remote;
}

#endif

__global__ void __launch_bounds__(kThreads, 1)
    probe(const char* __restrict__ big, size_t big_bytes, int slots, int load, int loaders, int op, long long* out) {
#ifdef FB_SM90A_DEVICE
  extern __shared__ __align__(1024) char ring[];
  __shared__ __align__(8) unsigned long long full, full32;
  __shared__ unsigned sink;
  const unsigned bar = sm90::smem_addr(&full), bar32 = sm90::smem_addr(&full32);
  const int b = blockIdx.x;
  if (threadIdx.x == 0) {
    sm90::mbar_init(bar, 1);
    sm90::mbar_init(bar32, 32);
    sm90::mbar_init_fence();
    sink = 0;
  }
  __syncthreads();
  unsigned remote = 0;
  if (op == kDsmem) {
    remote = cluster_peer_addr(&sink);
    asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;" ::: "memory");
  }
  unsigned* word = &g_words[b * 32];
  const bool loads = load != kNone && b < loaders && slots > 0;
  int phase = 0;
  for (int r = 0; r < kRounds; ++r) {
    grid_barrier(static_cast<unsigned>(r + 1) * gridDim.x);
    // This round's fresh region of `big` for this block.
    const size_t round_bytes = static_cast<size_t>(kMaxSlots) * kSlot;
    const size_t off = (static_cast<size_t>(r) * gridDim.x + b) * round_bytes % (big_bytes - round_bytes);
    if (threadIdx.x == 32 && loads) {
      if (load == kBulk) {
        sm90::mbar_arrive_expect_tx(bar, static_cast<unsigned>(slots) * kSlot);
        for (int s = 0; s < slots; ++s) sm90::bulk_load(sm90::smem_addr(ring + s * kSlot), big + off + s * kSlot, kSlot, bar);
      } else if (load == kPrefetch) {
        for (int s = 0; s < slots; ++s) sm90::bulk_prefetch_l2(big + off + s * kSlot, kSlot);
      }
    }
    if (threadIdx.x >= 32 && loads && load == kCpAsync) {
      const unsigned dst = sm90::smem_addr(ring);
      for (int k = threadIdx.x - 32; k < slots * kSlot / 16; k += 32)
        fusebench::cuda::cp_async16(dst + 16 * k, big + off + 16 * k);
      fusebench::cuda::cp_async_mbarrier_arrive(bar32);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      unsigned v = 0;
      const long long t0 = clock64();
      switch (op) {
        case kFence: asm volatile("fence.acq_rel.gpu;" ::: "memory"); break;
        case kRed: asm volatile("red.release.gpu.global.add.u32 [%0], 1;" ::"l"(&g_count) : "memory"); break;
        case kRedRelaxed: asm volatile("red.relaxed.gpu.global.add.u32 [%0], 1;" ::"l"(&g_count) : "memory"); break;
        case kLdAcquire: asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(word) : "memory"); break;
        case kLdRelaxed: asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(word) : "memory"); break;
        case kStFence:
          asm volatile("st.relaxed.gpu.global.u32 [%0], %1;\nfence.acq_rel.gpu;" ::"l"(word), "r"(r) : "memory");
          break;
        case kDsmem: asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(remote) : "memory"); break;
        case kFenceCluster: asm volatile("fence.acq_rel.cluster;" ::: "memory"); break;
        case kFenceCta: asm volatile("fence.acq_rel.cta;" ::: "memory"); break;
        case kStRelaxed64:
          asm volatile("st.relaxed.gpu.global.b64 [%0], %1;" ::"l"(word), "l"(static_cast<unsigned long long>(r)) : "memory");
          break;
        default: break;
      }
      // The result's first use waits for the load; the store keeps it from being dropped.
      asm volatile("st.volatile.shared.u32 [%0], %1;" ::"r"(sm90::smem_addr(&sink)), "r"(v) : "memory");
      const long long t1 = clock64();
      long long t2 = t1;
      if (loads && (load == kBulk || load == kCpAsync)) {
        sm90::mbar_wait(load == kBulk ? bar : bar32, phase);
        t2 = clock64();
      }
      out[(static_cast<size_t>(r) * gridDim.x + b) * 2] = t1 - t0;
      out[(static_cast<size_t>(r) * gridDim.x + b) * 2 + 1] = t2 - t0;
    }
    if (loads && (load == kBulk || load == kCpAsync)) phase ^= 1;
    __syncthreads();
  }
  if (op == kDsmem) asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;" ::: "memory");
#endif
}

// Three more layouts, each timing thread 0's fence.acq_rel.gpu (op 0) or its ld.acquire.gpu of an L2 word
// (op 1) while other bulk copies are in flight:
// - "pair": two blocks of 96 KB an SM (264 blocks); the first 132 blocks copy, the others only time.
// - "remote": clusters of 2, one block an SM; rank 0 copies into rank 1's shared memory (rank 1's
//   mbarrier), so rank 0 issues the copies and rank 1 receives them.
// - "both": as remote, but rank 0 also copies as much into its own shared memory (one issuer for two
//   rings: does half the SMs' issuing keep DRAM as busy?).
// In the cluster layouts, op 2 is a ping-pong through distributed shared memory (rank 0 stores to rank
// 1's flag, rank 1 answers into rank 0's): the round trip, timed by rank 0. Op 3 is the same with
// st.async, each store completing a transaction on the receiver's mbarrier, which it waits on.
__global__ void __launch_bounds__(kThreads, 1)
    probe2(const char* __restrict__ big, size_t big_bytes, int slots, int layout, int op, long long* out, unsigned* smids) {
#ifdef FB_SM90A_DEVICE
  extern __shared__ __align__(1024) char ring[];
  __shared__ __align__(8) unsigned long long full;
  __shared__ unsigned sink, flag;
  __shared__ __align__(8) unsigned long long ping;
  const int b = blockIdx.x;
  unsigned rank = 0;
  if (layout >= 1) asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  if (threadIdx.x == 0) {
    sm90::mbar_init(sm90::smem_addr(&full), 1);
    sm90::mbar_init(sm90::smem_addr(&ping), 1);
    sm90::mbar_init_fence();
    sink = 0;
    flag = 0;
    unsigned smid;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
    smids[b] = smid;
  }
  __syncthreads();
  unsigned peer_ring = 0, peer_bar = 0, peer_flag = 0, peer_ping = 0;
  if (layout >= 1) {
    const unsigned other = rank ^ 1;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(peer_ring) : "r"(sm90::smem_addr(ring)), "r"(other));
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(peer_bar) : "r"(sm90::smem_addr(&full)), "r"(other));
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(peer_flag) : "r"(sm90::smem_addr(&flag)), "r"(other));
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(peer_ping) : "r"(sm90::smem_addr(&ping)), "r"(other));
    asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;" ::: "memory");
  }
  const bool loader = layout == 0 ? b < 132 : rank == 0;
  const bool receiver = layout == 0 ? loader : layout == 1 ? rank == 1 : true;
  const int slot_bytes = layout == 0 ? kSlot / 2 : kSlot;  // pair: 96 KB a block, 8 KB copies
  unsigned* word = &g_words[(b % 132) * 32];
  int phase = 0;
  for (int r = 0; r < kRounds; ++r) {
    if (threadIdx.x == 0 && receiver && slots > 0)
      sm90::mbar_arrive_expect_tx(sm90::smem_addr(&full), static_cast<unsigned>(slots) * slot_bytes);
    if (threadIdx.x == 0 && op == 3) sm90::mbar_arrive_expect_tx(sm90::smem_addr(&ping), 4);
    grid_barrier(static_cast<unsigned>(r + 1) * gridDim.x);
    if (threadIdx.x == 32 && loader && slots > 0) {
      const size_t round_bytes = static_cast<size_t>(kMaxSlots) * kSlot;
      const size_t off = (static_cast<size_t>(r) * gridDim.x + b) * round_bytes % (big_bytes - round_bytes);
      for (int s = 0; s < slots; ++s) {
        if (layout != 1)
          sm90::bulk_load(sm90::smem_addr(ring + s * slot_bytes), big + off + s * slot_bytes, slot_bytes, sm90::smem_addr(&full));
        if (layout >= 1)
          sm90::bulk_load(peer_ring + s * slot_bytes, big + (off + (s + kMaxSlots) * slot_bytes) % (big_bytes - kSlot),
                          slot_bytes, peer_bar);
      }
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      unsigned v = 0;
      const long long t0 = clock64();
      if (op == 0) asm volatile("fence.acq_rel.gpu;" ::: "memory");
      if (op == 1) asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(word) : "memory");
      if (op == 2) {
        const unsigned want = static_cast<unsigned>(r + 1);
        if (rank == 0) asm volatile("st.relaxed.cluster.shared::cluster.u32 [%0], %1;" ::"r"(peer_flag), "r"(want) : "memory");
        unsigned seen = 0;
        do asm volatile("ld.relaxed.cluster.shared.u32 %0, [%1];" : "=r"(seen) : "r"(sm90::smem_addr(&flag)) : "memory");
        while (seen != want);
        if (rank == 1) asm volatile("st.relaxed.cluster.shared::cluster.u32 [%0], %1;" ::"r"(peer_flag), "r"(want) : "memory");
      }
      if (op == 3) {  // the same through st.async, completed on the receiver's mbarrier (no fence, no poll of a flag)
        auto send = [&] {
          asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%0], %1, [%2];" ::"r"(peer_flag),
                       "r"(static_cast<unsigned>(r)), "r"(peer_ping)
                       : "memory");
        };
        if (rank == 0) send();
        sm90::mbar_wait(sm90::smem_addr(&ping), r & 1);
        if (rank == 1) send();
      }
      asm volatile("st.volatile.shared.u32 [%0], %1;" ::"r"(sm90::smem_addr(&sink)), "r"(v) : "memory");
      const long long t1 = clock64();
      long long t2 = t1;
      if (receiver && slots > 0) {
        sm90::mbar_wait(sm90::smem_addr(&full), phase);
        t2 = clock64();
      }
      out[(static_cast<size_t>(r) * gridDim.x + b) * 2] = t1 - t0;
      out[(static_cast<size_t>(r) * gridDim.x + b) * 2 + 1] = t2 - t0;
    }
    if (receiver && slots > 0) phase ^= 1;
    __syncthreads();
  }
  if (layout >= 1) asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;" ::: "memory");
#endif
}

struct Probe {
  int blocks;
  const char* big;
  size_t big_bytes;
  long long* out;
  size_t smem;
};

// Returns the median op cycles and landing cycles over the rounds after the first 4 and the blocks
// that loaded (or block 0 alone when only it loads).
static bool run(const Probe& p, int slots, int load, int loaders, int op, int cluster, double* op_cyc, double* land_cyc,
                bool cooperative = false, cudaError_t* launch_error = nullptr) {
  void* bar_ptr = nullptr;
  CK(cudaGetSymbolAddress(&bar_ptr, g_bar));
  CK(cudaMemset(bar_ptr, 0, sizeof(unsigned)));
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(p.blocks);
  cfg.blockDim = dim3(kThreads);
  cfg.dynamicSmemBytes = p.smem;
  cudaLaunchAttribute attrs[2];
  int n = 0;
  if (cluster > 1) {
    attrs[n++] = cluster_dim(cluster);
  }
  if (cooperative) {
    attrs[n].id = cudaLaunchAttributeCooperative;
    attrs[n].val.cooperative = 1;
    ++n;
  }
  cfg.attrs = attrs;
  cfg.numAttrs = n;
  cudaError_t e = cudaLaunchKernelEx(&cfg, probe, p.big, p.big_bytes, slots, load, loaders, op, p.out);
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (launch_error) *launch_error = e;
  if (e != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  std::vector<long long> h(static_cast<size_t>(kRounds) * p.blocks * 2);
  CK(cudaMemcpy(h.data(), p.out, h.size() * sizeof(long long), cudaMemcpyDeviceToHost));
  std::vector<long long> ops, lands;
  for (int r = 4; r < kRounds; ++r)
    for (int b = 0; b < (loaders == 1 ? 1 : p.blocks); ++b) {
      ops.push_back(h[(static_cast<size_t>(r) * p.blocks + b) * 2]);
      lands.push_back(h[(static_cast<size_t>(r) * p.blocks + b) * 2 + 1]);
    }
  *op_cyc = median(ops);
  *land_cyc = median(lands);
  return true;
}

int main() {
  int khz = 0;
  const cudaDeviceProp prop = print_device(&khz);
  const int sms = prop.multiProcessorCount;
  std::printf(", L2 %d MB\n", prop.l2CacheSize >> 20);
  const size_t smem = static_cast<size_t>(kMaxSlots) * kSlot;
  CK(cudaFuncSetAttribute(probe, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  CK(cudaFuncSetAttribute(probe, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  const size_t big_bytes = size_t{2} << 30;
  char* big = nullptr;
  long long* out = nullptr;
  CK(cudaMalloc(&big, big_bytes));
  CK(cudaMemset(big, 1, big_bytes));
  CK(cudaMalloc(&out, static_cast<size_t>(kRounds) * sms * 2 * sizeof(long long)));
  Probe p{sms, big, big_bytes, out, smem};

  // Clusters: how many fit, and whether a cooperative launch takes them.
  int fits[17] = {};
  for (int c : {1, 2, 4, 8, 16}) {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(sms / c * c);
    cfg.blockDim = dim3(kThreads);
    cfg.dynamicSmemBytes = smem;
    cudaLaunchAttribute a = cluster_dim(c);
    cfg.attrs = &a;
    cfg.numAttrs = 1;
    int clusters = -1;
    cudaError_t e = cudaOccupancyMaxActiveClusters(&clusters, probe, &cfg);
    if (e != cudaSuccess) cudaGetLastError();
    fits[c] = e == cudaSuccess ? clusters * c : 0;
    std::printf("cluster %2d: max active clusters %d (%d blocks)%s%s\n", c, clusters, clusters * c,
                e == cudaSuccess ? "" : " error: ", e == cudaSuccess ? "" : cudaGetErrorString(e));
  }
  for (int c : {2, 4}) {
    Probe q = p;
    q.blocks = std::min(sms / c * c, fits[c]);
    double o, l;
    cudaError_t e;
    run(q, 0, kNone, 0, kDsmem, c, &o, &l, true, &e);
    std::printf("cooperative launch with cluster %d, %d blocks: %s\n", c, q.blocks,
                e == cudaSuccess ? "ran" : cudaGetErrorString(e));
  }

  std::printf("\ncycles of thread 0's operation (median block, rounds 4..%d); landing = until the copies landed\n",
              kRounds - 1);
  std::printf("%-9s %-12s %-8s", "op", "loads", "loaders");
  const int slot_counts[] = {0, 1, 2, 4, 6, 8, 12};
  for (int s : slot_counts) std::printf(" %7dK", s * 16);
  std::printf("\n");
  for (int op = 0; op < kOps; ++op) {
    const int cluster = op == kDsmem ? 2 : 1;
    Probe q = p;
    q.blocks = std::min(sms / cluster * cluster, fits[cluster]);
    for (int load : {kBulk, kPrefetch, kCpAsync}) {
      for (int loaders : {q.blocks, 1}) {
        if (load == kPrefetch && loaders == 1) continue;
        std::printf("%-9s %-12s %-8s", kOpNames[op], kLoadNames[load], loaders == 1 ? "block0" : "all");
        std::vector<double> lands;
        for (int s : slot_counts) {
          double o = 0, l = 0;
          if (!run(q, s, s == 0 ? kNone : load, loaders, op, cluster, &o, &l)) {
            std::printf(" %8s", "fail");
            continue;
          }
          std::printf(" %8.0f", o);
          lands.push_back(l);
        }
        if (load != kPrefetch) {
          std::printf("   landing:");
          for (double l : lands) std::printf(" %.0f", l);
        }
        std::printf("\n");
      }
    }
  }

  // The pair and remote layouts.
  {
    const size_t half = smem / 2;
    CK(cudaFuncSetAttribute(probe2, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
    int per_sm = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, probe2, kThreads, half));
    unsigned* smids = nullptr;
    long long* out2 = nullptr;
    CK(cudaMalloc(&smids, 2 * sms * sizeof(unsigned)));
    CK(cudaMalloc(&out2, static_cast<size_t>(kRounds) * 2 * sms * 2 * sizeof(long long)));
    std::printf("\npair: %d blocks of %zu KB fit an SM\n", per_sm, half >> 10);
    const char* names[] = {"fence", "ldacq", "dsmem ping-pong", "st.async ping-pong"};
    for (int layout = 0; layout < 3; ++layout) {
      if (layout == 0 && per_sm < 2) continue;
      if (layout >= 1 && fits[2] < sms) continue;
      const int blocks = layout == 0 ? 2 * sms : sms;
      for (int op = 0; op < (layout == 0 ? 2 : 4); ++op) {
        std::printf("%-6s %-16s", layout == 0 ? "pair" : layout == 1 ? "remote" : "both", names[op]);
        for (int slots : {0, 2, 4, 6, 8, 12}) {
          cudaLaunchConfig_t cfg = {};
          cfg.gridDim = dim3(blocks);
          cfg.blockDim = dim3(kThreads);
          cfg.dynamicSmemBytes = layout == 0 ? half : smem;
          cudaLaunchAttribute a = cluster_dim(2);
          cfg.attrs = &a;
          cfg.numAttrs = layout >= 1 ? 1 : 0;
          void* bar_ptr = nullptr;
          CK(cudaGetSymbolAddress(&bar_ptr, g_bar));
          CK(cudaMemset(bar_ptr, 0, sizeof(unsigned)));
          CK(cudaLaunchKernelEx(&cfg, probe2, big, big_bytes, slots, layout, op, out2, smids));
          CK(cudaDeviceSynchronize());
          std::vector<long long> h(static_cast<size_t>(kRounds) * blocks * 2);
          CK(cudaMemcpy(h.data(), out2, h.size() * sizeof(long long), cudaMemcpyDeviceToHost));
          std::vector<unsigned> sm(blocks);
          CK(cudaMemcpy(sm.data(), smids, blocks * sizeof(unsigned), cudaMemcpyDeviceToHost));
          // pair: the loaders (first 132) and the others; remote: rank 0 (issues) and rank 1 (receives).
          std::vector<long long> a0, a1, land;
          int shared_sm = 0;
          for (int bb = sms; layout == 0 && bb < blocks; ++bb)
            for (int o = 0; o < sms; ++o) shared_sm += sm[o] == sm[bb];
          for (int r = 4; r < kRounds; ++r)
            for (int bb = 0; bb < blocks; ++bb) {
              const bool first = layout == 0 ? bb < sms : bb % 2 == 0;
              (first ? a0 : a1).push_back(h[(static_cast<size_t>(r) * blocks + bb) * 2]);
              if (!first && layout >= 1) land.push_back(h[(static_cast<size_t>(r) * blocks + bb) * 2 + 1]);
              if (first && layout == 0) land.push_back(h[(static_cast<size_t>(r) * blocks + bb) * 2 + 1]);
            }
          std::printf("  %2d×%s: %5.0f/%5.0f (land %5.0f)", slots, layout == 0 ? "8K" : "16K", median(a0), median(a1),
                      median(land));
          if (layout == 0 && slots == 0) std::printf(" [%d of %d timers share an SM with a copier]", shared_sm, sms);
        }
        std::printf("\n");
      }
    }
    std::printf("(pair: copier/other block; remote: rank 0 issuing/rank 1 receiving; both: rank 0 issues its own\n"
                " and rank 1's copies, landing = rank 1's; cycles)\n");
    CK(cudaFree(smids));
    CK(cudaFree(out2));
  }
  CK(cudaFree(big));
  CK(cudaFree(out));
  return 0;
}
