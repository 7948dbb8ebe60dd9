// The fused GPT-2 decode step on Hopper: one persistent kernel whose weights never wait for an
// activation. Included by gpt2_decode_fused.cu, and its machinery by llama_decode_ring.cuh (each translation
// unit has a grid barrier's device memory of its own: gpt2_decode_sync.cuh).
//
// Block: 8 consumer warps and 1 producer warp, one block per multiprocessor, launched cooperatively.
// The producer walks this block's whole schedule of weight (and cached K/V) rows for the step — per layer
// its Wqkv rows, its attention items' cached keys and values, their out-projection rows, its W1 rows and
// W2 rows; then its LM-head rows — and streams them with bulk copies (cp.async.bulk, TMA's 1-D form) into
// a ring of 16 KiB shared-memory slots, each completing on an mbarrier with its byte count. None of it
// depends on this step's activations (the cache rows read are those before pos), so the producer runs as
// far ahead as the ring allows (≈ 190 KiB a block, 25 MB over an H100: more than a layer) and memory
// keeps streaming while the consumers wait at a grid barrier. The consumers take the pieces in the same
// order and give each slot back (one arrival per thread) when they are done with it; the last piece before
// a release (an arrival, a publish) only once that release has passed, so that it waits for no refill.
//
// The consumers' stages and their dependency points are the register-streaming kernel's, but for FFN2:
// 1. LN1 (every block normalizes x itself) + QKV, rows owned by blocks; 2. attention
// over the cache, (head, chunk of keys) items with an online softmax over the pieces, the partials
// published with per-(layer, head) counters, then each item's share of the head's out-projection rows
// once its head is complete, added into the fp32 residual with atomics (bo by the block owning the row);
// 3. LN2 + FFN1 + GELU for the block's own FFN columns, then FFN2 of the same columns (W2's column slab,
// split-K over the blocks: no barrier between the two) added into the next buffer of the residual stream.
// Three grid barriers a layer. Then LNf and the LM head.
// In bf16/fp16 the GEMV pieces (QKV, W1, the LM head, of at most 16 rows) and the out-projection rows run on
// tensor cores (mma.sync m16n8k16, the vector rounded to T as B); in fp32 a piece gives each warp two rows at
// a time, reduced in registers. Biases and LayerNorm parameters are staged while the block waits at the
// barrier before their stage.
// docs/gpt2-decode.md has the design and where it stands; docs/gpt2-decode-tries.md the measurements.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "common/constants.h"
#include "common/gelu.h"
#include "cuda/async_copy.cuh"
#include "cuda/cuda_check.cuh"
#include "cuda/mma_ops.cuh"
#include "cuda/sm90_ops.cuh"
#include "cuda/tensor_map.cuh"
#include "gpt2_decode.h"
#include "gpt2_decode_device.cuh"
#include "gpt2_decode_gemv.cuh"
#include "gpt2_decode_sync.cuh"

namespace fusebench::kernels::gpt2::ring {

#ifndef GPT2_RING_CONSUMER_WARPS
#define GPT2_RING_CONSUMER_WARPS 8
#endif
constexpr int kConsumerWarps = GPT2_RING_CONSUMER_WARPS;
// Registers: a multiprocessor's four schedulers each hold a quarter of the register file and take every
// fourth warp, so 13–16 warps a block get 128 registers a thread (12 and 15 consumer warps spill a few
// bytes) and 17 get 96 (and spill more). 8 is the measured best (docs/gpt2-decode-tries.md).
static_assert(kConsumerWarps <= 15, "block_sum2 takes at most 16 warps, and 17 in a block would spill");
constexpr int kConsumers = kConsumerWarps * 32;
constexpr int kThreads = kConsumers + 32;  // and the producer warp
constexpr unsigned kSlotBytes = 16 << 10;
constexpr int kMaxSlots = 16;
// The most slots gpt2_decode's ring takes, though 13 fit: fewer bytes in flight leave the chain's round trips
// less to wait behind, and 10 (160 KiB) still hold more than a block's share of a GPT-2 small layer
// (~119 KB). 10 was 1.0–1.5% faster than 13 in every precision on an H100 (docs/gpt2-decode-tries.md,
// "The ring's depth"); llama_decode's ring keeps every slot that fits (10 and 12 measured alike there).
constexpr int kGpt2Slots = 10;
constexpr int kMaxBox = 256;  // elements along a dimension of a TMA box
// Rows of a GEMV piece: at most a thread a row in W2's column slabs, and one TMA box.
constexpr int kMaxPieceRows = kConsumers < kMaxBox ? kConsumers : kMaxBox;
constexpr int kMaxPieceKeys = 64;   // keys of an attention piece (their scores in shared memory)
constexpr int kGroups = kConsumers / 8;  // groups of 8 lanes (one key or one 64-wide row each)
// Query heads one attention item may serve at once, sharing its reads of the cache (grouped-query
// attention): each of them gets whole warps (kConsumerWarps / heads), and its scores kScoreStride floats.
constexpr int kMaxItemHeads = 4;
constexpr int kScoreStride = 2 * kMaxPieceKeys;
static_assert(kConsumerWarps % kMaxItemHeads == 0, "an item's heads get whole warps");
using Consumers = FirstThreads<kConsumers>;

// Rows a block streams: row i < rows starts at base + i·stride and is `elems` elements long; `base2`, when
// set, is a second set of rows taken with the first, piece by piece (the values beside the keys).
template <class T>
struct Segment {
  using Elem = T;
  const T* base;
  const T* base2;
  size_t stride;
  int elems;
  size_t rows;
  bool gemv = false;  // a GEMV's rows (QKV, W1, LM head): pieces of at most kMmaRows rows in 16-bit types
  // Rows that come as tensor copies instead (map set: a W2 column slab, and the attention's pieces where
  // kTensorKv): a piece is the box at (map_col, map_row + first row, map_layer) of map, `elems` columns a
  // row (the rows of a piece are dense in the slot), and for a pair the same box of map2 after it, at
  // piece_rows(elems, true) rows: a piece's second rows start there whatever its own row count. A box is
  // always whole: rows past the tensor arrive as zeros, and rows past the piece's own are copied but nobody
  // reads them (among them, near pos, the cache row this step writes).
  const void* map = nullptr;
  const void* map2 = nullptr;
  int map_col = 0, map_row = 0, map_layer = 0;
  // Where the producer copies with cp.async (a plan's kCpAsync): a box's columns that exist (0: all `elems`;
  // the others are left unwritten, where a tensor copy writes zeros), and whether this segment still comes
  // as bulk copies (the LM head: no release follows it, and it needs the full copy rate).
  int valid_elems = 0;
  bool bulk = false;
};
template <class T>
__host__ __device__ constexpr int piece_rows(int elems, bool paired) {
  const int fit = static_cast<int>(kSlotBytes / (elems * sizeof(T) * (paired ? 2 : 1)));
  const int cap = paired ? kMaxPieceKeys : kMaxPieceRows;
  return fit < cap ? fit : cap;
}
// Rows of one tensor-core GEMV piece (16-bit types): the M of an m16n8k16 MMA.
constexpr int kMmaRows = 16;
// The pieces of a segment in order, fn(first row, rows): the one walk both the producer and the consumers
// take, so their schedules cannot drift apart.
template <class T, class F>
__device__ __forceinline__ void for_each_piece(const Segment<T>& s, F&& fn) {
  const int fit = piece_rows<T>(s.elems, s.base2 != nullptr);
  const size_t per = static_cast<size_t>(s.gemv && sizeof(T) == 2 && fit > kMmaRows ? kMmaRows : fit);
  for (size_t r0 = 0; r0 < s.rows; r0 += per) fn(r0, static_cast<int>(s.rows - r0 < per ? s.rows - r0 : per));
}

struct Range {
  size_t begin, end;
  __device__ size_t size() const { return end - begin; }
};
// Block b's share of n rows.
__device__ __forceinline__ Range share(size_t n) {
  return {n * blockIdx.x / gridDim.x, n * (blockIdx.x + 1) / gridDim.x};
}
// Block b's FFN columns: the b-th run of `chunk` (a multiple of 8, so a run of W2's row is a whole
// number of 16-byte units), clipped to f; empty for the blocks past f.
__device__ __forceinline__ Range ffn_cols(size_t f, size_t chunk) {
  const size_t b = blockIdx.x * chunk;
  return {b < f ? b : f, b + chunk < f ? b + chunk : f};
}

// The attention's pieces (an item's cached K/V rows, its Wo rows: 64 columns of each row) as one tensor copy
// a piece instead of a bulk copy a row: in fp32, whose 256-byte rows make twice as many pieces, it made the
// step 3–4% faster at every code placement; in bf16/fp16 ~1% slower (docs/gpt2-decode-tries.md).
// -DGPT2_RING_TMAP_KV takes it in every precision.
template <class T>
constexpr bool kTensorKv = sizeof(T) == 4
#ifdef GPT2_RING_TMAP_KV
                           || true
#endif
    ;

template <class T>
struct Params {
  Gpt2DecodeArgs<T> a;
  size_t chunk, splits;
  size_t ffn_chunk;  // FFN columns a block owns (ffn_chunk(f, blocks))
  int slots;
  size_t bias_floats;
  // W2 as a 3-D tensor (f, c, layers) for TMA, boxes of ffn_chunk × piece_rows(ffn_chunk): a CUtensorMap's
  // 128 bytes (the type exists in CUDA 12+ only).
  alignas(64) unsigned char w2_map[128];
  // The K and V caches (64 columns × piece_rows(64, true) rows a box) and Wo (64 × piece_rows(64, false)),
  // each a 3-D tensor (columns, rows, layers), where the attention's pieces come as tensor copies (kTensorKv).
  alignas(64) unsigned char k_map[128];
  alignas(64) unsigned char v_map[128];
  alignas(64) unsigned char wo_map[128];
};

// One attention item: head h, the chunk-th run of keys from k0; the cache holds the keys below
// cached_end (< pos), and has_new: the run ends with key pos, taken from q|k|v.
struct Item {
  int h;
  size_t chunk, k0, cached_end;
  bool has_new;
};

// What this block streams, in order: the same calls make the producer's schedule and the consumers'.
template <class T>
struct Plan {
  const Params<T>& p;
  // The producer copies the 16-bit types' pieces with cp.async instead of bulk and tensor copies (all but
  // the LM head's): 1.2–2.3% faster in bf16 and fp16 on an H100, 9% slower in fp32
  // (docs/gpt2-decode-tries.md, "The ring's copies as cp.async").
  static constexpr bool kCpAsync = sizeof(T) == 2;
  __device__ size_t items() const { return p.a.heads * p.splits; }
  __device__ Item item(size_t i) const {
    const Gpt2DecodeArgs<T>& a = p.a;
    const size_t keys = a.pos + 1, chunk = i % p.splits, k0 = chunk * p.chunk;
    const size_t k1 = k0 + p.chunk < keys ? k0 + p.chunk : keys;
    return {static_cast<int>(i / p.splits), chunk, k0, k1 < a.pos ? k1 : a.pos, k1 == keys};
  }
  __device__ Segment<T> rows(const T* w, size_t n, size_t k) const {
    const Range r = share(n);
    return {w + r.begin * k, nullptr, k, static_cast<int>(k), r.size(), true};
  }
  __device__ Segment<T> qkv(size_t l) const { return rows(p.a.w_qkv + l * 3 * p.a.hidden * p.a.hidden, 3 * p.a.hidden, p.a.hidden); }
  // W1's rows of this block's FFN columns.
  __device__ Segment<T> w1(size_t l) const {
    const Range r = ffn_cols(p.a.f, p.ffn_chunk);
    return {p.a.w1 + (l * p.a.f + r.begin) * p.a.hidden, nullptr, p.a.hidden, static_cast<int>(p.a.hidden), r.size(), true};
  }
  // W2's column slab of this block's FFN columns: every one of its c rows, those columns of each.
  __device__ Segment<T> w2(size_t l) const {
    const Range r = ffn_cols(p.a.f, p.ffn_chunk);
    Segment<T> s{p.a.w2 + l * p.a.f * p.a.hidden + r.begin, nullptr, p.a.f, static_cast<int>(p.ffn_chunk),
                 r.size() > 0 ? p.a.hidden : 0};
    s.map = p.w2_map, s.map_col = static_cast<int>(r.begin), s.map_layer = static_cast<int>(l);
    s.valid_elems = static_cast<int>(r.size());
    return s;
  }
  __device__ Segment<T> lm_head() const {
    Segment<T> s = rows(p.a.wte, p.a.vocab, p.a.hidden);
    s.bulk = true;
    return s;
  }
  // The item's cached keys and values (64 columns of head h, rows k0 .. cached_end − 1).
  __device__ Segment<T> kv(size_t l, const Item& it) const {
    const size_t c = p.a.hidden, off = l * p.a.ctx * c + it.k0 * c + it.h * kHeadDim;
    Segment<T> s{p.a.k_cache + off, p.a.v_cache + off, c, kHeadDim, it.cached_end > it.k0 ? it.cached_end - it.k0 : 0};
    if constexpr (kTensorKv<T>) {
      s.map = p.k_map, s.map2 = p.v_map, s.map_col = it.h * kHeadDim, s.map_row = static_cast<int>(it.k0);
      s.map_layer = static_cast<int>(l);
    }
    return s;
  }
  // The item's out-projection rows: its chunk's share of Wo's rows, head h's 64 columns.
  __device__ Range wo_rows(const Item& it) const {
    const size_t c = p.a.hidden;
    return {c * it.chunk / p.splits, c * (it.chunk + 1) / p.splits};
  }
  __device__ Segment<T> wo(size_t l, const Item& it) const {
    const size_t c = p.a.hidden;
    const Range r = wo_rows(it);
    Segment<T> s{p.a.w_o + l * c * c + r.begin * c + it.h * kHeadDim, nullptr, c, kHeadDim, r.size()};
    if constexpr (kTensorKv<T>) {
      s.map = p.wo_map, s.map_col = it.h * kHeadDim, s.map_row = static_cast<int>(r.begin);
      s.map_layer = static_cast<int>(l);
    }
    return s;
  }
  template <class F>
  __device__ void for_each(F&& f) const {
    for (size_t l = 0; l < p.a.layers; ++l) {
      f(qkv(l));
      for (size_t i = blockIdx.x; i < items(); i += gridDim.x) f(kv(l, item(i)));
      for (size_t i = blockIdx.x; i < items(); i += gridDim.x) f(wo(l, item(i)));
      f(w1(l));
      f(w2(l));
    }
    f(lm_head());
  }
  static constexpr int kHeadDim = static_cast<int>(::fusebench::kHeadDim);
};

#ifdef FB_SM90A_DEVICE
namespace sm90 = ::fusebench::cuda::sm90;

// Code placement (docs/llama-decode-tries.md, "Where the code sits"). kStores stores of i and kZeros stores of zero,
// at a ring kernel's start, behind a test that is never true at run time (`never`): they move most of the rest of
// the kernel's code, by an amount the docs list (nvcc 13.0). The fetch of a kernel this large costs by its code's
// offset within 256 bytes: 5% between the best and the worst offset in llama_decode. -DFB_LAYOUT_PAD=n and
// -DFB_LAYOUT_PAD_Z=z override every ring kernel's counts (a measuring aid: an A/B that runs the base moved as well
// tells a change's own cost from what moving the code costs).
template <int kStores, int kZeros>
__device__ __forceinline__ void layout_pad([[maybe_unused]] bool never) {
#ifdef FB_LAYOUT_PAD
  constexpr int stores = FB_LAYOUT_PAD;
#else
  constexpr int stores = kStores;
#endif
#ifdef FB_LAYOUT_PAD_Z
  constexpr int zeros = FB_LAYOUT_PAD_Z;
#else
  constexpr int zeros = kZeros;
#endif
  if constexpr (stores + zeros > 0) {
    if (never) {
#pragma unroll
      for (int i = 0; i < stores; ++i) asm volatile("st.shared.u32 [%0], %1;" ::"r"(4 * i), "r"(i) : "memory");
#pragma unroll
      for (int i = 0; i < zeros; ++i) asm volatile("st.shared.u32 [%0], %1;" ::"r"(4 * i), "r"(0) : "memory");
    }
  }
}

// Waits for a phase of an mbarrier; traps after ~10 s (a schedule mismatch fails instead of hanging).
// kSleep: each test may suspend the thread until the phase completes (the producer, which mostly waits
// for a free slot, so that it does not spin in the issue slots of the consumer warps beside it).
template <bool kSleep = false>
__device__ __forceinline__ void wait_phase(uint32_t bar, uint32_t parity) {
  auto test = [&] { return kSleep ? sm90::mbar_test_sleep(bar, parity, 1u << 20) : sm90::mbar_test(bar, parity); };
  if (test()) return;
  const long long start = clock64();
  while (!test()) {
    if (clock64() - start > kWaitTimeoutCycles) __trap();
  }
}

// The ring of slots: `full` completes when a piece has landed, `empty` when every consumer thread is done.
struct Ring {
  char* data;
  uint64_t* full;
  uint64_t* empty;
  int slots;
  int slot = 0;
  uint32_t phase = 0;
  __device__ void advance() {
    if (++slot == slots) slot = 0, phase ^= 1;
  }
  __device__ uint32_t full_bar() const { return sm90::smem_addr(full + slot); }
  __device__ uint32_t empty_bar() const { return sm90::smem_addr(empty + slot); }
};

// Arrivals that complete a slot's `full` phase: lane 0's, which also sets the bytes its bulk or tensor copies
// will complete; or, where the plan copies with cp.async, each lane's, once its own copies have landed.
template <class P>
__host__ __device__ constexpr unsigned full_arrivals() {
  return P::kCpAsync ? 32 : 1;
}

// One piece (rows r0 .. r0 + n − 1, and its pair's) into the slot at shared address dst with 16-byte cp.async
// (LDGSTS, the generic proxy), the producer warp's lanes taking every 32nd unit: the layout of the bulk and
// tensor copies (rows dense, a pair's rows after piece_rows(elems, true) rows where a map is set, else after
// n), but only the columns that exist (valid_elems). Every row must be a whole number of 16-byte units.
template <class T>
__device__ __forceinline__ void copy_piece(const Segment<T>& s, size_t r0, int n, uint32_t dst, int lane) {
  const bool paired = s.base2 != nullptr;
  const uint32_t row_bytes = static_cast<uint32_t>(s.elems * sizeof(T));
  const int elems = s.valid_elems > 0 ? s.valid_elems : s.elems;
  const uint32_t units = static_cast<uint32_t>(elems * sizeof(T) / 16);
  if (!paired && s.stride == static_cast<size_t>(elems)) {  // one run of n rows: no division a unit
    const char* src = reinterpret_cast<const char*>(s.base + r0 * s.stride);
    for (uint32_t k = lane; k < n * units; k += 32)
      ::fusebench::cuda::cp_async16(dst + 16 * k, src + 16 * k);
    return;
  }
  const uint32_t pair_at = static_cast<uint32_t>(s.map != nullptr ? piece_rows<T>(s.elems, true) : n) * row_bytes;
  const uint32_t all = static_cast<uint32_t>(n * (paired ? 2 : 1)) * units;
  for (uint32_t k = lane; k < all; k += 32) {
    const uint32_t i = k / units, u = k - i * units;
    const bool second = i >= static_cast<uint32_t>(n);
    const T* row = (second ? s.base2 : s.base) + (r0 + (second ? i - n : i)) * s.stride;
    const uint32_t d = dst + (second ? pair_at + (i - n) * row_bytes : i * row_bytes) + 16 * u;
    ::fusebench::cuda::cp_async16(d, reinterpret_cast<const char*>(row) + 16 * u);
  }
}

// The producer warp: every piece of the plan into the ring, in order, as slots come free.
template <class P>
__device__ void produce(const P& plan, Ring ring) {
  const int lane = threadIdx.x & 31;
  plan.for_each([&](const auto& s) {
    using T = typename std::remove_reference_t<decltype(s)>::Elem;
    const bool paired = s.base2 != nullptr;
    const uint32_t row_bytes = static_cast<uint32_t>(s.elems * sizeof(T));
    const int per = piece_rows<T>(s.elems, paired);
    for_each_piece(s, [&](size_t r0, int n) {
      wait_phase<true>(ring.empty_bar(), ring.phase ^ 1);  // every lane: each issues copies into the slot
      const uint32_t dst = sm90::smem_addr(ring.data + size_t(ring.slot) * kSlotBytes);
      if constexpr (P::kCpAsync) {
        if (!s.bulk) {
          copy_piece(s, r0, n, dst, lane);
          ::fusebench::cuda::cp_async_mbarrier_arrive(ring.full_bar());
          ring.advance();
          return;
        }
        if (lane != 0) sm90::mbar_arrive(ring.full_bar());  // a bulk piece: `full` counts every lane here too
      }
      if (s.map != nullptr) {  // one box (and its pair's), always whole
        if (lane == 0) {
          const uint32_t box = per * row_bytes;
          const int row = s.map_row + static_cast<int>(r0);
          sm90::mbar_arrive_expect_tx(ring.full_bar(), box * (paired ? 2 : 1));
          sm90::tma_load_3d(dst, s.map, ring.full_bar(), s.map_col, row, s.map_layer);
          if (paired) sm90::tma_load_3d(dst + box, s.map2, ring.full_bar(), s.map_col, row, s.map_layer);
        }
        ring.advance();
        return;
      }
      if (lane == 0) sm90::mbar_arrive_expect_tx(ring.full_bar(), n * row_bytes * (paired ? 2 : 1));
      __syncwarp();
      if (!paired && s.stride == static_cast<size_t>(s.elems)) {
        if (lane == 0) sm90::bulk_load(dst, s.base + r0 * s.stride, n * row_bytes, ring.full_bar());
      } else {
        for (int i = lane; i < n * (paired ? 2 : 1); i += 32) {
          const T* src = (i < n ? s.base : s.base2) + (r0 + i % n) * s.stride;
          sm90::bulk_load(dst + i * row_bytes, src, row_bytes, ring.full_bar());
        }
      }
      ring.advance();
    });
  });
}

// The consumers' side of a segment: fn(piece, first row, rows) for each piece once it has landed; each
// consumer thread gives the slot back when fn returns. kHoldLast: all but the last piece's; that one's
// `empty` barrier is returned (0 for a segment without pieces), for give_back after a chain point.
template <bool kHoldLast = false, class T, class F>
__device__ __forceinline__ uint32_t consume(const Segment<T>& s, Ring& ring, F&& fn) {
  uint32_t held = 0;
  for_each_piece(s, [&](size_t r0, int n) {
#ifdef GPT2_DECODE_STAGE_TIMES
    const long long t0 = clock64();
    wait_phase(ring.full_bar(), ring.phase);
    if (threadIdx.x == 0) g_ring_wait_clk[blockIdx.x % kTimedBlocks] += clock64() - t0;
#else
    wait_phase(ring.full_bar(), ring.phase);
#endif
    fn(reinterpret_cast<const T*>(ring.data + size_t(ring.slot) * kSlotBytes), r0, n);
    if (kHoldLast && r0 + n == s.rows)
      held = ring.empty_bar();
    else
      sm90::mbar_arrive(ring.empty_bar());  // every consumer thread, once done with the slot
    ring.advance();
  });
  return held;
}

// Every consumer thread gives back a slot that consume<true> held (none if 0).
__device__ __forceinline__ void give_back(uint32_t held) {
  if (held != 0) sm90::mbar_arrive(held);
}

// The consumers' side of a segment whose pieces need no other warp: piece j goes to warp j mod
// kConsumerWarps, which waits for it, calls fn(piece, first row, rows) and gives the slot back (each of its
// lanes arrives for kConsumerWarps threads, so the slot's barrier counts the same kConsumers arrivals); the
// other warps only step the ring past it. The consumers meet at their barrier after every kConsumerWarps
// pieces and at the segment's end: a slot's `full` barrier is waited on by parity, which cannot tell phase
// u from u − 2, so no warp may run a whole ring ahead of a piece still in work. With the ring at least
// kConsumerWarps slots long (the refusal of a kernel that calls this asks it: llama_decode's), a piece's slot was last used by a piece of an
// earlier group, already given back. Eight pieces are in work at once, where consume takes them one after
// the other with the whole block, a barrier each.
template <class T, class F>
__device__ __forceinline__ void consume_by_warp(const Segment<T>& s, Ring& ring, F&& fn) {
  const int warp = threadIdx.x >> 5;
  int j = 0;
  for_each_piece(s, [&](size_t r0, int n) {
    if (j % kConsumerWarps == warp) {
      wait_phase(ring.full_bar(), ring.phase);
      fn(reinterpret_cast<const T*>(ring.data + size_t(ring.slot) * kSlotBytes), r0, n);
      __syncwarp();
      sm90::mbar_arrive(ring.empty_bar(), kConsumerWarps);
    }
    ring.advance();
    if (++j % kConsumerWarps == 0) Consumers::sync();
  });
  if (j % kConsumerWarps != 0) Consumers::sync();
}

// One GEMV piece: rows [0, n) of k elements in shared memory against xs, out(first row + r, Σ). A piece of
// more than half as many rows as warps: a warp takes up to two rows at a time (rows r and r + W: both loads
// in flight, one reduction tree each), lane j the packs j, j + 32, … of a row, out from lane 0. Fewer rows:
// W / n warps share a row by columns and meet in `part` (kConsumerWarps floats) after a group barrier.
template <class T, class Out>
__device__ __forceinline__ void gemv_piece(const T* w, size_t r0, int n, int k, const float* xs, float* part, Out out) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (2 * n <= kConsumerWarps) {
    const int per_row = kConsumerWarps / n, r = warp / per_row, slice = warp % per_row;
    float v = 0.f;
    if (r < n) {
      const T* wr = w + size_t(r) * k;
#pragma unroll 4
      for (int col = (slice * 32 + lane) * kPack; col < k; col += per_row * kSeg) v += dot_pack(smem_pack(wr + col), xs + col);
    }
    v = warp_sum(v);
    if (lane == 0) part[warp] = v;
    Consumers::sync();
    if (threadIdx.x < n) {
      float sum = 0.f;
      for (int i = 0; i < per_row; ++i) sum += part[threadIdx.x * per_row + i];
      out(r0 + threadIdx.x, sum);
    }
    Consumers::sync();  // part is written again by the next piece
    return;
  }
  for (int r = warp; r < n; r += 2 * kConsumerWarps) {
    const int r2 = r + kConsumerWarps;
    const bool two = r2 < n;
    const T* wa = w + size_t(r) * k;
    const T* wb = w + size_t(two ? r2 : r) * k;
    float sa = 0.f, sb = 0.f;
#pragma unroll 4
    for (int col = lane * kPack; col < k; col += kSeg) {
      const Pack<T> pa = smem_pack(wa + col), pb = smem_pack(wb + col);
      sa += dot_pack(pa, xs + col);
      sb += dot_pack(pb, xs + col);
    }
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
      sa += __shfl_xor_sync(0xFFFFFFFFu, sa, o);
      sb += __shfl_xor_sync(0xFFFFFFFFu, sb, o);
    }
    if (lane == 0) {
      out(r0 + r, sa);
      if (two) out(r0 + r2, sb);
    }
  }
}

// The tensor-core GEMV of 16-bit weights: rows of W as the A operand of m16n8k16 MMAs (fp32 accumulators),
// the vector, rounded to T, as every column of B (columns 1–7 of the result are dropped). A lane (g =
// lane / 4, t = lane % 4) loads 8 contiguous elements of rows g and g + 8 and of the vector at 8·t of a
// 32-wide k block and feeds them to two MMAs as their k = 2t, 2t + 1, 2t + 8, 2t + 9: any order of k
// serves a dot product when A and B take the same one. A row's unpacking, FMAs and shuffle tree become two
// MMAs per 16 rows × 32 columns.
//
// 16 rows × one 32-wide k block: wa, wb a lane's 8 elements of rows g and g + 8, x the vector's.
template <class T>
__device__ __forceinline__ void mma_k32(float (&d)[4], const uint4& wa, const uint4& wb, const uint4& x) {
  constexpr bool kHalf = std::is_same_v<T, ::fusebench::fp16>;
  ::fusebench::cuda::mma_m16n8k16<kHalf>(d, wa.x, wb.x, wa.y, wb.y, x.x, x.y);
  ::fusebench::cuda::mma_m16n8k16<kHalf>(d, wa.z, wb.z, wa.w, wb.w, x.z, x.w);
}
// A lane's 8 elements of row `row` (< n, else zeros) at k offset kb + 8·t.
template <class T>
__device__ __forceinline__ uint4 mma_row(const T* w, int row, int n, int k, int kb) {
  const int t = threadIdx.x & 3;
  return row < n ? *reinterpret_cast<const uint4*>(w + size_t(row) * k + kb + 8 * t) : uint4{0u, 0u, 0u, 0u};
}
// d += rows [0, min(n, 16)) of w (k elements each) × x, over the 32-wide k block at kb.
template <class T>
__device__ __forceinline__ void mma_rows_k32(float (&d)[4], const T* w, int n, int k, int kb, const T* x) {
  const int g = (threadIdx.x & 31) >> 2, t = threadIdx.x & 3;
  const uint4 xk = *reinterpret_cast<const uint4*>(x + kb + 8 * t);
  mma_k32<T>(d, mma_row(w, g, n, k, kb), mma_row(w, g + 8, n, k, kb), xk);
}

// A GEMV piece of n ≤ kMmaRows rows, k a multiple of 32, on tensor cores: the warps split k (two
// accumulator chains a warp), their partial sums meet in `part` (2 · kMmaRows · kConsumerWarps floats, a
// half a piece in turn: the barrier of the next piece orders this piece's reads before its writes), and
// thread r < n calls out(first row + r, Σ).
template <class T, class Out>
__device__ __forceinline__ void gemv_piece_mma(const T* w, size_t r0, int n, int k, const T* xh, float* part, Out out) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, g = lane >> 2, t = lane & 3;
  constexpr int kStep = 32 * kConsumerWarps;
  float d0[4] = {}, d1[4] = {};
  for (int kb = 32 * warp; kb < k; kb += 2 * kStep) {
    mma_rows_k32(d0, w, n, k, kb, xh);
    if (kb + kStep < k) mma_rows_k32(d1, w, n, k, kb + kStep, xh);  // warp-uniform
  }
  if (t == 0) {  // column 0 of the result: rows g and g + 8
    part[warp * kMmaRows + g] = d0[0] + d1[0];
    part[warp * kMmaRows + g + 8] = d0[2] + d1[2];
  }
  Consumers::sync();
  if (threadIdx.x < n) {
    float sum = 0.f;
#pragma unroll
    for (int i = 0; i < kConsumerWarps; ++i) sum += part[i * kMmaRows + threadIdx.x];
    out(r0 + threadIdx.x, sum);
  }
}

// A GEMV piece by one warp, out(first row + r, W[r]·x) from one lane per row: n ≤ kMmaRows rows on tensor
// cores (16-bit T, k a multiple of 32; four accumulator chains), else two rows at a time on CUDA cores.
template <class T, class Out>
__device__ __forceinline__ void gemv_piece_warp(const T* w, size_t r0, int n, int k, const float* xs, const T* xh,
                                                Out out) {
  const int lane = threadIdx.x & 31;
  if constexpr (sizeof(T) == 2) {
    if (n <= kMmaRows && k % 32 == 0) {
      const int g = lane >> 2, t = lane & 3;
      float d[4][4] = {};
      int kb = 0;
      for (; kb + 128 <= k; kb += 128) {
#pragma unroll
        for (int u = 0; u < 4; ++u) mma_rows_k32(d[u], w, n, k, kb + 32 * u, xh);
      }
      if (kb < k) mma_rows_k32(d[0], w, n, k, kb, xh);  // k mod 128 (warp-uniform)
      if (kb + 32 < k) mma_rows_k32(d[1], w, n, k, kb + 32, xh);
      if (kb + 64 < k) mma_rows_k32(d[2], w, n, k, kb + 64, xh);
      if (t == 0) {
        if (g < n) out(r0 + g, (d[0][0] + d[1][0]) + (d[2][0] + d[3][0]));
        if (g + 8 < n) out(r0 + g + 8, (d[0][2] + d[1][2]) + (d[2][2] + d[3][2]));
      }
      return;
    }
  }
  for (int r = 0; r < n; r += 2) {
    const bool two = r + 1 < n;
    const T* wa = w + size_t(r) * k;
    const T* wb = w + size_t(two ? r + 1 : r) * k;
    float sa = 0.f, sb = 0.f;
#pragma unroll 4
    for (int col = lane * kPack; col < k; col += kSeg) {
      const Pack<T> pa = smem_pack(wa + col), pb = smem_pack(wb + col);
      sa += dot_pack(pa, xs + col);
      sb += dot_pack(pb, xs + col);
    }
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
      sa += __shfl_xor_sync(0xFFFFFFFFu, sa, o);
      sb += __shfl_xor_sync(0xFFFFFFFFu, sb, o);
    }
    if (lane == 0) {
      out(r0 + r, sa);
      if (two) out(r0 + r + 1, sb);
    }
  }
}

// The GEMV scratch of a block: `red` for the CUDA-core pieces, two halves of `part` in turn for the
// tensor-core pieces, and the vector in T (xh) beside the floats (xs).
template <class T>
struct GemvScratch {
  const float* xs;
  const T* xh;
  float* red;
  float* part;
  unsigned flip = 0;
  // out(first row + r, W[r]·x) for the n rows of a piece of k columns.
  template <class Out>
  __device__ __forceinline__ void piece(const T* w, size_t r0, int n, int k, Out out) {
    if constexpr (sizeof(T) == 2) {
      if (n <= kMmaRows && k % 32 == 0) {
        flip ^= 1u;
        gemv_piece_mma(w, r0, n, k, xh, part + flip * kMmaRows * kConsumerWarps, out);
        return;
      }
    }
    gemv_piece(w, r0, n, k, xs, red, out);
  }
};

// dst[0 .. n) ← src[0 .. n), as floats or in src's type (before a barrier's wait: biases and norm parameters
// do not depend on it).
template <class D, class S>
__device__ __forceinline__ void stage_values(D* dst, const S* src, size_t n) {
  for (size_t i = threadIdx.x; i < n; i += kConsumers) {
    if constexpr (std::is_same_v<D, S>)
      dst[i] = src[i];
    else
      dst[i] = to_float(src[i]);
  }
}

// The online softmax of one item over its pieces: the running max and sum (the same in every thread) and
// each thread's share of Σ p·v (its group of 8 lanes some of the keys, lane l8 dims 8·l8 .. 8·l8 + 7).
struct Online {
  float m = -INFINITY, l = 0.f;
  float o[kPack] = {};
};

// Folds keys [0, n) of a piece (K rows then V rows, 64 elements each, in shared memory) and, if knew is
// set, one more key (knew, vnew, in shared memory) into st, for `heads` query heads of one K/V head (1, 2
// or 4): head e has its q (64 floats, scaled) at q + 64e and its scores at s + e·kScoreStride, and the
// warps e·kConsumerWarps / heads onwards. A thread's group of 8 lanes takes the keys j ≡ g mod (its head's
// groups), lane l8 dims 8·l8 .. 8·l8 + 7.
template <class T>
__device__ void attend_piece(const float* q, const T* K, const T* V, int n, const T* knew, const T* vnew, float* s,
                             Online& st, int heads = 1) {
  const int tid = threadIdx.x, l8 = tid & 7;
  const int per = kGroups / heads;  // groups of 8 lanes a head
  const int e = heads == 1 ? 0 : (tid >> 3) / per, grp = heads == 1 ? tid >> 3 : (tid >> 3) % per;
  q += 64 * e;
  s += kScoreStride * e;
  const int total = n + (knew != nullptr ? 1 : 0);
  auto key = [&](int j) { return j < n ? K + j * 64 : knew; };
  auto val = [&](int j) { return j < n ? V + j * 64 : vnew; };
  // The loop bound is the warp's first group, so all 32 lanes reach the shuffles together.
  for (int j0 = grp & ~3; j0 < total; j0 += per) {
    const int j = j0 + (grp & 3);
    const float d = group8_sum(j < total ? dot_pack(smem_pack(key(j) + l8 * kPack), q + l8 * kPack) : 0.f);
    if (j < total && l8 == 0) s[j] = d;
  }
  Consumers::sync();
  // The piece's max and Σ exp (at most 65 scores) by every warp of the head at once, the same sums in the
  // same order: no second barrier, and no round trip through shared memory for them.
  const int lane = tid & 31;
  float m = -INFINITY;
  for (int j = lane; j < total; j += 32) m = fmaxf(m, s[j]);
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xFFFFFFFFu, m, o));
  m = fmaxf(st.m, m);
  float l = 0.f;
  for (int j = lane; j < total; j += 32) l += __expf(s[j] - m);
  l = warp_sum(l);
  const float scale = __expf(st.m - m);
  st.l = st.l * scale + l;
  st.m = m;
#pragma unroll
  for (int i = 0; i < kPack; ++i) st.o[i] *= scale;
  for (int j = grp; j < total; j += per) {
    const float e = __expf(s[j] - m);
    float v[kPack];
    unpack(smem_pack(val(j) + l8 * kPack), v);
#pragma unroll
    for (int i = 0; i < kPack; ++i) st.o[i] += e * v[i];
  }
  Consumers::sync();  // s is written again by the next piece
}

// One attention item's online softmax over its cached keys (the segment's pieces, as they land) and, at the
// end of the chunk that holds pos, the new key `knew` (null elsewhere) with its value `vnew`, for `heads`
// query heads (attend_piece). q: 64 floats a head, scaled; s: the scores' scratch.
// kHoldLast: the last piece's slot is held, its barrier into *held (consume).
template <bool kHoldLast = false, class T>
__device__ __forceinline__ Online attend_item(const Segment<T>& seg, Ring& ring, const float* q, const T* knew,
                                              const T* vnew, float* s, int heads = 1, uint32_t* held = nullptr) {
  Online on;
  if (seg.rows == 0) {
    attend_piece<T>(q, nullptr, nullptr, 0, knew, vnew, s, on, heads);
  } else {
    const uint32_t h = consume<kHoldLast>(seg, ring, [&](const T* kv, size_t r0, int n) {
      const bool last = r0 + n == seg.rows;
      const int v_row = seg.map != nullptr ? piece_rows<T>(64, true) : n;  // where the values start
      attend_piece<T>(q, kv, kv + v_row * 64, n, last ? knew : nullptr, vnew, s, on, heads);
    });
    if (kHoldLast) *held = h;
  }
  return on;
}

// An item's partial result for each of its `heads` query heads into part + e·stride (max, Σ exp, Σ exp·v
// over its keys), then one more finished item on `counter`. Σ p·v over a head's groups: the warp's four
// groups by shuffles, then the head's warps' sums in opart (kConsumerWarps · 64 floats).
__device__ __forceinline__ void publish_item(Online& on, float* opart, float* part, unsigned* counter, int heads = 1,
                                             size_t stride = 0) {
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
  const bool one = heads == 1;  // (gpt2_decode's kernel: the same code as before items served several heads)
  if (threadIdx.x < 64 * heads) {
    const unsigned e = one ? 0 : threadIdx.x >> 6, d = one ? threadIdx.x : threadIdx.x & 63;
    float sum = 0.f;
    for (int w = 0; w < warps; ++w) sum += opart[(e * warps + w) * 64 + d];
    part[e * stride + (2 + d)] = sum;
  }
  if (one ? threadIdx.x == 0 : lane == 0 && warp % warps == 0) {
    float* const head = part + (one ? 0 : warp / warps * stride);
    head[0] = on.m, head[1] = on.l;
  }
  count_done<Consumers>(counter);
}

template <class T>
__global__ void __launch_bounds__(kThreads, 1) gpt2_decode_ring_kernel(const __grid_constant__ Params<T> p) {
  extern __shared__ __align__(128) char smem_raw[];
  const Gpt2DecodeArgs<T>& a = p.a;
  const Plan<T> plan{p};
  layout_pad<0, 0>(p.slots < 0);
  Ring ring{smem_raw, reinterpret_cast<uint64_t*>(smem_raw + size_t(p.slots) * kSlotBytes), nullptr, p.slots};
  ring.empty = ring.full + p.slots;
  const int c = static_cast<int>(a.hidden), f = static_cast<int>(a.f);
  float* xs = reinterpret_cast<float*>(ring.empty + p.slots);  // [c] the GEMV input
  float* ng = xs + ((c + 3) & ~3);                               // [c] the next LayerNorm's γ
  float* nb = ng + c;                                            // [c] and β
  float* bias = nb + c;                                          // [bias_floats] this block's bias rows
  float* gs = bias + p.bias_floats;                              // [bias_floats] gelu(FFN1) of its FFN columns
  float* b2s = gs + p.bias_floats;                               // [bias_floats] b2 of its residual rows
  float* q = b2s + p.bias_floats;                                // [64] q, then the head's output
  float* s = q + 64;                                             // [kMaxPieceKeys + 1] scores
  T* kv_new = reinterpret_cast<T*>(s + 2 * kMaxPieceKeys);       // [2 · 64] the new key and value, in T
  float* opart = s + 2 * kMaxPieceKeys + 128;                    // [kConsumerWarps · 64]
  float* red = opart + kConsumerWarps * 64;                      // [32]
  T* xh = reinterpret_cast<T*>(red + 32);                        // [c] the GEMV input in T (16-bit T)
  T* qh = xh + c;                                                // [64] the head's output in T
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

  const size_t cache_layer = a.ctx * c;
  unsigned generation = 0;
  auto arrive_then = [&](int stamp_done) {
    FB_STAMP(stamp_done);
    grid_arrive<Consumers>();
  };
  auto wait = [&](int stamp_released) {
    grid_wait<Consumers>(++generation);
    FB_STAMP(stamp_released);
  };
  const Range qkv_rows = share(3 * size_t(c)), f_cols = ffn_cols(f, p.ffn_chunk), c_rows = share(c);
  // The last piece before each chain point (an arrival, a publish) keeps its slot until that point has
  // passed, so that the producer cannot refill it just before: a release waits for every copy its block has
  // in flight (docs/gpt2-decode-tries.md, "The last slot held"; 2.4-4.4% faster). -DGPT2_RING_FREE_LAST gives every
  // slot back at once again (a measuring aid).
#ifdef GPT2_RING_FREE_LAST
  constexpr bool kHold = false;
#else
  constexpr bool kHold = true;
#endif
  GemvScratch<T> gemv{xs, xh, red, opart};
  T* const xh_out = sizeof(T) == 2 ? xh : nullptr;  // the LayerNorms round their output for the MMAs
  // The residual stream in two buffers of kResidualCopies copies each (gpt2_decode.h): layer l reads x_cur
  // (a.x_f for even l) and its FFN adds into x_next (a.g_f, which the ring kernel does not otherwise use),
  // zeroed earlier in the layer.
  float* x_cur = a.x_f;
  float* x_next = a.g_f;
  // This block's copy of a residual buffer (what it adds into) and the sum of the copies (what it reads).
  const size_t copy = (blockIdx.x % kResidualCopies) * size_t(c);
  auto stage_residual = [&](const float* x) { stage_vector_sum<kConsumers, kResidualCopies>(xs, x, c); };
  stage_norm<T, kConsumers>(ng, nb, a.ln1_g, a.ln1_b, c);
  stage_values(bias, a.b_qkv + qkv_rows.begin, qkv_rows.size());
  // x = wte[token] + wpe[pos]: every block for its own LN1, block 0 also into the residual.
  for (int i = threadIdx.x; i < c; i += kConsumers) {
    const float v = to_float(a.wte[a.token * c + i]) + to_float(a.wpe[a.pos * c + i]);
    xs[i] = v;
    if (blockIdx.x == 0) {
      a.x_f[i] = v;
      for (int k = 1; k < kResidualCopies; ++k) a.x_f[size_t(k) * c + i] = 0.f;
    }
  }
  FB_STAMP(0);
  for (size_t l = 0; l < a.layers; ++l) {
    const int st = static_cast<int>(8 * l);
    // 1. LN1 + QKV (+ bias) into qkv_f. x_next's rows of this block start at zero (the last reads of that
    // buffer, the previous layer's, were before the barrier behind us; the first adds into it come after
    // two more).
    for (size_t r = c_rows.begin + threadIdx.x; r < c_rows.end; r += kConsumers)
      for (int k = 0; k < kResidualCopies; ++k) x_next[size_t(k) * c + r] = 0.f;
    if (l > 0) stage_residual(x_cur);
    FB_SUB_STAMP(l, 1);
    layernorm_smem<Consumers>(xs, ng, nb, c, a.eps, red, xh_out);
    FB_SUB_STAMP(l, 0);
    const uint32_t held_qkv = consume<kHold>(plan.qkv(l), ring, [&](const T* w, size_t r0, int n) {
      gemv.piece(w, r0, n, c, [&](size_t r, float v) { a.qkv_f[qkv_rows.begin + r] = v + bias[r]; });
    });
    arrive_then(st + 1);
    give_back(held_qkv);
    stage_norm<T, kConsumers>(ng, nb, a.ln2_g + l * c, a.ln2_b + l * c, c);
    stage_values(bias, a.b_o + l * c + c_rows.begin, c_rows.size());
    wait(st + 2);

    // 2. Attention over the cache, then the out-projection; bo by the block owning the row.
    for (size_t r = c_rows.begin + threadIdx.x; r < c_rows.end; r += kConsumers) atomicAdd(x_cur + copy + r, bias[r - c_rows.begin]);
    T* kc = a.k_cache + l * cache_layer;
    T* vc = a.v_cache + l * cache_layer;
    unsigned* done = g_head_done + l * kMaxHeads;
    for (size_t i = blockIdx.x; i < plan.items(); i += gridDim.x) {
      const Item it = plan.item(i);
      if (threadIdx.x < 64) {
        const int col = it.h * 64 + threadIdx.x;
        q[threadIdx.x] = __ldcg(a.qkv_f + col) * kScoreScale;
        if (it.has_new) {
          const T k = from_float<T>(__ldcg(a.qkv_f + c + col)), v = from_float<T>(__ldcg(a.qkv_f + 2 * c + col));
          kv_new[threadIdx.x] = k;
          kv_new[64 + threadIdx.x] = v;
          kc[a.pos * c + col] = k;
          vc[a.pos * c + col] = v;
        }
      }
      Consumers::sync();
      FB_SUB_STAMP(l, 2);
      uint32_t held_kv = 0;
      Online on =
          attend_item<kHold>(plan.kv(l, it), ring, q, it.has_new ? kv_new : nullptr, kv_new + 64, s, 1, &held_kv);
      FB_SUB_STAMP(l, 3);
      publish_item(on, opart, a.att_part + i * kPartFloats, done + it.h);
      give_back(held_kv);
      FB_SUB_STAMP(l, 4);
    }
    uint32_t held_wo = 0;  // the last Wo piece's slot, given back after the arrival (kHold)
    for (size_t i = blockIdx.x; i < plan.items(); i += gridDim.x) {
      const Item it = plan.item(i);
      wait_count<Consumers>(done + it.h, static_cast<unsigned>(p.splits));
      FB_SUB_STAMP(l, 5);
      if (threadIdx.x < 64) {
        const float o = combine_head(a.att_part + it.h * p.splits * kPartFloats, p.splits, threadIdx.x);
        q[threadIdx.x] = o;
        qh[threadIdx.x] = from_float<T>(o);
      }
      Consumers::sync();
      FB_SUB_STAMP(l, 6);
      const size_t row0 = plan.wo_rows(it).begin;
      give_back(held_wo);
      held_wo = consume<kHold>(plan.wo(l, it), ring, [&](const T* w, size_t r0, int n) {
        if constexpr (sizeof(T) == 2) {  // 16 rows a warp on tensor cores, the head's output as B
          const int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
          for (int m0 = kMmaRows * (threadIdx.x >> 5); m0 < n; m0 += kMmaRows * kConsumerWarps) {
            float d[4] = {};
#pragma unroll
            for (int kb = 0; kb < 64; kb += 32) mma_rows_k32(d, w + size_t(m0) * 64, n - m0, 64, kb, qh);
            if (t == 0 && m0 + g < n) atomicAdd(x_cur + copy + row0 + r0 + m0 + g, d[0]);
            if (t == 0 && m0 + g + 8 < n) atomicAdd(x_cur + copy + row0 + r0 + m0 + g + 8, d[2]);
          }
        } else {
          const int l8 = threadIdx.x & 7, grp = threadIdx.x >> 3;
          for (int j0 = grp & ~3; j0 < n; j0 += kGroups) {  // warp-uniform bound
            const int j = j0 + (grp & 3);
            const float v = group8_sum(j < n ? dot_pack(smem_pack(w + j * 64 + l8 * kPack), q + l8 * kPack) : 0.f);
            if (j < n && l8 == 0) atomicAdd(x_cur + copy + row0 + r0 + j, v);
          }
        }
      });
      FB_SUB_STAMP(l, 7);
    }
    arrive_then(st + 3);
    give_back(held_wo);
    stage_values(bias, a.b1 + l * f + f_cols.begin, f_cols.size());
    stage_values(b2s, a.b2 + l * c + c_rows.begin, c_rows.size());
    wait(st + 4);

    // 3. LN2 + FFN1 + GELU for this block's FFN columns (into gs), then FFN2 of those columns: W2's column
    // slab against them, every row's partial sum added into x_next (split-K over the blocks, so FFN2 needs
    // no barrier of its own); x_next's owner adds the residual and b2. Block 0 also clears this layer's
    // head counters (nobody reads them now).
    if (blockIdx.x == 0 && threadIdx.x < a.heads) done[threadIdx.x] = 0;
    stage_residual(x_cur);
    Consumers::sync();  // the owner's rows from the staged x: one round trip to L2 in this span, not two
    for (size_t r = c_rows.begin + threadIdx.x; r < c_rows.end; r += kConsumers)
      atomicAdd(x_next + copy + r, xs[r] + b2s[r - c_rows.begin]);
    FB_SUB_STAMP(l, 10);
    layernorm_smem<Consumers>(xs, ng, nb, c, a.eps, red, xh_out);
    FB_SUB_STAMP(l, 8);
    consume(plan.w1(l), ring, [&](const T* w, size_t r0, int n) {
      gemv.piece(w, r0, n, c, [&](size_t r, float u) { gs[r] = gelu_tanh(u + bias[r]); });
    });
    Consumers::sync();
    FB_STAMP(st + 5);
    FB_STAMP(st + 6);
    FB_SUB_STAMP(l, 9);
    const int cols = static_cast<int>(f_cols.size()), pitch = static_cast<int>(p.ffn_chunk);
    const uint32_t held_w2 = consume<kHold>(plan.w2(l), ring, [&](const T* w, size_t r0, int n) {
      for (int j = threadIdx.x; j < n; j += kConsumers) {
        const T* wr = w + size_t(j) * pitch;
        float v = 0.f;
        for (int col = 0; col < cols; col += kPack) v += dot_pack(smem_pack(wr + col), gs + col);
        atomicAdd(x_next + copy + r0 + j, v);
      }
    });
    arrive_then(st + 7);
    give_back(held_w2);
    if (l + 1 < a.layers) {
      stage_values(bias, a.b_qkv + (l + 1) * 3 * c + qkv_rows.begin, qkv_rows.size());
      stage_norm<T, kConsumers>(ng, nb, a.ln1_g + (l + 1) * c, a.ln1_b + (l + 1) * c, c);
    } else {
      stage_norm<T, kConsumers>(ng, nb, a.lnf_g, a.lnf_b, c);
    }
    wait(st + 8);
    float* const t = x_cur;
    x_cur = x_next;
    x_next = t;
  }

  // LNf + LM head over the tied embedding.
  stage_residual(x_cur);
  layernorm_smem<Consumers>(xs, ng, nb, c, a.eps, red, xh_out);
  const size_t vocab0 = share(a.vocab).begin;
  consume(plan.lm_head(), ring, [&](const T* w, size_t r0, int n) {
    gemv.piece(w, r0, n, c, [&](size_t r, float v) { a.logits[vocab0 + r] = from_float<T>(v); });
  });
  FB_STAMP(static_cast<int>(8 * a.layers + 1));
}

#else

template <class T>
__global__ void gpt2_decode_ring_kernel(const __grid_constant__ Params<T>) {
  __trap();  // launched only where the sm_90a code exists (ring_refusal)
}

#endif  // FB_SM90A_DEVICE

// Shared memory of one block besides the ring: the GEMV vector, γ/β, the bias rows, gelu(FFN1) of the
// block's FFN columns, b2 of its residual rows, the attention's scratch, the reduction scratch, the
// vector and the head's output in T, and the ring's barriers.
template <class T>
size_t fixed_smem_bytes(const Gpt2DecodeArgs<T>& a, size_t bias_floats, int slots) {
  const size_t floats = ((a.hidden + 3) & ~size_t{3}) + 2 * a.hidden + 3 * bias_floats + 64 + 2 * kMaxPieceKeys + 128 +
                        kConsumerWarps * 64 + 32 +
                        (a.hidden + 64) * sizeof(T) / sizeof(float);
  return floats * sizeof(float) + 2 * size_t(slots) * sizeof(uint64_t);
}

// The FFN columns each block owns: f over the blocks, rounded up to a multiple of 8.
inline size_t ffn_chunk(size_t f, size_t blocks) { return ((f + blocks - 1) / blocks + 7) & ~size_t{7}; }

// The most rows of a stage's bias one block of `blocks` holds (and its FFN columns), rounded up to 4 floats.
inline size_t bias_floats(size_t hidden, size_t f, size_t blocks) {
  const size_t most = std::max((3 * hidden + blocks - 1) / blocks, ffn_chunk(f, blocks));
  return (most + 4) & ~size_t{3};
}

constexpr bool built() {
#if defined(FUSEBENCH_SM90A) && defined(FB_TENSOR_MAP_HOST)
  return true;
#else
  return false;
#endif
}

// Why no ring kernel runs on this device and build, or with weight rows of `row_bytes` (the longest row a
// piece takes), or "" if one can.
inline std::string device_refusal(size_t row_bytes) {
  if (!built()) return "this build has no sm_90a code (FUSEBENCH_CUDA_ARCHS without 90, or CUDA < 12)";
  const int cc = device_compute_capability();
  if (cc != 90) return "needs compute capability 9.0 (bulk copies, mbarrier transactions); this device has " + std::to_string(cc / 10) + "." + std::to_string(cc % 10);
  if (row_bytes > kSlotBytes) return "a weight row of " + std::to_string(row_bytes) + " B exceeds a ring slot (" + std::to_string(kSlotBytes) + " B)";
  return "";
}

// Why a ring kernel whose block needs `fixed` bytes of shared memory besides the ring cannot have
// `min_slots` slots on this device, or "" if it can; `slots` gets the ring's size (at most max_slots).
inline std::string slots_refusal(size_t fixed, int min_slots, int max_slots, int& slots) {
  static const size_t optin = static_cast<size_t>(device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin));
  slots = fixed < optin ? static_cast<int>(std::min<size_t>(max_slots, (optin - fixed) / kSlotBytes)) : 0;
  if (slots < min_slots)
    return "needs " + std::to_string(fixed + min_slots * kSlotBytes) + " B of shared memory a block; the device allows " +
           std::to_string(optin);
  return "";
}

// Why the ring kernel cannot run this step on this device with `blocks` blocks, or "" if it can; `slots`
// gets the ring's size.
template <class T>
std::string refusal(const Gpt2DecodeArgs<T>& a, size_t blocks, int& slots) {
  // The longest row a piece takes is a hidden-size one (W2's come as column slabs).
  if (std::string why = device_refusal(a.hidden * sizeof(T)); !why.empty()) return why;
  if (a.f % 8 != 0) return "FFN width " + std::to_string(a.f) + " is not a multiple of 8 (W2's column slabs are copied in 16-byte units)";
  if (a.f < a.hidden)
    return "FFN width " + std::to_string(a.f) + " is below the hidden size " + std::to_string(a.hidden) +
           ": no such shape has been checked on the ring kernel";
  if (ffn_chunk(a.f, blocks) > kMaxBox)
    return std::to_string(ffn_chunk(a.f, blocks)) + " FFN columns a block on " + std::to_string(blocks) +
           " blocks: a W2 column slab wider than a TMA box (" + std::to_string(kMaxBox) + ")";
  return slots_refusal(fixed_smem_bytes(a, bias_floats(a.hidden, a.f, blocks), kGpt2Slots), 2, kGpt2Slots, slots);
}

#ifdef FB_TENSOR_MAP_HOST
// A matrix [rows, cols] of every layer (stacked) as a 3-D tensor (cols, rows, layers) with boxes of `chunk`
// columns × piece_rows(chunk) rows: the column slabs of W2 (or of any split-K projection). `what` names
// the matrix in the error.
template <class T>
void encode_slab_map(const T* w, size_t cols, size_t rows, size_t layers, size_t chunk, unsigned char (&out)[128],
                     const char* what, int box_rows = 0) {
  static_assert(sizeof(CUtensorMap) == 128, "a tensor map is 128 bytes");
  const cuuint64_t dims[3] = {cols, rows, layers};
  const cuuint64_t strides[2] = {cols * sizeof(T), rows * cols * sizeof(T)};
  const cuuint32_t box[3] = {static_cast<cuuint32_t>(chunk),
                             static_cast<cuuint32_t>(box_rows > 0 ? box_rows : piece_rows<T>(static_cast<int>(chunk), false)), 1};
  const cuuint32_t estrides[3] = {1, 1, 1};
  const CUtensorMapDataType type = sizeof(T) == 4                   ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32
                                   : std::is_same_v<T, ::fusebench::bf16> ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
                                                                         : CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  CUtensorMap map;
  const CUresult r = ::fusebench::cuda::encode_tiled()(&map, type, 3, const_cast<T*>(w), dims, strides, box, estrides,
                                                       CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                                                       CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    throw CudaError(std::string(what) + ": cuTensorMapEncodeTiled failed (CUresult " + std::to_string(r) + ")");
  std::memcpy(out, &map, sizeof map);
}

// A tensor map of encode_slab_map's kept between launches, encoded again only when its matrix or shape
// changes (host time before a launch shows in its timing).
template <class T>
struct CachedSlabMap {
  const T* w = nullptr;
  size_t cols = 0, rows = 0, layers = 0, chunk = 0;
  int box_rows = 0;
  unsigned char map[128];
  // out ← the map of (w, cols, rows, layers, chunk, box_rows) (encode_slab_map's arguments).
  void into(unsigned char (&out)[128], const T* w_, size_t cols_, size_t rows_, size_t layers_, size_t chunk_,
            const char* what, int box_rows_ = 0) {
    if (w != w_ || cols != cols_ || rows != rows_ || layers != layers_ || chunk != chunk_ || box_rows != box_rows_) {
      encode_slab_map(w_, cols_, rows_, layers_, chunk_, map, what, box_rows_);
      w = w_, cols = cols_, rows = rows_, layers = layers_, chunk = chunk_, box_rows = box_rows_;
    }
    std::memcpy(out, map, sizeof map);
  }
};

// Launches the ring kernel with `blocks` blocks (co-resident: checked here and by the cooperative launch).
template <class T>
void launch(const Gpt2DecodeArgs<T>& a, const LaunchContext& ctx, int blocks, int slots) {
  const auto kernel = gpt2_decode_ring_kernel<T>;
  const size_t bias = bias_floats(a.hidden, a.f, static_cast<size_t>(blocks));
  const size_t smem = size_t(slots) * kSlotBytes + fixed_smem_bytes(a, bias, slots);
  AttentionSplit split = attention_split(a.pos + 1, a.heads, static_cast<size_t>(blocks));
#ifdef GPT2_RING_SPLITS  // a measuring aid: at most this many chunks a head (docs/gpt2-decode-tries.md)
  static_assert(GPT2_RING_SPLITS > 0, "GPT2_RING_SPLITS: a count of chunks");
  const size_t want = std::min<size_t>(GPT2_RING_SPLITS, max_splits(a.ctx));  // what att_part holds
  split.chunk = (a.pos + want) / want;
  split.splits = (a.pos + split.chunk) / split.chunk;
#endif
  Params<T> p{a, split.chunk, split.splits, ffn_chunk(a.f, static_cast<size_t>(blocks)), slots, bias, {}};
  static CachedSlabMap<T> w2_map, k_map, v_map, wo_map;
  w2_map.into(p.w2_map, a.w2, a.f, a.hidden, a.layers, p.ffn_chunk, "gpt2_decode ring (W2)");
  if constexpr (kTensorKv<T>) {  // the caches and Wo, 64 columns (a head) a box
    constexpr int kHd = static_cast<int>(::fusebench::kHeadDim);
    const int kv_rows = piece_rows<T>(kHd, true), wo_rows = piece_rows<T>(kHd, false);
    k_map.into(p.k_map, a.k_cache, a.hidden, a.ctx, a.layers, kHd, "gpt2_decode ring (K cache)", kv_rows);
    v_map.into(p.v_map, a.v_cache, a.hidden, a.ctx, a.layers, kHd, "gpt2_decode ring (V cache)", kv_rows);
    wo_map.into(p.wo_map, a.w_o, a.hidden, a.hidden, a.layers, kHd, "gpt2_decode ring (Wo)", wo_rows);
  }
  launch_persistent(kernel, p, blocks, kThreads, smem, ctx, "gpt2_decode fused (ring)");
}
#else
template <class T>
void launch(const Gpt2DecodeArgs<T>&, const LaunchContext&, int, int) {
  throw std::logic_error("gpt2_decode ring: launched in a build without it (refusal says so first)");
}
#endif

}  // namespace fusebench::kernels::gpt2::ring
