// An experiment (LLAMA_PAIRS, off by default): llama_decode's ring kernel in clusters of 2 blocks that split
// the roles docs/llama-decode.md ("Whose copies a fence waits for") measured apart. A release, a poll or an
// L2 read waits behind the bulk copies its own block has in flight, and not behind copies another block
// issued into its shared memory. So in each pair:
// - rank 1, the issuer, issues every bulk copy of both rings (a second producer warp streams rank 0's ring
//   into rank 0's shared memory, on rank 0's `full` barriers), consumes its own ring, and makes no grid
//   exchange: it takes its normalized input from rank 0's shared memory (DSMEM loads) and hands its
//   outputs — its q|k|v rows, its attention partials, its out-projection and down-projection sums — to
//   rank 0 with st.async, each store completing on one of rank 0's mbarriers (no fence in rank 1);
// - rank 0, the exchanger, issues no copies. It consumes its own ring like the issuer, and it makes every
//   fence, poll, L2 read and atomic of the pair: the grid barriers (66 arrivals, not 132), both blocks'
//   q|k|v rows and partials, and one set of atomics for both blocks' sums (the down sums added together
//   first). It tells the issuer when its input is ready, and when a mailbox may be written, by arriving on
//   the issuer's mbarriers (a release at cluster scope, cheap in a block with no copies of its own).
// The issuer still reads q|k|v, the head counters and the partials from L2 for its own attention and
// out-projection items; those reads wait behind its copies as in the main kernel.
// Limits (refused before launch): an even grid, at most one attention and one out-projection item a block,
// the issuer's q|k|v rows within the exchanger's γ buffer, where they land.
//
// Measured (docs/llama-decode.md, "Tried: clusters that split issuing from exchanging"): every logit passed,
// and the step took 1.55 ms against 1.12. Knobs of the tries there: LLAMA_PAIRS_GIVE_CLUSTER (slots given
// back with a release at cluster scope), LLAMA_PAIRS_WAIT (0: try_wait with acquire at cluster scope, 1: the
// same with a 1 ms sleep hint, 2: a test_wait spin, 3: the default, acquire at CTA scope),
// LLAMA_PAIRS_FILL_WAIT (the issuer's wait for the exchanger's free slots: 0 sleeps, 1 try_wait, 2 spins),
// LLAMA_PAIRS_SELF (each block streams its own ring; only the exchanges are paired), LLAMA_PAIRS_SPANS (a
// measuring aid: each role's spans per layer, printed by the last block).
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "llama_decode_ring.cuh"

namespace fusebench::kernels::llama::ring {

constexpr int kPairThreads = kConsumers + 64;  // 8 consumer warps, 2 producer warps (the issuer's: both rings)
// The pair's mbarriers, in each block: the exchanger's mailboxes (completed by the issuer's st.async bytes
// and the exchanger's one arrival that expects them), then the issuer's signals (the exchanger's arrival).
enum PairBar : int { kMailQkv, kMailPart, kMailWo, kMailDown, kSigX, kSigB1, kSigX2, kSigAttn, kSigXs, kPairBars };
constexpr size_t kMailPartFloats = kMaxItemHeads * kPartFloats;  // an attention item's partials
#ifdef LLAMA_PAIRS_SPANS
// A measuring aid: thread 0 of each block adds the cycles of each span of a layer into shared memory (slot
// 15 holds the last stamp), and the last block prints each role's means per layer.
constexpr size_t kPairSpanBytes = 16 * 8;
static __device__ long long g_pair_span[1024][16];
static __device__ unsigned g_pair_span_done;
#define PS(k)                                      \
  do {                                             \
    if (threadIdx.x == 0) {                        \
      const long long now = clock64();             \
      ps[k] += now - ps[15];                       \
      ps[15] = now;                                \
    }                                              \
  } while (0)
#else
constexpr size_t kPairSpanBytes = 0;
#define PS(k)
#endif
// Bytes after the ring: its `full` and `empty` barriers, the issuer's barriers of the exchanger's ring
// (`empty2`), the pair's barriers, rounded to 16.
__host__ __device__ inline size_t pair_bar_bytes(int slots) { return ((3 * size_t(slots) + kPairBars) * 8 + 15) & ~size_t{15}; }
template <class T>
size_t pair_fixed_smem_bytes(const LlamaDecodeArgs<T>& a, size_t ffn_chunk, int slots) {
  return pair_bar_bytes(slots) + ((smem_layout<T>(a.hidden, ffn_chunk).end + 3) & ~size_t{3}) * 4 + kMailPartFloats * 4 +
         kPairSpanBytes + 32;
}

#ifdef FB_SM90A_DEVICE

__device__ __forceinline__ unsigned cta_rank() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}
// The cluster peer's shared::cluster address of this block's shared-memory object p.
__device__ __forceinline__ uint32_t peer_addr(const void* p) {
  uint32_t r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(sm90::smem_addr(p)), "r"(cta_rank() ^ 1u));
  return r;
}
// Every thread of both blocks.
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;" ::: "memory");
}
// An arrival (counting `count`) on the peer's barrier: releases this thread's writes, and what it has seen,
// at cluster scope.
__device__ __forceinline__ void peer_arrive(uint32_t bar, uint32_t count = 1) {
  asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
// A consumer's arrival (counting `count`) that gives a slot of the peer's ring back: release at CTA scope,
// as CUTLASS's cluster pipelines give slots back (its reads of the slot are done; a release at cluster
// scope is a fence of ~900 cycles a slot).
__device__ __forceinline__ void peer_give_back(uint32_t bar, uint32_t count) {
#if LLAMA_PAIRS_GIVE_CLUSTER
  peer_arrive(bar, count);
#else
  asm volatile("mbarrier.arrive.release.cta.shared::cluster.b64 _, [%0], %1;" ::"r"(bar), "r"(count) : "memory");
#endif
}
// The producer's arrival on the peer's `full` barrier that expects `bytes`: relaxed (a release would wait
// for every copy this block has in flight).
__device__ __forceinline__ void peer_expect(uint32_t bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.relaxed.cluster.shared::cluster.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes)
               : "memory");
}
// Waits for a phase of one of this block's barriers that the peer completes (acquire at cluster scope);
// traps after ~10 s.
#ifndef LLAMA_PAIRS_WAIT
#define LLAMA_PAIRS_WAIT 3
#endif
__device__ __forceinline__ void wait_peer(uint32_t bar, uint32_t parity) {
#if LLAMA_PAIRS_WAIT == 3  // acquire at CTA scope (the default), as CUTLASS's cluster pipelines wait
  wait_phase(bar, parity);
  return;
#endif
  const long long start = clock64();
  for (;;) {
    uint32_t done;
#if LLAMA_PAIRS_WAIT == 1  // may sleep up to 1 ms a test
    asm volatile(
        "{\n.reg .pred p;\nmbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2, %3;\n"
        "selp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(bar), "r"(parity), "r"(1u << 20)
        : "memory");
#elif LLAMA_PAIRS_WAIT == 2  // spins
    asm volatile(
        "{\n.reg .pred p;\nmbarrier.test_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2;\n"
        "selp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(bar), "r"(parity)
        : "memory");
#else  // the system's own time limit a test
    asm volatile(
        "{\n.reg .pred p;\nmbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2;\n"
        "selp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(bar), "r"(parity)
        : "memory");
#endif
    if (done) return;
    if (clock64() - start > kWaitTimeoutCycles) __trap();
  }
}
// Stores into the peer's shared memory, each completing its bytes on the peer's barrier `bar`.
__device__ __forceinline__ void st_async(uint32_t addr, float v, uint32_t bar) {
  asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.f32 [%0], %1, [%2];" ::"r"(addr), "f"(v), "r"(bar)
               : "memory");
}
__device__ __forceinline__ void st_async4(uint32_t addr, float x, float y, float z, float w, uint32_t bar) {
  asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.f32 [%0], {%1, %2, %3, %4}, [%5];" ::"r"(addr),
               "f"(x), "f"(y), "f"(z), "f"(w), "r"(bar)
               : "memory");
}
__device__ __forceinline__ uint4 ld_peer4(uint32_t addr) {
  uint4 v;
  asm volatile("ld.shared::cluster.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "r"(addr)
               : "memory");
  return v;
}

// The issuer's producer of the exchanger's ring: the slots and `full` barriers are the peer's, the `empty`
// ones this block's (empty2), which the peer's consumers arrive on.
struct FillPeer : Ring {
  uint32_t peer_data, peer_full;
  __device__ uint32_t full_bar() const { return peer_full + 8u * slot; }
  __device__ uint32_t data_addr() const { return peer_data + slot * kSlotBytes; }
#if LLAMA_PAIRS_WAIT == 3
#ifndef LLAMA_PAIRS_FILL_WAIT
#define LLAMA_PAIRS_FILL_WAIT 0
#endif
  __device__ void wait_free() const {
#if LLAMA_PAIRS_FILL_WAIT == 2  // spins on test_wait
    const uint32_t bar = empty_bar(), parity = phase ^ 1;
    for (;;) {
      uint32_t done;
      asm volatile("{\n.reg .pred p;\nmbarrier.test_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
                   : "=r"(done)
                   : "r"(bar), "r"(parity)
                   : "memory");
      if (done) return;
    }
#else
    wait_phase<LLAMA_PAIRS_FILL_WAIT == 0>(empty_bar(), phase ^ 1);
#endif
  }
#else
  __device__ void wait_free() const { wait_peer(empty_bar(), phase ^ 1); }
#endif
  __device__ void expect(uint32_t bytes) const { peer_expect(full_bar(), bytes); }
};
// The exchanger's consumers: their slots and `full` barriers are this block's, the `empty` ones the
// issuer's, given back once a warp (an arrival for its 32 threads, or for all of them in consume_by_warp).
struct DrainToPeer : Ring {
  uint32_t peer_empty;
  __device__ uint32_t empty_bar() const { return peer_empty + 8u * slot; }
  __device__ void give_back() const {
    __syncwarp();
    if ((threadIdx.x & 31) == 0) peer_give_back(empty_bar(), 32);
  }
  __device__ void give_back_warp() const {
    if ((threadIdx.x & 31) == 0) peer_give_back(empty_bar(), kConsumers);
  }
};

// A pair block's consumers, the issuer's (kIssuer) or the exchanger's. The issuer's run out of line
// (issuer_consumers), so that each role's registers are allocated for its own code: inlined together, the
// two spilled 96 bytes; both out of line, the exchanger spilled 64 (bf16, nvcc 13.0), and 12 this way.
template <class T, bool kIssuer>
__device__ __forceinline__ void pair_consumers(const Params<T>& p, char* smem_raw) {
  const LlamaDecodeArgs<T>& a = p.a;
  const Plan<T> plan{p};
  const unsigned other = blockIdx.x ^ 1u;  // the peer (a 1-D grid in clusters of 2: blocks 2k, 2k + 1)
  uint64_t* full = reinterpret_cast<uint64_t*>(smem_raw + size_t(p.slots) * kSlotBytes);
  uint64_t* empty = full + p.slots;
  uint64_t* empty2 = empty + p.slots;
  uint64_t* bars = empty2 + p.slots;
  const int c = static_cast<int>(a.hidden), kvw = static_cast<int>(plan.kv_width());
  const int group = static_cast<int>(plan.group());
  float* xs = reinterpret_cast<float*>(smem_raw + size_t(p.slots) * kSlotBytes + pair_bar_bytes(p.slots));
  float* q = xs;
  float* s = q + kMaxItemHeads * 64;
  T* kv_new = reinterpret_cast<T*>(s + kMaxItemHeads * kScoreStride);
  float* opart = s + kMaxItemHeads * kScoreStride + 128;
  const SmemLayout m = smem_layout<T>(c, p.ffn_chunk);
  T* ng = reinterpret_cast<T*>(xs + m.ng);
  float* gs = xs + m.gs;
  float* rope = xs + m.rope;
  float* red = xs + m.red;
  T* xh = reinterpret_cast<T*>(xs + m.xh);
  // The exchanger's mailboxes: q|k|v rows in ng (free between the attention norm and the FFN norm's γ),
  // partials in their own space, out-projection sums in the attention's scratch past q (free once its
  // attention item is done), down sums in xs (free once its gate/up pieces are done).
  float* mail_qkv = reinterpret_cast<float*>(ng);
  float* mail_part = xs + ((m.end + 3) & ~size_t{3});
  float* mail_wo = xs + kMaxItemHeads * 64;
  float* mail_down = xs;
#ifdef LLAMA_PAIRS_SPANS
  long long* ps = reinterpret_cast<long long*>(mail_part + kMailPartFloats);
  if (threadIdx.x < 16) ps[threadIdx.x] = threadIdx.x == 15 ? clock64() : 0;
#endif
  auto bar = [&](int i) { return sm90::smem_addr(bars + i); };
  const size_t cache_layer = a.ctx * size_t(kvw);
  const uint32_t peer_bars = peer_addr(bars);
  const bool own_f = ffn_cols(a.f, p.ffn_chunk).size() > 0;  // this block has FFN columns
  T* const xh_out = sizeof(T) == 2 ? xh : nullptr;
  float* x_cur = a.x_f;
  float* x_next = a.x2_f;
  const int heads = static_cast<int>(p.item_heads);
  if (threadIdx.x < 32) {
    double sn, cs;
    sincos(rope_angle(a.pos, threadIdx.x, a.rope_theta), &sn, &cs);
    rope[threadIdx.x] = static_cast<float>(cs);
    rope[32 + threadIdx.x] = static_cast<float>(sn);
  }
  auto rotated = [&](const float* v, int t) {
    const int i = t & 31;
    const float x = __ldcg(v + t), y = __ldcg(v + (t ^ 32));
    return (t & 32) == 0 ? x * rope[i] - y * rope[32 + i] : x * rope[i] + y * rope[32 + i];
  };
  // The new key and value of an item whose chunk holds pos into kv_new, and into the cache by the group's
  // first pass; q of the item's heads, turned and scaled.
  auto item_inputs = [&](size_t l, const Item& it) {
    const int kvh = it.h / group;
    if (threadIdx.x < 64 * heads) q[threadIdx.x] = rotated(a.qkv_f + it.h * 64, threadIdx.x) * kScoreScale;
    if (threadIdx.x < 64 && it.has_new) {
      const T k = from_float<T>(rotated(a.qkv_f + c + kvh * 64, threadIdx.x));
      const T v = from_float<T>(__ldcg(a.qkv_f + c + kvw + kvh * 64 + threadIdx.x));
      kv_new[threadIdx.x] = k;
      kv_new[64 + threadIdx.x] = v;
      if (it.h % group == 0) {
        a.k_cache[l * cache_layer + a.pos * kvw + kvh * 64 + threadIdx.x] = k;
        a.v_cache[l * cache_layer + a.pos * kvw + kvh * 64 + threadIdx.x] = v;
      }
    }
    Consumers::sync();
  };
  unsigned phases = 0;  // bit i: the parity of the next phase of pair barrier i that this block waits for
  auto wait_bar = [&](int i) {
    wait_peer(bar(i), (phases >> i) & 1u);
    phases ^= 1u << i;
  };

  if constexpr (kIssuer) {
    Ring ring{smem_raw, full, empty, p.slots};
    auto mail = [&](int i) { return peer_bars + 8u * i; };
    // The exchanger's normalized input (signal `sig`), and its rounding to T, into this block's.
    auto take_x = [&](int sig) {
      wait_bar(sig);
      for (int i = threadIdx.x; i < c / 4; i += kConsumers) reinterpret_cast<uint4*>(xs)[i] = ld_peer4(peer_addr(xs) + 16u * i);
      if constexpr (sizeof(T) == 2)
        for (int i = threadIdx.x; i < c / 8; i += kConsumers) reinterpret_cast<uint4*>(xh)[i] = ld_peer4(peer_addr(xh) + 16u * i);
      Consumers::sync();
    };
    for (size_t l = 0; l < a.layers; ++l) {
      take_x(kSigX);
      PS(0);
      consume_by_warp(plan.qkv(l), ring, [&](const T* w, size_t r0, int n) {
        gemv_piece_warp(w, r0, n, c, xs, xh, [&](size_t r, float v) { st_async(peer_addr(mail_qkv) + 4u * uint32_t(r), v, mail(kMailQkv)); });
      });
      PS(1);
      wait_bar(kSigB1);
      unsigned* done = g_head_done + l * kMaxHeads;
      PS(2);
      if (blockIdx.x < plan.items()) {
        const Item it = plan.item(blockIdx.x);
        item_inputs(l, it);
        Online on = attend_item(plan.kv(l, it), ring, q, it.has_new ? kv_new : nullptr, kv_new + 64, s, heads);
        // gather_item's reduction (gpt2_decode_ring.cuh), stored into the exchanger's mailbox.
        const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = kConsumerWarps / heads;
#pragma unroll
        for (int d = 0; d < kPack; ++d) {
          on.o[d] += __shfl_xor_sync(0xFFFFFFFFu, on.o[d], 8);
          on.o[d] += __shfl_xor_sync(0xFFFFFFFFu, on.o[d], 16);
        }
        if (lane < 8) {
#pragma unroll
          for (int d = 0; d < kPack; ++d) opart[warp * 64 + lane * kPack + d] = on.o[d];
        }
        Consumers::sync();
        if (threadIdx.x < 64 * heads) {
          const unsigned e = threadIdx.x >> 6, d = threadIdx.x & 63;
          float sum = 0.f;
          for (int w = 0; w < warps; ++w) sum += opart[(e * warps + w) * 64 + d];
          st_async(peer_addr(mail_part) + 4u * (e * unsigned(kPartFloats) + 2 + d), sum, mail(kMailPart));
        }
        if (lane == 0 && warp % warps == 0) {
          const unsigned e = warp / warps;
          st_async(peer_addr(mail_part) + 4u * e * unsigned(kPartFloats), on.m, mail(kMailPart));
          st_async(peer_addr(mail_part) + 4u * (e * unsigned(kPartFloats) + 1), on.l, mail(kMailPart));
        }
      }
      PS(3);
      {
        float acc[4] = {};
        const int j = 4 * static_cast<int>(threadIdx.x);
        int ncols = 0;
        if (blockIdx.x < plan.wo_items()) {
          const WoItem it = plan.wo_item(blockIdx.x);
          wait_count<Consumers>(done + it.h / p.item_heads * p.item_heads, static_cast<unsigned>(p.splits));
          if (threadIdx.x < 64) q[threadIdx.x] = combine_head(a.att_part + it.h * p.splits * kPartFloats, p.splits, threadIdx.x);
          Consumers::sync();
          ncols = static_cast<int>(plan.wo_cols(it).size());
          PS(4);
          consume(plan.wo(l, it), ring, [&](const T* w, size_t r0, int n) {
            if (j < ncols)
              for (int d = 0; d < n; ++d) {
                const float od = q[r0 + d];
                const T* wd = w + size_t(d) * ncols + j;
#pragma unroll
                for (int e = 0; e < 4; ++e) acc[e] += od * to_float(wd[e]);
              }
          });
        }
        PS(5);
        wait_bar(kSigAttn);  // the exchanger's attention scratch, where the sums land, is free
        if (j < ncols) st_async4(peer_addr(mail_wo) + 4u * j, acc[0], acc[1], acc[2], acc[3], mail(kMailWo));
      }
      take_x(kSigX2);
      PS(6);
      consume_by_warp(plan.gate_up(l, 0), ring, [&](const T* w, size_t r0, int n) {
        gemv_piece_warp(w, r0, n, c, xs, xh, [&](size_t r, float v) { gs[r] = v; });
      });
      consume_by_warp(plan.gate_up(l, 1), ring, [&](const T* w, size_t r0, int n) {
        gemv_piece_warp(w, r0, n, c, xs, xh, [&](size_t r, float u) { gs[r] = gs[r] / (1.f + expf(-gs[r])) * u; });
      });
      Consumers::sync();
      PS(7);
      float acc[kDownPacks][kPack] = {};
      consume(plan.down(l), ring, [&](const T* w, size_t r0, int n) {
        for (int i = 0; i < n; ++i) {
          const float gi = gs[r0 + i];
#pragma unroll
          for (int u = 0; u < kDownPacks; ++u) {
            const int col = (threadIdx.x + u * kConsumers) * kPack;
            if (col < c) {
              float v[kPack];
              unpack(smem_pack(w + size_t(i) * c + col), v);
#pragma unroll
              for (int e = 0; e < kPack; ++e) acc[u][e] += gi * v[e];
            }
          }
        }
      });
      PS(8);
      wait_bar(kSigXs);  // the exchanger is done with its xs, where the sums land
      if (own_f) {
#pragma unroll
        for (int u = 0; u < kDownPacks; ++u) {
          const int col = (threadIdx.x + u * kConsumers) * kPack;
          if (col < c) {
            st_async4(peer_addr(mail_down) + 4u * col, acc[u][0], acc[u][1], acc[u][2], acc[u][3], mail(kMailDown));
            st_async4(peer_addr(mail_down) + 4u * (col + 4), acc[u][4], acc[u][5], acc[u][6], acc[u][7], mail(kMailDown));
          }
        }
      }
      PS(9);
    }
    take_x(kSigX);
    const size_t vocab0 = share(a.vocab).begin;
    consume_by_warp(plan.lm_head(), ring, [&](const T* w, size_t r0, int n) {
      gemv_piece_warp(w, r0, n, c, xs, xh, [&](size_t r, float v) { a.logits[vocab0 + r] = from_float<T>(v); });
    });
  } else {
    // The exchanger.
#if LLAMA_PAIRS_SELF
    Ring ring{smem_raw, full, empty, p.slots};
#else
    DrainToPeer ring{{smem_raw, full, empty, p.slots}, peer_addr(empty2)};
#endif
    auto signal = [&](int i) {  // after a barrier of the consumers
      if (threadIdx.x == 0) peer_arrive(peer_bars + 8u * i);
    };
    auto expect = [&](int i, size_t bytes) {
      if (threadIdx.x == 0) sm90::mbar_arrive_expect_tx(bar(i), static_cast<uint32_t>(bytes));
    };
    unsigned generation = 0;
    auto arrive = [&] { grid_arrive<Consumers>(); };
    auto wait = [&] { wait_count<Consumers>(&g_barrier_count, ++generation * (gridDim.x >> 1)); };  // one a pair
    // 32-bit row numbers (the state kept across the layers is what makes this role spill).
    // Row numbers kept in shared memory, not registers (read a few times a layer).
    unsigned* rows = reinterpret_cast<unsigned*>(mail_part + kMailPartFloats) + kPairSpanBytes / 4;
    if (threadIdx.x == 0) {
      rows[0] = static_cast<unsigned>(share(plan.qkv_rows()).begin);
      rows[1] = static_cast<unsigned>(share(plan.qkv_rows(), other).begin);
      rows[2] = static_cast<unsigned>(share(plan.qkv_rows(), other).size());
      rows[3] = static_cast<unsigned>(share(c).begin);
      rows[4] = static_cast<unsigned>(share(c, other).end);
      rows[5] = (blockIdx.x >> 1) % kResidualCopies * static_cast<unsigned>(c);  // the pair's copy of the residual
    }
    Consumers::sync();
    const bool peer_f = ffn_cols(a.f, p.ffn_chunk, other).size() > 0, any_f = own_f || peer_f;
    auto stage_residual = [&](const float* x) { stage_vector_sum<kConsumers, kResidualCopies>(xs, x, c); };
    auto stage_gamma = [&](const T* g) { stage_values(ng, g, size_t(c)); };
    stage_gamma(a.attn_norm);
    for (int i = threadIdx.x; i < c; i += kConsumers) {
      const float v = to_float(a.embed[a.token * c + i]);
      xs[i] = v;
      if (blockIdx.x == 0) {
        a.x_f[i] = v;
        for (int k = 1; k < kResidualCopies; ++k) a.x_f[size_t(k) * c + i] = 0.f;
      }
    }
    for (size_t l = 0; l < a.layers; ++l) {
      // 1. RMSNorm (for both blocks) + QKV.
      for (unsigned r = rows[3] + threadIdx.x; r < rows[4]; r += kConsumers)
        for (int k = 0; k < kResidualCopies; ++k) x_next[size_t(k) * c + r] = 0.f;
      if (l > 0) stage_residual(x_cur);
      rmsnorm_smem<Consumers>(xs, ng, c, a.eps, red, xh_out);
      PS(0);
      signal(kSigX);
      if (rows[2] > 0) expect(kMailQkv, 4 * rows[2]);
      consume_by_warp(plan.qkv(l), ring, [&](const T* w, size_t r0, int n) {
        gemv_piece_warp(w, r0, n, c, xs, xh, [&](size_t r, float v) { a.qkv_f[rows[0] + r] = v; });
      });
      PS(1);
      if (rows[2] > 0) {
        wait_bar(kMailQkv);
        for (unsigned i = threadIdx.x; i < rows[2]; i += kConsumers) a.qkv_f[rows[1] + i] = mail_qkv[i];
      }
      PS(2);
      arrive();
      stage_gamma(a.ffn_norm + l * c);
      wait();
      signal(kSigB1);
      PS(3);

      // 2. Attention (this block's item, then the issuer's partials published), then the out-projection.
      unsigned* done = g_head_done + l * kMaxHeads;
      const bool peer_item = other < plan.items();
      if (peer_item) expect(kMailPart, 4 * size_t(heads) * kPartFloats);
      if (blockIdx.x < plan.items()) {
        const Item it = plan.item(blockIdx.x);
        item_inputs(l, it);
        Online on = attend_item(plan.kv(l, it), ring, q, it.has_new ? kv_new : nullptr, kv_new + 64, s, heads);
        publish_item(on, opart, a.att_part + (it.h * p.splits + it.chunk) * kPartFloats, done + it.h, heads,
                     p.splits * kPartFloats);
      }
      PS(4);
      if (peer_item) {
        const Item it = plan.item(other);
        wait_bar(kMailPart);
        for (int i = threadIdx.x; i < heads * static_cast<int>(kPartFloats); i += kConsumers) {
          const size_t e = i / kPartFloats, k = i % kPartFloats;
          a.att_part[(it.h * p.splits + it.chunk) * kPartFloats + e * p.splits * kPartFloats + k] = mail_part[i];
        }
        count_done<Consumers>(done + it.h);
      }
      Consumers::sync();
      signal(kSigAttn);
      PS(5);
      const bool peer_wo = other < plan.wo_items();
      const Range peer_cols = peer_wo ? plan.wo_cols(plan.wo_item(other)) : Range{0, 0};
      if (peer_cols.size() > 0) expect(kMailWo, 4 * peer_cols.size());
      const int j = 4 * static_cast<int>(threadIdx.x);
      if (blockIdx.x < plan.wo_items()) {
        const WoItem it = plan.wo_item(blockIdx.x);
        wait_count<Consumers>(done + it.h / p.item_heads * p.item_heads, static_cast<unsigned>(p.splits));
        if (threadIdx.x < 64) q[threadIdx.x] = combine_head(a.att_part + it.h * p.splits * kPartFloats, p.splits, threadIdx.x);
        Consumers::sync();
        const Range cols = plan.wo_cols(it);
        const int ncols = static_cast<int>(cols.size());
        float acc[4] = {};
        consume(plan.wo(l, it), ring, [&](const T* w, size_t r0, int n) {
          if (j < ncols)
            for (int d = 0; d < n; ++d) {
              const float od = q[r0 + d];
              const T* wd = w + size_t(d) * ncols + j;
  #pragma unroll
              for (int e = 0; e < 4; ++e) acc[e] += od * to_float(wd[e]);
            }
        });
        if (j < ncols)
          atomicAdd(reinterpret_cast<float4*>(x_cur + rows[5] + cols.begin + j), make_float4(acc[0], acc[1], acc[2], acc[3]));
      }
      PS(6);
      if (peer_cols.size() > 0) {
        wait_bar(kMailWo);
        if (j < static_cast<int>(peer_cols.size()))
          atomicAdd(reinterpret_cast<float4*>(x_cur + rows[5] + peer_cols.begin + j), *reinterpret_cast<const float4*>(mail_wo + j));
      }
      PS(7);
      arrive();
      wait();

      PS(8);
      // 3. RMSNorm (for both blocks) + gate/up, then the down projection of both blocks' FFN columns.
      if (blockIdx.x == 0 && threadIdx.x < a.heads) done[threadIdx.x] = 0;
      stage_residual(x_cur);
      Consumers::sync();
      for (unsigned r = rows[3] + threadIdx.x; r < rows[4]; r += kConsumers) atomicAdd(x_next + rows[5] + r, xs[r]);
      rmsnorm_smem<Consumers>(xs, ng, c, a.eps, red, xh_out);
      signal(kSigX2);
      PS(9);
      if (peer_f) expect(kMailDown, 4 * size_t(c));
      consume_by_warp(plan.gate_up(l, 0), ring, [&](const T* w, size_t r0, int n) {
        gemv_piece_warp(w, r0, n, c, xs, xh, [&](size_t r, float v) { gs[r] = v; });
      });
      consume_by_warp(plan.gate_up(l, 1), ring, [&](const T* w, size_t r0, int n) {
        gemv_piece_warp(w, r0, n, c, xs, xh, [&](size_t r, float u) { gs[r] = gs[r] / (1.f + expf(-gs[r])) * u; });
      });
      Consumers::sync();
      signal(kSigXs);
      PS(10);
      {
        float acc[kDownPacks][kPack] = {};
        consume(plan.down(l), ring, [&](const T* w, size_t r0, int n) {
          for (int i = 0; i < n; ++i) {
            const float gi = gs[r0 + i];
  #pragma unroll
            for (int u = 0; u < kDownPacks; ++u) {
              const int col = (threadIdx.x + u * kConsumers) * kPack;
              if (col < c) {
                float v[kPack];
                unpack(smem_pack(w + size_t(i) * c + col), v);
  #pragma unroll
                for (int e = 0; e < kPack; ++e) acc[u][e] += gi * v[e];
              }
            }
          }
        });
        PS(11);
        if (peer_f) {
          wait_bar(kMailDown);
  #pragma unroll
          for (int u = 0; u < kDownPacks; ++u) {
            const int col = (threadIdx.x + u * kConsumers) * kPack;
            if (col < c)
  #pragma unroll
              for (int e = 0; e < kPack; ++e) acc[u][e] += mail_down[col + e];
          }
        }
  #pragma unroll
        for (int u = 0; u < kDownPacks; ++u) {
          const int col = (threadIdx.x + u * kConsumers) * kPack;
          if (col < c && any_f) {
            float4* dst = reinterpret_cast<float4*>(x_next + rows[5] + col);
            atomicAdd(dst, make_float4(acc[u][0], acc[u][1], acc[u][2], acc[u][3]));
            atomicAdd(dst + 1, make_float4(acc[u][4], acc[u][5], acc[u][6], acc[u][7]));
          }
        }
      }
      PS(12);
      arrive();
      stage_gamma(l + 1 < a.layers ? a.attn_norm + (l + 1) * c : a.norm_f);
      wait();
      PS(13);
      float* const t = x_cur;
      x_cur = x_next;
      x_next = t;
    }

    // The final RMSNorm (for both blocks) + LM head.
    stage_residual(x_cur);
    rmsnorm_smem<Consumers>(xs, ng, c, a.eps, red, xh_out);
    signal(kSigX);
    const size_t vocab0 = share(a.vocab).begin;
    consume_by_warp(plan.lm_head(), ring, [&](const T* w, size_t r0, int n) {
      gemv_piece_warp(w, r0, n, c, xs, xh, [&](size_t r, float v) { a.logits[vocab0 + r] = from_float<T>(v); });
    });
  }
#ifdef LLAMA_PAIRS_SPANS
  if (threadIdx.x == 0) {
    for (int k = 0; k < 15; ++k) g_pair_span[blockIdx.x][k] = ps[k];
    __threadfence();
    if (atomicAdd(&g_pair_span_done, 1u) == gridDim.x - 1) {
      __threadfence();
      for (int role = 0; role < 2; ++role)
        for (int k = 0; k < 15; ++k) {
          double sum = 0;
          for (unsigned b = role; b < gridDim.x; b += 2) sum += double(g_pair_span[b][k]);
          printf("pairspan %s %2d %10.0f cycles a layer\n", role == 0 ? "exchanger" : "issuer", k,
                 sum / double(gridDim.x / 2) / double(a.layers));
        }
      g_pair_span_done = 0;
    }
  }
#endif
}

template <class T>
__device__ __noinline__ void issuer_consumers(const Params<T>& p, char* smem_raw) {
  pair_consumers<T, true>(p, smem_raw);
}

template <class T>
__global__ void __launch_bounds__(kPairThreads, 1) llama_decode_pairs_kernel(const __grid_constant__ Params<T> p) {
  extern __shared__ __align__(128) char smem_raw[];
  const Plan<T> plan{p};
  const bool issuer = cta_rank() == 1;
  uint64_t* full = reinterpret_cast<uint64_t*>(smem_raw + size_t(p.slots) * kSlotBytes);
  uint64_t* empty = full + p.slots;
  uint64_t* empty2 = empty + p.slots;
  uint64_t* bars = empty2 + p.slots;
  auto bar = [&](int i) { return sm90::smem_addr(bars + i); };
  if (threadIdx.x == 0) {
    for (int i = 0; i < p.slots; ++i) {
      sm90::mbar_init(sm90::smem_addr(full + i), 1);
      sm90::mbar_init(sm90::smem_addr(empty + i), kConsumers);
      sm90::mbar_init(sm90::smem_addr(empty2 + i), kConsumers);
    }
    for (int i = 0; i < kPairBars; ++i) sm90::mbar_init(bar(i), 1);
    sm90::mbar_init_fence();
  }
  cluster_sync();  // both blocks' barriers are ready before either block touches the other's
  if (threadIdx.x >= kConsumers) {
    if (issuer && threadIdx.x < kConsumers + 32) produce(plan, Ring{smem_raw, full, empty, p.slots}, nullptr);
#if LLAMA_PAIRS_SELF
    if (!issuer && threadIdx.x < kConsumers + 32) produce(plan, Ring{smem_raw, full, empty, p.slots}, nullptr);
#else
    if (issuer && threadIdx.x >= kConsumers + 32)
      produce(Plan<T, 1>{p}, FillPeer{{smem_raw, full, empty2, p.slots}, peer_addr(smem_raw), peer_addr(full)}, nullptr);
#endif
  } else if (issuer) {
    issuer_consumers<T>(p, smem_raw);
  } else {
    pair_consumers<T, false>(p, smem_raw);
  }
  cluster_sync();  // no block leaves while its peer may still reach its shared memory
}

#else

template <class T>
__global__ void llama_decode_pairs_kernel(const __grid_constant__ Params<T>) {
  __trap();  // launched only where the sm_90a code exists (refusal)
}

#endif  // FB_SM90A_DEVICE

// Why the pairs kernel cannot run this step with `blocks` blocks, or "" if it can; `slots` gets the ring's size.
template <class T>
std::string pairs_refusal(const LlamaDecodeArgs<T>& a, size_t blocks, int& slots) {
  if (std::string why = refusal(a, blocks, slots); !why.empty()) return why;
  if (blocks < 2 || blocks % 2 != 0) return "the pairs kernel needs an even grid of at least 2 blocks; got " + std::to_string(blocks);
  const size_t heads = item_heads(a.heads / a.kv_heads);
  const AttentionSplit split = key_split(a.pos + 1, a.heads / heads, blocks);
  if (a.heads / heads * split.splits > blocks) return "the pairs kernel takes at most one attention item a block";
  if (a.heads * wo_splits(a.heads, blocks, a.hidden) > blocks) return "the pairs kernel takes at most one out-projection item a block";
  const size_t qkv = a.hidden + 2 * a.kv_heads * kHeadDim;
  if ((qkv + blocks - 1) / blocks * 4 > a.hidden * sizeof(T)) return "the issuer's q|k|v rows exceed the exchanger's γ buffer";
  return slots_refusal(pair_fixed_smem_bytes(a, ffn_chunk(a.f, blocks), kMaxSlots), kConsumerWarps, slots);
}

// Launches the pairs kernel: `blocks` blocks in clusters of 2, cooperatively (co-resident: checked here
// by clusters and by the launch).
template <class T>
void launch_pairs(const LlamaDecodeArgs<T>& a, const LaunchContext& ctx, int blocks, int slots) {
  const auto kernel = llama_decode_pairs_kernel<T>;
  const size_t chunk = ffn_chunk(a.f, static_cast<size_t>(blocks));
  const size_t smem = size_t(slots) * kSlotBytes + pair_fixed_smem_bytes(a, chunk, slots);
  const size_t heads = item_heads(a.heads / a.kv_heads);
  const AttentionSplit split = key_split(a.pos + 1, a.heads / heads, static_cast<size_t>(blocks));
  const Params<T> p{a, split.chunk, split.splits, heads, wo_splits(a.heads, static_cast<size_t>(blocks), a.hidden),
                    chunk, slots};
  FB_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(blocks);
  cfg.blockDim = dim3(kPairThreads);
  cfg.dynamicSmemBytes = smem;
  cfg.stream = static_cast<cudaStream_t>(ctx.stream);
  cudaLaunchAttribute attrs[2];
  attrs[0].id = cudaLaunchAttributeClusterDimension;
  attrs[0].val.clusterDim.x = 2;
  attrs[0].val.clusterDim.y = 1;
  attrs[0].val.clusterDim.z = 1;
  attrs[1].id = cudaLaunchAttributeCooperative;
  attrs[1].val.cooperative = 1;
  cfg.attrs = attrs;
  cfg.numAttrs = 1;
  int clusters = 0;
  FB_CUDA_CHECK(cudaOccupancyMaxActiveClusters(&clusters, kernel, &cfg));
  if (2 * clusters < blocks)
    throw std::runtime_error("llama_decode fused (ring, pairs): the persistent grid needs " + std::to_string(blocks / 2) +
                             " co-resident clusters of 2; the device holds " + std::to_string(clusters));
  cfg.numAttrs = 2;
  zero_barrier(cfg.stream);
  FB_CUDA_CHECK(cudaLaunchKernelEx(&cfg, kernel, p));
}

}  // namespace fusebench::kernels::llama::ring
