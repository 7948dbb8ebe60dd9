// The fused Llama decode step on Hopper: gpt2_decode's ring kernel (gpt2_decode_ring.cuh: a producer warp
// streams every weight and cached K/V row into a shared-memory ring with bulk copies, ahead of the
// activations; 8 consumer warps take the pieces in the same order) with the Llama layer. Its machinery —
// the ring, the plan walk, the GEMV pieces, the online softmax, the grid barrier and head counters — is
// gpt2_decode's, used as it is; what differs is the plan and the consumers' stages:
// 1. RMSNorm (every block normalizes x itself) + QKV, rows owned by blocks: c query rows, then kv key and
//    kv value rows (grouped-query attention);                                                — barrier —
// 2. attention over the cache, (K/V head, chunk of keys) items: the item turns the q of the K/V head's
//    query heads by RoPE (up to kMaxItemHeads at once: they share its reads of the cache), and the chunk
//    holding pos turns the new key and writes it and the value into the cache; partials published with
//    per-(layer, K/V head) counters; then (query head, run of outputs) items: the head's out-projection
//    rows once its K/V head is complete, added into the fp32 residual;                    — barrier —
// 3. RMSNorm + gate and up GEMVs for the block's own FFN columns, silu(gate)·up, then those columns' rows
//    of W_down (stored in × out: one contiguous run; split-K over the blocks), added into the other
//    buffer of the residual stream;                                                        — barrier —
// then the final RMSNorm and the LM head over the tied embedding. Three grid barriers a layer, as gpt2's.
// No biases. docs/llama-decode.md has the design and where it stands; docs/llama-decode-tries.md the measurements.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "../gpt2_decode/gpt2_decode_ring.cuh"
#include "llama_decode.h"

namespace fusebench::kernels::llama::ring {

using namespace ::fusebench::kernels::gpt2;
using namespace ::fusebench::kernels::gpt2::ring;

// A consumer thread holds 4 of the out-projection's outputs (an item's share of c) and kDownPacks packs of
// the down projection's c outputs. An out-projection item takes at most kMaxWoOutputs outputs (4 a thread,
// less a pack of rounding to whole packs): wo_splits gives a query head at least min_splits(hidden) items.
constexpr size_t kMaxWoOutputs = 1016;
static_assert(kMaxWoOutputs + kPack <= size_t{4} * kConsumers, "an item's outputs, in whole packs, fit the threads");
inline size_t min_splits(size_t hidden) { return (hidden + kMaxWoOutputs - 1) / kMaxWoOutputs; }
constexpr int kDownPacks = 4;
// The attention's scratch (q, scores, the new key and value, the warps' partial outputs), in floats. It
// lives in the GEMV input's space, which the attention stage does not use.
constexpr size_t kAttnScratchFloats = kMaxItemHeads * 64 + kMaxItemHeads * kScoreStride + 128 + kConsumerWarps * 64;
// A block's shared memory after the ring's barriers, in floats from its start: x, the GEMV input (or the
// attention's scratch); from `ng` the next norm's γ in T; from `gs` silu(gate)·up of the block's
// `ffn_chunk` FFN columns; from `rope` RoPE's cos/sin (64); from `red` the reduction scratch (32); from
// `xh` the GEMV input in T (16-bit T only); `end` floats in all. The kernel and fixed_smem_bytes both
// take it from here.
struct SmemLayout {
  size_t ng, gs, rope, red, xh, end;
};
template <class T>
__host__ __device__ constexpr SmemLayout smem_layout(size_t c, size_t ffn_chunk) {
  const size_t ng = c > kAttnScratchFloats ? c : kAttnScratchFloats;
  const size_t gs = ng + (c * sizeof(T) + 15) / 16 * 4;
  const size_t rope = gs + ((ffn_chunk + 3) & ~size_t{3});
  const size_t red = rope + 64, xh = red + 32;
  return {ng, gs, rope, red, xh, xh + (sizeof(T) == 2 ? c * sizeof(T) / sizeof(float) : 0)};
}

template <class T>
struct Params {
  LlamaDecodeArgs<T> a;
  size_t chunk, splits;  // keys of an attention item, items (chunks of keys) a pass
  size_t item_heads;     // query heads an attention item serves: a pass of its K/V head's group
  size_t wo_splits;      // out-projection items a query head
  size_t ffn_chunk;      // FFN columns a block owns (ffn_chunk(f, blocks))
  int slots;
};

// Query heads an attention item serves: the largest power of two that divides the group, at most
// kMaxItemHeads. The group's heads take group / item_heads passes, each reading the K/V head's cache.
inline size_t item_heads(size_t group) {
  size_t h = 1;
  while (2 * h <= size_t{kMaxItemHeads} && group % (2 * h) == 0) h *= 2;
  return h;
}
// The attention's split: as many chunks of keys a pass as give every block at most one item (at most
// kMaxChunk keys a chunk, so a long cache gives some blocks more).
inline AttentionSplit key_split(size_t keys, size_t passes, size_t blocks) {
  const size_t want = std::max<size_t>(1, blocks / passes);
  const size_t chunk = std::clamp((keys + want - 1) / want, kMinChunk, kMaxChunk);
  return {chunk, (keys + chunk - 1) / chunk};
}
// The out-projection's split: runs of outputs a query head, one item a block where the grid allows, and at
// least min_splits(hidden), so that an item's outputs fit its threads.
inline size_t wo_splits(size_t heads, size_t blocks, size_t hidden) {
  return std::max(std::max<size_t>(1, blocks / heads), min_splits(hidden));
}

// An out-projection item: query head h, the part-th of its runs of outputs.
struct WoItem {
  size_t h, part;
};

// What this block streams, in order: the same calls make the producer's schedule and the consumers'.
template <class T>
struct Plan {
  const Params<T>& p;
  static constexpr bool kCpAsync = false;  // bulk copies: cp.async made the step 5% slower (docs/llama-decode-tries.md)
  static constexpr int kHeadDim = static_cast<int>(::fusebench::kHeadDim);
  __device__ size_t kv_width() const { return p.a.kv_heads * kHeadDim; }
  __device__ size_t qkv_rows() const { return p.a.hidden + 2 * kv_width(); }
  __device__ size_t group() const { return p.a.heads / p.a.kv_heads; }
  // Attention item i: pass i / splits (query heads item_heads·(i / splits) onwards, of one K/V head), the
  // (i mod splits)-th chunk of keys; Item::h is the pass's first query head.
  __device__ size_t items() const { return p.a.heads / p.item_heads * p.splits; }
  __device__ Item item(size_t i) const {
    const size_t keys = p.a.pos + 1, chunk = i % p.splits, k0 = chunk * p.chunk;
    const size_t k1 = k0 + p.chunk < keys ? k0 + p.chunk : keys;
    return {static_cast<int>(i / p.splits * p.item_heads), chunk, k0, k1 < p.a.pos ? k1 : p.a.pos, k1 == keys};
  }
  __device__ size_t wo_items() const { return p.a.heads * p.wo_splits; }
  __device__ WoItem wo_item(size_t i) const { return {i / p.wo_splits, i % p.wo_splits}; }
  __device__ Segment<T> rows(const T* w, size_t n, size_t k) const {
    const Range r = share(n);
    return {w + r.begin * k, nullptr, k, static_cast<int>(k), r.size(), true};
  }
  __device__ Segment<T> qkv(size_t l) const { return rows(p.a.w_qkv + l * qkv_rows() * p.a.hidden, qkv_rows(), p.a.hidden); }
  // The item's cached keys and values: 64 columns of K/V head h / group, rows k0 .. cached_end − 1.
  __device__ Segment<T> kv(size_t l, const Item& it) const {
    const size_t off = l * p.a.ctx * kv_width() + it.k0 * kv_width() + (it.h / group()) * kHeadDim;
    return {p.a.k_cache + off, p.a.v_cache + off, kv_width(), kHeadDim, it.cached_end > it.k0 ? it.cached_end - it.k0 : 0};
  }
  // An out-projection item's outputs: its part of the c outputs, in whole packs (each row of the piece a
  // 16-byte multiple at a 16-byte boundary, as bulk copies take them; some items may get none).
  __device__ Range wo_cols(const WoItem& it) const {
    const size_t c = p.a.hidden;
    return {(c * it.part / p.wo_splits) & ~size_t{kPack - 1}, (c * (it.part + 1) / p.wo_splits) & ~size_t{kPack - 1}};
  }
  // Wo (in × out) rows 64h .. 64h + 63, the inputs of query head h, over the item's outputs.
  __device__ Segment<T> wo(size_t l, const WoItem& it) const {
    const size_t c = p.a.hidden;
    const Range r = wo_cols(it);
    const int cols = static_cast<int>(r.size());
    return {p.a.w_o + l * c * c + it.h * kHeadDim * c + r.begin, nullptr, c, cols > 0 ? cols : kPack,
            cols > 0 ? size_t(kHeadDim) : 0};
  }
  // The gate (half 0) or up (half 1) rows of this block's FFN columns.
  __device__ Segment<T> gate_up(size_t l, size_t half) const {
    const Range r = ffn_cols(p.a.f, p.ffn_chunk);
    const size_t c = p.a.hidden;
    return {p.a.w_gu + (l * 2 * p.a.f + half * p.a.f + r.begin) * c, nullptr, c, static_cast<int>(c), r.size(), true};
  }
  // W_down (in × out) rows of this block's FFN columns: contiguous, c outputs each.
  __device__ Segment<T> down(size_t l) const {
    const Range r = ffn_cols(p.a.f, p.ffn_chunk);
    const size_t c = p.a.hidden;
    return {p.a.w_down + (l * p.a.f + r.begin) * c, nullptr, c, static_cast<int>(c), r.size()};
  }
  __device__ Segment<T> lm_head() const { return rows(p.a.embed, p.a.vocab, p.a.hidden); }
  template <class F>
  __device__ void for_each(F&& f) const {
    for (size_t l = 0; l < p.a.layers; ++l) {
      f(qkv(l));
      for (size_t i = blockIdx.x; i < items(); i += gridDim.x) f(kv(l, item(i)));
      for (size_t i = blockIdx.x; i < wo_items(); i += gridDim.x) f(wo(l, wo_item(i)));
      f(gate_up(l, 0));
      f(gate_up(l, 1));
      f(down(l));
    }
    f(lm_head());
  }
};

#ifdef LLAMA_DECODE_SPANS
// A measuring aid (never in a normal build): thread 0 of every block adds the SM cycles of each span of the
// step (below, summed over the layers) into g_span_sum and its own row of g_span_block; each grid barrier is
// two spans, its arrival (the block's barrier and thread 0's release add) and the rest (the next norm's γ,
// then the wait). At each barrier of each layer a block offers that rest to g_last (the shortest is the last
// block to arrive, and its rest is the barrier's release); the last block to finish prints the spans' means
// over the blocks, their spread over the blocks (min, median, max, and the block and SM of the max), and
// each barrier's last block and its rest in every layer, then clears them. Run it with
// scripts/device/llama-decode-spans.sh. (Declared in every compilation pass: the host's registers them.)
constexpr int kSpans = 16;
constexpr unsigned kSpanBlocks = 1024;  // blocks with a row of their own (the rest are in the sums only)
static __device__ unsigned long long g_span_sum[kSpans];
static __device__ unsigned long long g_span_block[kSpanBlocks][kSpans];
static __device__ unsigned g_span_smid[kSpanBlocks];
constexpr unsigned long long kWaitTop = (1ull << 40) - 1;  // waits are clamped to it in g_last
static __device__ unsigned long long g_last[kMaxLayers][3];  // max of (kWaitTop − wait) << 24 | block
static __device__ unsigned g_span_blocks;
#endif

#ifdef FB_SM90A_DEVICE

#ifdef LLAMA_DECODE_SPANS
#define LLAMA_SPAN(k)                     \
  do {                                    \
    if (threadIdx.x == 0) {               \
      const long long now = clock64();    \
      span[k] += now - span_t;            \
      span_last = now - span_t;           \
      span_t = now;                       \
    }                                     \
  } while (0)
// After grid barrier b (0–2) of layer l: the span after the block's arrival (the γ, then the wait), offered
// to g_last[l][b].
#define LLAMA_BARRIER(b, l)                                                                            \
  do {                                                                                                 \
    if (threadIdx.x == 0 && (l) < kMaxLayers) {                                                        \
      const unsigned long long w = span_last < static_cast<long long>(kWaitTop) ? span_last : kWaitTop; \
      atomicMax(&g_last[l][b], (kWaitTop - w) << 24 | blockIdx.x);                                     \
    }                                                                                                  \
  } while (0)
__device__ void report_spans(const long long (&span)[kSpans], size_t layers) {
  if (threadIdx.x != 0) return;
  for (int k = 0; k < kSpans; ++k) atomicAdd(&g_span_sum[k], static_cast<unsigned long long>(span[k]));
  if (blockIdx.x < kSpanBlocks) {
    for (int k = 0; k < kSpans; ++k) g_span_block[blockIdx.x][k] = static_cast<unsigned long long>(span[k]);
    unsigned smid;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
    g_span_smid[blockIdx.x] = smid;
  }
  __threadfence();
  if (atomicAdd(&g_span_blocks, 1u) != gridDim.x - 1) return;
  __threadfence();
  const char* names[kSpans] = {"x+norm",    "QKV pieces",    "barrier 1",      "attention pieces", "head wait",
                               "combine",   "Wo pieces",     "barrier 2",      "FFN x+norm",       "gate/up pieces",
                               "down pieces", "barrier 3", "final norm+LM head", "barrier 1 arrive",
                               "barrier 2 arrive", "barrier 3 arrive"};
  const unsigned rows = gridDim.x < kSpanBlocks ? gridDim.x : kSpanBlocks;
  unsigned long long total = 0;
  for (int k = 0; k < kSpans; ++k) total += g_span_sum[k];
  for (int k = 0; k < kSpans; ++k) {
    // The spread over the blocks: the k-th order statistics by counting (rows is at most a few hundred).
    unsigned long long lo = ~0ull, hi = 0, med = 0;
    unsigned hi_block = 0;
    for (unsigned b = 0; b < rows; ++b) {
      const unsigned long long v = g_span_block[b][k];
      if (v < lo) lo = v;
      if (v > hi) hi = v, hi_block = b;
      unsigned below = 0, equal = 0;
      for (unsigned o = 0; o < rows; ++o) {
        below += g_span_block[o][k] < v;
        equal += g_span_block[o][k] == v;
      }
      if (below <= rows / 2 && rows / 2 < below + equal) med = v;
    }
    printf("span %-22s %10.0f cycles a block (%5.1f%%); over the blocks min %llu, median %llu, max %llu (block %u, SM %u)\n",
           names[k], double(g_span_sum[k]) / gridDim.x, 100.0 * double(g_span_sum[k]) / double(total), lo, med, hi,
           hi_block, g_span_smid[hi_block]);
    g_span_sum[k] = 0;
  }
  printf("span total %.0f cycles a block\n", double(total) / gridDim.x);
  const size_t n = layers < kMaxLayers ? layers : kMaxLayers;
  for (int b = 0; b < 3; ++b) {
    // The last block's span after its arrival (the next norm's γ staged, then the wait): the barrier's release.
    printf("barrier %d, the last block to arrive in each layer (block/SM/its wait in cycles):", b + 1);
    unsigned long long release = 0;
    for (size_t l = 0; l < n; ++l) {
      const unsigned block = static_cast<unsigned>(g_last[l][b] & 0xFFFFFF);
      const unsigned long long wait = kWaitTop - (g_last[l][b] >> 24);
      release += wait;
      printf(" %u/%u/%llu", block, block < rows ? g_span_smid[block] : 0u, wait);
      g_last[l][b] = 0;
    }
    printf("; mean release %.0f cycles\n", n > 0 ? double(release) / double(n) : 0.0);
  }
  g_span_blocks = 0;
}
#else
#define LLAMA_SPAN(k)
#define LLAMA_BARRIER(b, l)
#endif

// xs[0 .. n) ← xs / √(mean(xs²) + ε)·γ in place over the group G (xs and γ in shared memory, written by G's
// threads before the call); xh, when given, gets the result rounded to H as well (a tensor-core GEMV's B).
template <class G, class H>
__device__ inline void rmsnorm_smem(float* xs, const H* gamma, int n, float eps, float* red, H* xh) {
  G::sync();
  float s2 = 0.f;
  for (int i = threadIdx.x; i < n; i += G::size()) s2 += xs[i] * xs[i];
  const float rms = rsqrtf(block_sum2<G>(s2, 0.f, red).x / static_cast<float>(n) + eps);
  for (int i = threadIdx.x; i < n; i += G::size()) {
    const float v = xs[i] * rms * to_float(gamma[i]);
    xs[i] = v;
    if (xh != nullptr) xh[i] = from_float<H>(v);
  }
  G::sync();
}

template <class T>
__global__ void __launch_bounds__(gpt2::ring::kThreads, 1) llama_decode_ring_kernel(const __grid_constant__ Params<T> p) {
  extern __shared__ __align__(128) char smem_raw[];
  const LlamaDecodeArgs<T>& a = p.a;
  const Plan<T> plan{p};
  // bf16 and fp32: 272 bytes (nvcc 13.0), offset 16 within 256 bytes, which H100s measured alike with 32,
  // 0.3–0.9% ahead of none and up to 5% ahead of the worst offset. fp16: 400 bytes, offset 144, 0.8% ahead
  // of 16 (past its first ~5,000 instructions, its code sits 384 bytes before bf16's).
  // docs/llama-decode-tries.md, "Where the code sits".
  layout_pad<std::is_same_v<T, fp16> ? 10 : 6, 1>(p.slots < 0);
  Ring ring{smem_raw, reinterpret_cast<uint64_t*>(smem_raw + size_t(p.slots) * kSlotBytes), nullptr, p.slots};
  ring.empty = ring.full + p.slots;
  const int c = static_cast<int>(a.hidden), kvw = static_cast<int>(plan.kv_width());
  const int group = static_cast<int>(plan.group());
  float* xs = reinterpret_cast<float*>(ring.empty + p.slots);     // [c] the GEMV input, or the attention's:
  float* q = xs;                                                    // [kMaxItemHeads · 64] q, then a head's output
  float* s = q + kMaxItemHeads * 64;                                // [kMaxItemHeads · kScoreStride] scores
  T* kv_new = reinterpret_cast<T*>(s + kMaxItemHeads * kScoreStride);  // [2 · 64] the new key and value, in T
  float* opart = s + kMaxItemHeads * kScoreStride + 128;            // [kConsumerWarps · 64]
  const SmemLayout m = smem_layout<T>(c, p.ffn_chunk);
  T* ng = reinterpret_cast<T*>(xs + m.ng);                          // [c] the next norm's γ
  float* gs = xs + m.gs;                                            // [ffn_chunk] silu(gate)·up of its columns
  float* rope = xs + m.rope;                                        // [64] cos, then sin, of pair i's angle
  float* red = xs + m.red;                                          // [32]
  T* xh = reinterpret_cast<T*>(xs + m.xh);                          // [c] the GEMV input in T (16-bit T only)
  if (threadIdx.x == 0) {
    for (int i = 0; i < p.slots; ++i) {
      sm90::mbar_init(sm90::smem_addr(ring.full + i), full_arrivals<Plan<T>>());
      sm90::mbar_init(sm90::smem_addr(ring.empty + i), kConsumers);
    }
    sm90::mbar_init_fence();
  }
  __syncthreads();  // the last barrier of the whole block: the producer leaves it after its schedule
  if (threadIdx.x >= kConsumers) {
    produce(plan, ring);
    return;
  }

  const size_t cache_layer = a.ctx * size_t(kvw);
#ifdef LLAMA_DECODE_SPANS
  long long span[kSpans] = {}, span_t = clock64(), span_last = 0;
#endif
  unsigned generation = 0;
  auto arrive = [&] { grid_arrive<Consumers>(); };
  auto wait = [&] { grid_wait<Consumers>(++generation); };
  const Range qkv_rows = share(plan.qkv_rows()), f_cols = ffn_cols(a.f, p.ffn_chunk), c_rows = share(c);
  T* const xh_out = sizeof(T) == 2 ? xh : nullptr;  // the norms round their output for the MMAs
  float* x_cur = a.x_f;
  float* x_next = a.x2_f;
  const size_t copy = (blockIdx.x % kResidualCopies) * size_t(c);
  auto stage_residual = [&](const float* x) { stage_vector_sum<kConsumers, kResidualCopies>(xs, x, c); };
  if (threadIdx.x < 32) {  // RoPE's cos and sin at pos, pair i = thread (the angle in double: llama_decode.h)
    double sn, cs;
    sincos(rope_angle(a.pos, threadIdx.x, a.rope_theta), &sn, &cs);
    rope[threadIdx.x] = static_cast<float>(cs);
    rope[32 + threadIdx.x] = static_cast<float>(sn);
  }
  // Element t of consecutive heads (64 values each from v, in L2) turned by RoPE: pairs (i, i + 32).
  auto rotated = [&](const float* v, int t) {
    const int i = t & 31;
    const float x = __ldcg(v + t), y = __ldcg(v + (t ^ 32));
    return (t & 32) == 0 ? x * rope[i] - y * rope[32 + i] : x * rope[i] + y * rope[32 + i];
  };
  auto stage_gamma = [&](const T* g) { stage_values(ng, g, size_t(c)); };
  stage_gamma(a.attn_norm);
  // x = embed[token]: every block for its own norm, block 0 also into the residual.
  for (int i = threadIdx.x; i < c; i += kConsumers) {
    const float v = to_float(a.embed[a.token * c + i]);
    xs[i] = v;
    if (blockIdx.x == 0) {
      a.x_f[i] = v;
      for (int k = 1; k < kResidualCopies; ++k) a.x_f[size_t(k) * c + i] = 0.f;
    }
  }
  for (size_t l = 0; l < a.layers; ++l) {
    // 1. RMSNorm + QKV into qkv_f. x_next's rows of this block start at zero (as gpt2's).
    for (size_t r = c_rows.begin + threadIdx.x; r < c_rows.end; r += kConsumers)
      for (int k = 0; k < kResidualCopies; ++k) x_next[size_t(k) * c + r] = 0.f;
    if (l > 0) stage_residual(x_cur);
    rmsnorm_smem<Consumers>(xs, ng, c, a.eps, red, xh_out);
    LLAMA_SPAN(0);
    consume_by_warp(plan.qkv(l), ring, [&](const T* w, size_t r0, int n) {
      gemv_piece_warp(w, r0, n, c, xs, xh, [&](size_t r, float v) { a.qkv_f[qkv_rows.begin + r] = v; });
    });
    LLAMA_SPAN(1);
    arrive();
    LLAMA_SPAN(13);
    stage_gamma(a.ffn_norm + l * c);
    wait();
    LLAMA_SPAN(2);
    LLAMA_BARRIER(0, l);

    // 2. Attention over the cache, then the out-projection.
    T* kc = a.k_cache + l * cache_layer;
    T* vc = a.v_cache + l * cache_layer;
    unsigned* done = g_head_done + l * kMaxHeads;
    const int heads = static_cast<int>(p.item_heads);
    for (size_t i = blockIdx.x; i < plan.items(); i += gridDim.x) {
      const Item it = plan.item(i);
      const int kvh = it.h / group;
      if (threadIdx.x < 64 * heads) q[threadIdx.x] = rotated(a.qkv_f + it.h * 64, threadIdx.x) * kScoreScale;
      if (threadIdx.x < 64) {
        if (it.has_new) {
          const T k = from_float<T>(rotated(a.qkv_f + c + kvh * 64, threadIdx.x));
          const T v = from_float<T>(__ldcg(a.qkv_f + c + kvw + kvh * 64 + threadIdx.x));
          kv_new[threadIdx.x] = k;
          kv_new[64 + threadIdx.x] = v;
          if (it.h % group == 0) {  // the group's first pass writes the K/V head's row
            kc[a.pos * kvw + kvh * 64 + threadIdx.x] = k;
            vc[a.pos * kvw + kvh * 64 + threadIdx.x] = v;
          }
        }
      }
      Consumers::sync();
      // Every chunk holds a cached key or pos. Head h's partial of chunk k at att_part[h · splits + k]; the
      // pass's counter is its first head's.
      Online on = attend_item(plan.kv(l, it), ring, q, it.has_new ? kv_new : nullptr, kv_new + 64, s, heads);
      publish_item(on, opart, a.att_part + (it.h * p.splits + it.chunk) * kPartFloats, done + it.h, heads,
                   p.splits * kPartFloats);
    }
    LLAMA_SPAN(3);
    for (size_t i = blockIdx.x; i < plan.wo_items(); i += gridDim.x) {
      const WoItem it = plan.wo_item(i);
      wait_count<Consumers>(done + it.h / p.item_heads * p.item_heads, static_cast<unsigned>(p.splits));
      LLAMA_SPAN(4);
      if (threadIdx.x < 64) {
        const float o = combine_head(a.att_part + it.h * p.splits * kPartFloats, p.splits, threadIdx.x);
        q[threadIdx.x] = o;
      }
      Consumers::sync();
      LLAMA_SPAN(5);
      // o_h·Wo[64h .. 64h + 63, the item's outputs]: thread t the outputs 4t .. 4t + 3 (wo_splits gives an
      // item at most kMaxWoOutputs, in whole packs), summed over the pieces' rows in registers, then added
      // into the residual with one 16-byte atomic (sm_90).
      const Range cols = plan.wo_cols(it);
      const int ncols = static_cast<int>(cols.size()), j = 4 * static_cast<int>(threadIdx.x);
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
        atomicAdd(reinterpret_cast<float4*>(x_cur + copy + cols.begin + j), make_float4(acc[0], acc[1], acc[2], acc[3]));
    }
    LLAMA_SPAN(6);
    arrive();
    LLAMA_SPAN(14);
    wait();
    LLAMA_SPAN(7);
    LLAMA_BARRIER(1, l);

    // 3. RMSNorm + gate/up for this block's FFN columns, silu(gate)·up into gs, then the down projection
    // of those columns (their rows of W_down, split-K over the blocks) added into x_next, whose owner adds
    // the residual. Block 0 also clears this layer's head counters (nobody reads them now).
    if (blockIdx.x == 0 && threadIdx.x < a.heads) done[threadIdx.x] = 0;
    stage_residual(x_cur);
    Consumers::sync();  // the owner's rows from the staged x
    for (size_t r = c_rows.begin + threadIdx.x; r < c_rows.end; r += kConsumers) atomicAdd(x_next + copy + r, xs[r]);
    rmsnorm_smem<Consumers>(xs, ng, c, a.eps, red, xh_out);
    LLAMA_SPAN(8);
    // The gate's piece j and the up's piece j hold the same rows and go to the same warp (consume_by_warp).
    consume_by_warp(plan.gate_up(l, 0), ring, [&](const T* w, size_t r0, int n) {
      gemv_piece_warp(w, r0, n, c, xs, xh, [&](size_t r, float v) { gs[r] = v; });
    });
    consume_by_warp(plan.gate_up(l, 1), ring, [&](const T* w, size_t r0, int n) {
      gemv_piece_warp(w, r0, n, c, xs, xh, [&](size_t r, float u) { gs[r] = gs[r] / (1.f + expf(-gs[r])) * u; });
    });
    Consumers::sync();
    LLAMA_SPAN(9);
    // Σ over this block's FFN columns i of g[i]·W_down[i, ·]: thread t the packs t, t + kConsumers, … of
    // the c outputs (at most kDownPacks, refusal), summed over the pieces' rows in registers, then added into
    // x_next (split-K over the blocks).
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
#pragma unroll
      for (int u = 0; u < kDownPacks; ++u) {
        const int col = (threadIdx.x + u * kConsumers) * kPack;
        if (col < c && f_cols.size() > 0) {
          float4* dst = reinterpret_cast<float4*>(x_next + copy + col);
          atomicAdd(dst, make_float4(acc[u][0], acc[u][1], acc[u][2], acc[u][3]));
          atomicAdd(dst + 1, make_float4(acc[u][4], acc[u][5], acc[u][6], acc[u][7]));
        }
      }
    }
    LLAMA_SPAN(10);
    arrive();
    LLAMA_SPAN(15);
    stage_gamma(l + 1 < a.layers ? a.attn_norm + (l + 1) * c : a.norm_f);
    wait();
    LLAMA_SPAN(11);
    LLAMA_BARRIER(2, l);
    float* const t = x_cur;
    x_cur = x_next;
    x_next = t;
  }

  // The final RMSNorm + LM head over the tied embedding.
  stage_residual(x_cur);
  rmsnorm_smem<Consumers>(xs, ng, c, a.eps, red, xh_out);
  const size_t vocab0 = share(a.vocab).begin;
  consume_by_warp(plan.lm_head(), ring, [&](const T* w, size_t r0, int n) {
    gemv_piece_warp(w, r0, n, c, xs, xh, [&](size_t r, float v) { a.logits[vocab0 + r] = from_float<T>(v); });
  });
#ifdef LLAMA_DECODE_SPANS
  Consumers::sync();
  LLAMA_SPAN(12);
  report_spans(span, a.layers);
#endif
}

#else

template <class T>
__global__ void llama_decode_ring_kernel(const __grid_constant__ Params<T>) {
  __trap();  // launched only where the sm_90a code exists (refusal)
}

#endif  // FB_SM90A_DEVICE

// Shared memory of one block besides the ring: smem_layout's, and the ring's barriers.
template <class T>
size_t fixed_smem_bytes(const LlamaDecodeArgs<T>& a, size_t ffn_chunk, int slots) {
  return smem_layout<T>(a.hidden, ffn_chunk).end * sizeof(float) + 2 * size_t(slots) * sizeof(uint64_t);
}

// Why the ring kernel cannot run this step on this device with `blocks` blocks, or "" if it can; `slots`
// gets the ring's size.
template <class T>
std::string refusal(const LlamaDecodeArgs<T>& a, size_t blocks, int& slots) {
  if (std::string why = device_refusal(a.hidden * sizeof(T)); !why.empty()) return why;
  if (a.hidden > size_t(kDownPacks) * kConsumers * kPack)
    return "hidden " + std::to_string(a.hidden) + ": more down-projection outputs than the threads hold (" +
           std::to_string(kDownPacks * kConsumers * kPack) + ")";
  // consume_by_warp's pieces in work at once.
  return slots_refusal(fixed_smem_bytes(a, ffn_chunk(a.f, blocks), kMaxSlots), kConsumerWarps, kMaxSlots, slots);
}

// Launches the ring kernel with `blocks` blocks (co-resident: checked here and by the cooperative launch).
template <class T>
void launch(const LlamaDecodeArgs<T>& a, const LaunchContext& ctx, int blocks, int slots) {
  const auto kernel = llama_decode_ring_kernel<T>;
  const size_t chunk = ffn_chunk(a.f, static_cast<size_t>(blocks));
  const size_t smem = size_t(slots) * kSlotBytes + fixed_smem_bytes(a, chunk, slots);
  const size_t heads = item_heads(a.heads / a.kv_heads);
  const AttentionSplit split = key_split(a.pos + 1, a.heads / heads, static_cast<size_t>(blocks));
  const Params<T> p{a, split.chunk, split.splits, heads, wo_splits(a.heads, static_cast<size_t>(blocks), a.hidden),
                    chunk, slots};
  launch_persistent(kernel, p, blocks, gpt2::ring::kThreads, smem, ctx, "llama_decode fused (ring)");
}

}  // namespace fusebench::kernels::llama::ring
