// Causal flash attention for Hopper (sm_90a) in the structure of FlashAttention-3: fp16 or bf16 Q, K,
// V, O with head dimension D ∈ {64, 128}, O = softmax(Q·Kᵀ/√D + mask)·V, fp32 accumulation and softmax.
// The operands and their strided layouts are flash_attention_mma.cuh's (FlashMmaArgs); that kernel
// stays for sm_80–89 and for what this one cannot take (launch_flash_attention below picks).
//
// Work: tiles of 128 query rows of one (batch, head); a tile walks its key tiles of 128 from the
// diagonal down to key 0 (later tiles are fully masked and never loaded; the diagonal one, first,
// is the only one masked). Persistent grid of one block per multiprocessor: a block takes tiles from
// a global counter until none is left. The tile order takes heads in groups (flash90_groups: as many
// groups as balance allows, since smaller groups keep their K and V in L2 between reads, and none whose
// K and V exceed half of L2), and inside a group the heaviest query tiles (most key tiles) first.
//
// Block: three warpgroups. Warpgroup 0 is the producer: after giving back registers (setmaxnreg 24)
// one thread issues the TMA copies — Q once per tile, K and V per key tile into a ring of kStages
// shared-memory slots — each completing on an mbarrier with its byte count. Warpgroups 1 and 2 are the
// consumers (setmaxnreg 240), 64 query rows each. Per key tile a consumer computes S = Q·Kᵀ with wgmma
// (m64n128k16, both operands from shared memory, K-major), the online softmax in registers (the row
// max and sum of a row live in the 4 lanes of a quad), and O += P·V with wgmma taking P from registers
// (the accumulator layout of S, rounded to T, is the A-fragment layout) and V from shared memory
// (MN-major: V's rows are d-contiguous). Intra-warpgroup overlap: S of key tile j − 1 is issued before
// P·V of tile j, so the softmax of the next tile runs while the tensor cores do this tile's P·V; and
// the diagonal S of a warpgroup's next query tile is issued before the epilogue of the current one.
// A consumer releases a slot (mbarrier, one arrival per warp) once its P·V has completed, and Q once
// its last S of the tile has. Epilogue: O / l through shared memory (128-byte swizzle, no bank
// conflicts) and a TMA store, which clips the rows past the sequence.
//
// Tails: TMA fills rows past the sequence with zeros; the diagonal tile's mask key > min(row, seq − 1)
// also hides those keys from every row. Every row sees key q0 in its first (diagonal) tile, so the
// running max is finite from the first tile on.
#pragma once
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "common/launch.h"
#include "cuda/cuda_check.cuh"
#include "cuda/flash_attention_mma.cuh"
#include "cuda/sm90_ops.cuh"

#include "cuda/tensor_map.cuh"

// The host side needs CUDA 12's tensor maps (cuTensorMapEncodeTiled); the device side the sm_90a pass.
#ifdef FB_TENSOR_MAP_HOST
#define FB_FLASH90_HOST 1
#endif

namespace fusebench::cuda {

constexpr int kFlash90Rows = 128;  // query rows per tile
constexpr int kFlash90Keys = 128;  // keys per key tile
constexpr int kFlash90Threads = 384;

template <int D>
struct Flash90Config {
  static_assert(D == 64 || D == 128, "head dimension 64 or 128");
  static constexpr int kStages = D == 64 ? 4 : 2;  // K/V ring slots (D = 128: what fits beside two Q buffers)
  static constexpr int kQBytes = kFlash90Rows * D * 2, kKvBytes = kFlash90Keys * D * 2;
  // Shared memory from a 1024-byte aligned base: two Q buffers (the next tile's Q loads during this
  // one), K slots, V slots, O staging, then the barriers and the two buffers' tile indices.
  static constexpr int kQ = 0, kK = 2 * kQBytes, kV = kK + kStages * kKvBytes, kO = kV + kStages * kKvBytes;
  static constexpr int kBars = kO + kQBytes;
  // q_full[2], q_empty[2], k_full[S], v_full[S], k_empty[S], v_empty[S]: 8 bytes each.
  static constexpr int kTileSlot = kBars + 8 * (4 + 4 * kStages);
  static constexpr size_t kSmemBytes = kTileSlot + 8 + 1024;  // + slack to align the base
};

#ifdef FB_FLASH90_HOST
struct Flash90Params {
  CUtensorMap q, k, v, o;  // 4-D (d, seq, heads, batch), boxes of 64 × rows, 128-byte swizzle
  int heads, seq, bh, nq;  // bh = batch·heads, nq = query tiles per head
  int group, big;          // the tile order's groups: `big` groups of group + 1 heads, then groups of `group`
  int total;               // tiles: bh·nq
  float scale_log2;        // log2(e)/√D
};
#endif

namespace {

#ifdef FB_FLASH90_HOST
// The tile scheduler's counters: [0] tiles handed out beyond the first gridDim.x, [1] blocks done. The
// last block to finish resets both, so consecutive launches (one at a time per .cu file, as the
// suite runs them on one stream) each start from zero.
__device__ unsigned flash90_sched[2];

#ifdef FB_FLASH90_TIMELINE
// scripts/device/flash-attention-sm90.cu's `timeline` mode: per block, [0] %globaltimer at entry, [1] clock64
// at entry, [2] clock64 when the first consumer warpgroup has its first S, [3] clock64 and [4] %globaltimer
// when it has stored its last tile, [5] its tiles, [6] their key tiles, [7] clock64 when the producer is done.
__device__ unsigned long long flash90_tl[1024][8];
__device__ __forceinline__ unsigned long long flash90_gtime() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
#define FB_TL(i, v)                                           \
  do {                                                        \
    if (blockIdx.x < 1024) flash90_tl[blockIdx.x][i] = (v); \
  } while (0)
#else
#define FB_TL(i, v) \
  do {              \
  } while (0)
#endif

// Tile t of the order above: its (batch·heads) index and query tile.
__device__ __forceinline__ void flash90_tile(const Flash90Params& p, int t, int& bh, int& qt) {
  const int big_tiles = p.big * (p.group + 1) * p.nq;
  int gsize = p.group + 1, first = 0;  // the group's size and first head
  if (t >= big_tiles) t -= big_tiles, gsize = p.group, first = p.big * (p.group + 1);
  const int gi = t / (gsize * p.nq), r = t - gi * gsize * p.nq;
  qt = p.nq - 1 - r / gsize;
  bh = first + gi * gsize + r % gsize;
}

// kPingPong: the two consumer warpgroups take turns issuing their GEMMs (named barriers), so that one
// warpgroup's softmax runs while the other's GEMMs occupy the tensor cores (FlashAttention-3's
// inter-warpgroup schedule).
template <class T, int D, bool kPingPong>
__global__ void __launch_bounds__(kFlash90Threads, 1) flash90_kernel(const __grid_constant__ Flash90Params p) {
  static_assert(std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>, "fp16 or bf16");
#ifdef FB_SM90A_DEVICE
  using namespace sm90;
  using C = Flash90Config<D>;
  constexpr int S = C::kStages;
  constexpr bool kBf16 = std::is_same_v<T, __nv_bfloat16>;
  extern __shared__ unsigned char flash90_smem_raw[];
  const uint32_t raw = smem_addr(flash90_smem_raw);
  const uint32_t base = (raw + 1023u) & ~1023u;
  unsigned char* const base_ptr = flash90_smem_raw + (base - raw);
  const uint32_t q_full0 = base + C::kBars, q_empty0 = q_full0 + 16;
  const uint32_t k_full0 = q_empty0 + 16, v_full0 = k_full0 + 8 * S, k_empty0 = v_full0 + 8 * S,
                 v_empty0 = k_empty0 + 8 * S;
  volatile int* const tile_slot = reinterpret_cast<volatile int*>(base_ptr + C::kTileSlot);
  const int wg = threadIdx.x / 128, warp = (threadIdx.x / 32) % 4, lane = threadIdx.x % 32;

  if (threadIdx.x == 0) {
#ifdef FB_FLASH90_TIMELINE
    FB_TL(0, flash90_gtime());
    FB_TL(1, clock64());
#endif
    for (int i = 0; i < 2; ++i) {
      mbar_init(q_full0 + 8 * i, 1);
      mbar_init(q_empty0 + 8 * i, 8);  // lane 0 of each consumer warp
    }
    for (int s = 0; s < S; ++s) {
      mbar_init(k_full0 + 8 * s, 1);
      mbar_init(v_full0 + 8 * s, 1);
      mbar_init(k_empty0 + 8 * s, 8);
      mbar_init(v_empty0 + 8 * s, 8);
    }
    mbar_init_fence();
  }
  __syncthreads();

  if (wg == 0) {  // ---------------------------------------------------------------- producer
    regs_dealloc<24>();
    if (warp != 0 || lane != 0) return;
    tma_prefetch_map(&p.q);
    tma_prefetch_map(&p.k);
    tma_prefetch_map(&p.v);
    tma_prefetch_map(&p.o);
    int tile = blockIdx.x;
    uint32_t stage = 0, phase = 0;
    for (int iter = 0;; ++iter) {
      const int qb = iter & 1;
      mbar_wait(q_empty0 + 8 * qb, ((iter >> 1) & 1) ^ 1);  // the consumers are done with this Q buffer
      if (tile >= p.total) {
        tile_slot[qb] = -1;
        mbar_arrive(q_full0 + 8 * qb);
        break;
      }
      int bh, qt;
      flash90_tile(p, tile, bh, qt);
      const int h = bh % p.heads, b = bh / p.heads;
      tile_slot[qb] = tile;
      mbar_arrive_expect_tx(q_full0 + 8 * qb, C::kQBytes);
#pragma unroll
      for (int cb = 0; cb < D / 64; ++cb)
        tma_load_4d(base + C::kQ + qb * C::kQBytes + cb * kFlash90Rows * 128, &p.q, q_full0 + 8 * qb, 64 * cb,
                    qt * kFlash90Rows, h, b);
      const int next = static_cast<int>(atomicAdd(&flash90_sched[0], 1u)) + static_cast<int>(gridDim.x);
      for (int kt = qt; kt >= 0; --kt) {
        mbar_wait(k_empty0 + 8 * stage, phase ^ 1);
        mbar_arrive_expect_tx(k_full0 + 8 * stage, C::kKvBytes);
#pragma unroll
        for (int cb = 0; cb < D / 64; ++cb)
          tma_load_4d(base + C::kK + stage * C::kKvBytes + cb * kFlash90Keys * 128, &p.k, k_full0 + 8 * stage, 64 * cb,
                      kt * kFlash90Keys, h, b);
        mbar_wait(v_empty0 + 8 * stage, phase ^ 1);
        mbar_arrive_expect_tx(v_full0 + 8 * stage, C::kKvBytes);
#pragma unroll
        for (int cb = 0; cb < D / 64; ++cb)
          tma_load_4d(base + C::kV + stage * C::kKvBytes + cb * kFlash90Keys * 128, &p.v, v_full0 + 8 * stage, 64 * cb,
                      kt * kFlash90Keys, h, b);
        if (++stage == S) stage = 0, phase ^= 1;
      }
      tile = next;
    }
    if (atomicAdd(&flash90_sched[1], 1u) == gridDim.x - 1) {  // every block has made its last claim
      atomicExch(&flash90_sched[0], 0u);
      atomicExch(&flash90_sched[1], 0u);
    }
    FB_TL(7, clock64());
    return;
  }

  // -------------------------------------------------------------------------------------- consumers
  regs_alloc<240>();
  const int cw = wg - 1;                                // consumer warpgroup: query rows 64·cw .. 64·cw + 63
  const int g = lane / 4, t = lane % 4;                 // accumulator rows g, g + 8 of the warp's 16
  const int row0 = 64 * cw + 16 * warp + g;             // tile row of the lane's first row
  const uint32_t o_s = base + C::kO + cw * 64 * D * 2;  // this warpgroup's O staging (D/64 blocks of 64×128 B)
  const float sl = p.scale_log2;
  uint32_t stage = 0, phase = 0;
  // Ping-pong: named barrier 3 + w is warpgroup w's turn to issue; warpgroup 0 goes first.
  auto turn_wait = [&] {
    if constexpr (kPingPong) named_barrier_sync<256>(3 + cw);
  };
  auto turn_pass = [&] {
    if constexpr (kPingPong) asm volatile("bar.arrive %0, 256;\n" ::"r"(3 + (1 - cw)) : "memory");
  };
  if (cw == 1) turn_pass();

  // S = Q·Kᵀ of the key tile in slot `s` (issued, committed; not waited for).
  auto issue_qk = [&](float (&sacc)[64], uint32_t q_at, uint32_t s) {
    const uint32_t k_at = base + C::kK + s * C::kKvBytes;
    fence_regs(sacc);
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk) {
      const uint32_t off = (kk % 4) * 32;
      wgmma_ss_n128<kBf16>(sacc, wgmma_desc(q_at + (kk / 4) * kFlash90Rows * 128 + off, 16, 1024),
                           wgmma_desc(k_at + (kk / 4) * kFlash90Keys * 128 + off, 16, 1024), kk > 0);
    }
    wgmma_commit();
  };
  // O += P·V of the key tile in slot `s`, P as A fragments (pa[kk]: keys 16kk .. 16kk + 15); O = P·V for
  // a tile's first (`first`): O is never zeroed by ordinary instructions, which would have to wait for
  // the wgmma in flight then (the next tile's S runs during the epilogue).
  auto issue_pv = [&](float (&oacc)[D / 2], uint32_t (&pa)[8][4], uint32_t s, bool first) {
    const uint32_t v_at = base + C::kV + s * C::kKvBytes;
    fence_regs(oacc);
    fence_regs(pa);
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < 8; ++kk)
      wgmma_rs_tb<kBf16>(oacc, pa[kk], wgmma_desc(v_at + kk * 16 * 128, kFlash90Keys * 128, 1024), kk > 0 || !first);
    wgmma_commit();
  };
  // P = exp2(S·sl − m·sl) in place, after updating the row maxima m; returns the factor each row's
  // previous O and l are scaled by in alpha, and adds P's row sums (this lane's part) to l.
  auto softmax = [&](float (&sacc)[64], float (&m)[2], float (&l)[2], float (&alpha)[2]) {
    // Reductions as trees of independent partials: with two consumer warps per scheduler, a serial
    // chain of 32 dependent FMNMX or FADD would leave the issue slots idle for its latency.
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      float mx[8];
#pragma unroll
      for (int j = 0; j < 8; ++j)
        mx[j] = fmaxf(fmaxf(sacc[8 * j + 2 * r], sacc[8 * j + 2 * r + 1]), fmaxf(sacc[8 * j + 4 + 2 * r], sacc[8 * j + 5 + 2 * r]));
#pragma unroll
      for (int w = 4; w >= 1; w /= 2)
#pragma unroll
        for (int j = 0; j < w; ++j) mx[j] = fmaxf(mx[j], mx[j + w]);
      float mrow = fmaxf(m[r], mx[0]);
      mrow = fmaxf(mrow, __shfl_xor_sync(0xffffffffu, mrow, 1));
      mrow = fmaxf(mrow, __shfl_xor_sync(0xffffffffu, mrow, 2));
      alpha[r] = flash_mma_detail::exp2_approx((m[r] - mrow) * sl);  // m = −∞ on the first tile: 0
      m[r] = mrow;
      const float ms = mrow * sl;
      float sum[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
      for (int i = 0; i < 16; ++i) {
#pragma unroll
        for (int c = 0; c < 2; ++c) {
          float& x = sacc[4 * i + 2 * r + c];
          x = flash_mma_detail::exp2_approx(fmaf(x, sl, -ms));
          sum[(2 * i + c) % 4] += x;
        }
      }
      l[r] = l[r] * alpha[r] + ((sum[0] + sum[1]) + (sum[2] + sum[3]));
    }
  };
  auto pack_p = [&](const float (&sacc)[64], uint32_t (&pa)[8][4]) {
#pragma unroll
    for (int kk = 0; kk < 8; ++kk) {
      pa[kk][0] = flash_mma_detail::pack<T>(sacc[8 * kk + 0], sacc[8 * kk + 1]);
      pa[kk][1] = flash_mma_detail::pack<T>(sacc[8 * kk + 2], sacc[8 * kk + 3]);
      pa[kk][2] = flash_mma_detail::pack<T>(sacc[8 * kk + 4], sacc[8 * kk + 5]);
      pa[kk][3] = flash_mma_detail::pack<T>(sacc[8 * kk + 6], sacc[8 * kk + 7]);
    }
  };
  auto release = [&](uint32_t bar) {
    if (lane == 0) mbar_arrive(bar);
  };

  // The tile this warpgroup works on: from the buffer `qb` of its Q.
  struct Tile {
    int qb, qt, h, b;
  };
  // Waits for the Q of tile number `iter` (its buffer iter % 2); false at the end of the work.
  auto next_tile = [&](int iter, Tile& tl) {
    tl.qb = iter & 1;
    mbar_wait(q_full0 + 8 * tl.qb, (iter >> 1) & 1);
    const int tile = tile_slot[tl.qb];
    if (tile < 0) return false;
    int bh;
    flash90_tile(p, tile, bh, tl.qt);
    tl.h = bh % p.heads;
    tl.b = bh / p.heads;
    return true;
  };
  auto q_of = [&](const Tile& tl) { return base + C::kQ + tl.qb * C::kQBytes + cw * 64 * 128; };

  float o[D / 2], sacc[64];
  uint32_t pa[8][4];
  Tile cur;
  int iter = 0;
  bool more = next_tile(iter, cur);
  if (more) {  // the first tile's diagonal S
    mbar_wait(k_full0 + 8 * stage, phase);
    turn_wait();
    issue_qk(sacc, q_of(cur), stage);
    turn_pass();
  }
  // Each pass: S of the current tile's diagonal key tile is in flight (issued at the end of the previous
  // pass, so that it overlaps that tile's epilogue).
#ifdef FB_FLASH90_TIMELINE
  int tl_tiles = 0, tl_units = 0;
#endif
  while (more) {
    const int q0 = cur.qt * kFlash90Rows;
    const uint32_t q_at = q_of(cur);
    float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.0f, 0.0f}, alpha[2];

    // The diagonal key tile (k0 = q0), masked: key > min(row, seq − 1).
    wgmma_wait<0>();
    fence_regs(sacc);
#ifdef FB_FLASH90_TIMELINE
    if (threadIdx.x == 128 && tl_tiles == 0) FB_TL(2, clock64());
    ++tl_tiles;
    tl_units += cur.qt + 1;
#endif
    release(k_empty0 + 8 * stage);
    if (cur.qt == 0) release(q_empty0 + 8 * cur.qb);
    {
      const int lim0 = min(row0, p.seq - 1 - q0), lim1 = min(row0 + 8, p.seq - 1 - q0);
#pragma unroll
      for (int i = 0; i < 16; ++i)
#pragma unroll
        for (int e = 0; e < 4; ++e)
          if (8 * i + 2 * t + (e & 1) > (e < 2 ? lim0 : lim1)) sacc[4 * i + e] = -INFINITY;
    }
    softmax(sacc, m, l, alpha);
    pack_p(sacc, pa);

    for (int kt = cur.qt - 1; kt >= 0; --kt) {
      const uint32_t prev = stage, prev_phase = phase;
      if (++stage == S) stage = 0, phase ^= 1;
      mbar_wait(k_full0 + 8 * stage, phase);
      mbar_wait(v_full0 + 8 * prev, prev_phase);
      turn_wait();
      issue_qk(sacc, q_at, stage);  // S of key tile kt ...
      issue_pv(o, pa, prev, kt == cur.qt - 1);  // ... then P·V of key tile kt + 1
      turn_pass();
      wgmma_wait<1>();              // S is in
      fence_regs(sacc);
      release(k_empty0 + 8 * stage);
      if (kt == 0) release(q_empty0 + 8 * cur.qb);
      softmax(sacc, m, l, alpha);  // overlaps the P·V on the tensor cores
      wgmma_wait<0>();
      fence_regs(o);
      fence_regs(pa);
      release(v_empty0 + 8 * prev);
#pragma unroll
      for (int i = 0; i < D / 2; ++i) o[i] *= alpha[(i / 2) % 2];
      pack_p(sacc, pa);
    }
    mbar_wait(v_full0 + 8 * stage, phase);
    turn_wait();
    issue_pv(o, pa, stage, cur.qt == 0);  // the last P·V of this tile ...
    turn_pass();
    const uint32_t last = stage;
    if (++stage == S) stage = 0, phase ^= 1;
    Tile nxt;
    more = next_tile(++iter, nxt);
    // ... then the next tile's diagonal S, which runs during this tile's epilogue. After the last tile an
    // S of nothing in particular (Q and a slot nobody writes any more) keeps the wgmma sequence free of
    // branches, which ptxas would otherwise serialize; its result is never read.
    if (more) mbar_wait(k_full0 + 8 * stage, phase);
    turn_wait();
    issue_qk(sacc, more ? q_of(nxt) : q_at, stage);
    turn_pass();
    wgmma_wait<1>();  // the P·V is in
    fence_regs(o);
    fence_regs(pa);
    release(v_empty0 + 8 * last);

    // Epilogue: O / l, rounded to T, into the staging tile (the previous tile's store must have read it).
    float inv[2];
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      l[r] += __shfl_xor_sync(0xffffffffu, l[r], 1);
      l[r] += __shfl_xor_sync(0xffffffffu, l[r], 2);
      inv[r] = 1.0f / l[r];
    }
    if (threadIdx.x % 128 == 0) tma_store_wait_read();
    named_barrier_sync<128>(1 + cw);
#pragma unroll
    for (int i = 0; i < D / 8; ++i) {
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        const int rr = 16 * warp + g + 8 * r;  // row within the warpgroup's 64
        const uint32_t at = o_s + (i / 8) * 64 * 128 + rr * 128 + (((i % 8) ^ (rr % 8)) << 4) + 4 * t;
        const uint32_t v = flash_mma_detail::pack<T>(o[4 * i + 2 * r] * inv[r], o[4 * i + 2 * r + 1] * inv[r]);
        asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(at), "r"(v) : "memory");
      }
    }
    fence_proxy_async();
    named_barrier_sync<128>(1 + cw);
    if (threadIdx.x % 128 == 0) {
#pragma unroll
      for (int cb = 0; cb < D / 64; ++cb)
        tma_store_4d(&p.o, o_s + cb * 64 * 128, 64 * cb, q0 + 64 * cw, cur.h, cur.b);
      tma_store_commit();
    }
    cur = nxt;
  }
  wgmma_wait<0>();
  if (cw == 0) turn_wait();  // consumes warpgroup 1's last pass
  if (threadIdx.x % 128 == 0) tma_store_wait_all();
#ifdef FB_FLASH90_TIMELINE
  if (threadIdx.x == 128) {
    FB_TL(3, clock64());
    FB_TL(4, flash90_gtime());
    FB_TL(5, tl_tiles);
    FB_TL(6, tl_units);
  }
#endif
#else
  (void)p;
#ifdef __CUDA_ARCH__
  __trap();  // never launched: the launcher runs this kernel only where the sm_90a code was built
#endif
#endif
}
#endif  // FB_FLASH90_HOST

}  // namespace

// --- host side --------------------------------------------------------------------------------------

// Whether this build holds the sm_90a kernel (FUSEBENCH_SM90A: native/CMakeLists.txt emits sm_90a code
// for the architecture 90 with CUDA 12+) and the host can build tensor maps.
constexpr bool flash90_built() {
#if defined(FB_FLASH90_HOST) && defined(FUSEBENCH_SM90A)
  return true;
#else
  return false;
#endif
}

// The query tiles of these operands: 128 rows of one (batch, head) each.
template <class T>
long long flash90_tiles(const FlashMmaArgs<T>& a) {
  return static_cast<long long>(a.batch) * a.heads * ((a.seq + kFlash90Rows - 1) / kFlash90Rows);
}

// The persistent grid: a block per multiprocessor, no more than the tiles, and capped where the context
// says so (tests cap every grid, LaunchContext::max_blocks, so that blocks loop over several tiles; the
// scheduler takes any grid size).
template <class T>
int flash90_grid(const FlashMmaArgs<T>& a, const LaunchContext& ctx) {
  int grid = static_cast<int>(std::min<long long>(flash90_tiles(a), std::max(1, ctx.sm_count)));
  if (ctx.max_blocks > 0 && static_cast<size_t>(grid) > ctx.max_blocks) grid = static_cast<int>(ctx.max_blocks);
  return grid;
}

// Why the sm_90 kernel cannot take these operands on this device, or "" if it can. D is the head dimension.
template <class T>
std::string flash90_refusal(const FlashMmaArgs<T>& a, int d) {
  if (!flash90_built()) return "this build has no sm_90a code (FUSEBENCH_CUDA_ARCHS without 90, or CUDA < 12)";
  const int cc = device_compute_capability();
  if (cc != 90) return "needs compute capability 9.0 (wgmma, TMA); this device has " + std::to_string(cc / 10) + "." + std::to_string(cc % 10);
  if (d != 64 && d != 128) return "head dimension " + std::to_string(d) + " (the sm_90 tiles take 64 or 128)";
  const HalfHeadLayout<T> ops[4] = {a.q, a.k, a.v, {a.o, a.osb, a.osh, a.oss}};
  for (const HalfHeadLayout<T>& l : ops) {
    if (reinterpret_cast<uintptr_t>(l.base) % 16 != 0 || l.sb % 8 != 0 || l.sh % 8 != 0 || l.ss % 8 != 0)
      return "TMA needs 16-byte aligned bases and strides";
  }
  if (flash90_tiles(a) >= (1ll << 31)) return "more than 2^31 query tiles";
  return "";
}

#ifdef FB_FLASH90_HOST
namespace flash90_host {

// A 4-D map (d, seq, heads, batch) of a strided [batch, heads, seq, d] operand, boxes of 64 × rows.
template <class T>
CUtensorMap make_map(const HalfHeadLayout<T>& l, int batch, int heads, int seq, int d, int rows) {
  CUtensorMap map;
  const cuuint64_t dims[4] = {static_cast<cuuint64_t>(d), static_cast<cuuint64_t>(seq), static_cast<cuuint64_t>(heads),
                              static_cast<cuuint64_t>(batch)};
  const cuuint64_t strides[3] = {static_cast<cuuint64_t>(l.ss) * 2, static_cast<cuuint64_t>(l.sh) * 2,
                                 static_cast<cuuint64_t>(l.sb) * 2};
  const cuuint32_t box[4] = {64, static_cast<cuuint32_t>(rows), 1, 1};
  const cuuint32_t estrides[4] = {1, 1, 1, 1};
  const CUtensorMapDataType type =
      std::is_same_v<T, __half> ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16 : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  const CUresult r = encode_tiled()(&map, type, 4, const_cast<T*>(l.base), dims, strides, box, estrides,
                                    CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                                    CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    throw CudaError("flash_attention_sm90: cuTensorMapEncodeTiled failed (CUresult " + std::to_string(r) + ")");
  return map;
}

}  // namespace flash90_host

// The number of groups of heads in the tile order, for `blocks` blocks, nq query tiles a head and kv bytes
// of K and V a head. A head's K and V are read again by each of its query tiles, so the fewer heads a group
// has, the more of them L2 still holds at the next read: as many groups as balance allows, and never a
// group whose K and V exceed half of L2 (where the two conflict, L2 wins). Balance: the last group's
// tiles, heaviest first, must give every block about one heaviest tile (nq key tiles) of work, or a few
// blocks finish its heavy tiles while the others wait; a head's tiles hold nq(nq + 1)/2 key tiles, so a
// group needs at least 2·blocks/(nq + 1) heads. What the rule buys, and where it does not, is measured in
// docs/cases.md.
inline int flash90_groups(int bh, int nq, int blocks, long long l2, long long kv) {
  const long long min_heads = (2ll * blocks + nq) / (nq + 1);  // ⌈2·blocks/(nq + 1)⌉
  const long long fit = std::max(1ll, (l2 / 2) / std::max(1ll, kv));  // heads whose K and V fit in half of L2
  const long long by_l2 = (bh + fit - 1) / fit;
  return static_cast<int>(std::min<long long>(bh, std::max({1ll, bh / std::max(1ll, min_heads), by_l2})));
}

// Spreads the heads over `groups` groups whose sizes differ by at most one.
inline void flash90_set_groups(Flash90Params& p, int groups) {
  groups = std::max(1, std::min(groups, p.bh));
  p.group = p.bh / groups;
  p.big = p.bh % groups;
}

template <class T, int D>
Flash90Params flash90_params(const FlashMmaArgs<T>& a, int blocks) {
  using flash90_host::make_map;
  Flash90Params p;
  p.q = make_map(a.q, a.batch, a.heads, a.seq, D, kFlash90Rows);
  p.k = make_map(a.k, a.batch, a.heads, a.seq, D, kFlash90Keys);
  p.v = make_map(a.v, a.batch, a.heads, a.seq, D, kFlash90Keys);
  p.o = make_map(HalfHeadLayout<T>{a.o, a.osb, a.osh, a.oss}, a.batch, a.heads, a.seq, D, 64);
  p.heads = a.heads;
  p.seq = a.seq;
  p.bh = a.batch * a.heads;
  p.nq = (a.seq + kFlash90Rows - 1) / kFlash90Rows;
  p.total = p.bh * p.nq;
  static const int l2 = device_attribute(cudaDevAttrL2CacheSize);
  flash90_set_groups(p, flash90_groups(p.bh, p.nq, blocks, l2, 4ll * a.seq * D));
  p.scale_log2 = a.scale_log2;
  return p;
}

// Launches the sm_90 kernel; flash90_refusal(a, D) must be "".
template <class T, int D, bool kPingPong = true>
void launch_flash90(const FlashMmaArgs<T>& a, const LaunchContext& ctx, const char* name) {
  constexpr size_t smem = Flash90Config<D>::kSmemBytes;
  static const bool opted_in = [] {
    FB_CUDA_CHECK(cudaFuncSetAttribute(flash90_kernel<T, D, kPingPong>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(smem)));
    return true;
  }();
  (void)opted_in;
  const int grid = flash90_grid(a, ctx);
  const Flash90Params p = flash90_params<T, D>(a, grid);
  flash90_kernel<T, D, kPingPong><<<grid, kFlash90Threads, smem, static_cast<cudaStream_t>(ctx.stream)>>>(p);
  FB_CUDA_CHECK_LAUNCH(name);
}
#endif  // FB_FLASH90_HOST

// The kernel names launch_flash_attention reports.
inline constexpr const char* kFlash90Name = "flash_attention_sm90";
inline constexpr const char* kFlashMmaName = "flash_attention_mma";

// Causal flash attention on the fastest kernel this device and build have for these operands: the
// sm_90 kernel on Hopper when the build has sm_90a code and the operands suit it, else the mma.sync
// kernel (sm_80+; it refuses older devices). Returns the name of the kernel launched.
template <class T, int D>
const char* launch_flash_attention(const FlashMmaArgs<T>& a, const LaunchContext& ctx, const char* name) {
#ifdef FB_FLASH90_HOST
  if (flash90_refusal(a, D).empty()) {
    launch_flash90<T, D>(a, ctx, name);
    return kFlash90Name;
  }
#endif
  launch_flash_mma<T, D>(a, ctx, name);
  return kFlashMmaName;
}

}  // namespace fusebench::cuda
