// The fused GPT-2 decode step: one persistent kernel launched once (cooperatively) for every layer, the
// final LayerNorm and the LM head. On Hopper it is the ring kernel (gpt2_decode_ring.cuh: a producer warp
// streams every weight into a shared-memory ring with bulk copies, ahead of the activations); elsewhere,
// or where the ring refuses the shape, the register-streaming kernel of this file. gpt2_decode_fused_cuda
// picks and reports which ran.
//
// The register-streaming kernel: one block of 256 threads per multiprocessor. Four grid-wide barriers per
// layer, 48 for GPT-2 small (a stage-per-op schedule takes 6 or 7 per layer):
//   1. QKV: every block normalizes x itself (LN1 where it is consumed, no stage of its own) and each warp
//      owns a contiguous range of Wqkv's rows, writing q|k|v + bias in fp32.               — barrier —
//   2. Attention + out-projection: (head, chunk of keys) items over the blocks; the block whose chunk
//      holds key pos first writes the new K/V row into the cache. Each chunk's partial result is
//      published with a per-(layer, head) counter; then every chunk block takes its share of the head's
//      rows of the out-projection, o_h·Wo[r, 64h .. 64h + 64)ᵀ (+ bo by head 0), waiting on the head's
//      counter only (not on the grid), and adds it into the fp32 residual x with atomics.  — barrier —
//   3. FFN1: every block normalizes x (LN2); warps own rows of W1 and write gelu(· + b1).  — barrier —
//   4. FFN2: the (row, 256-column) items of W2 split evenly over the warps, partial sums added into x
//      with atomics (+ b2 by the item holding column 0).                                   — barrier —
//   Then LNf in every block and the LM head, warps owning rows of wte, writing logits in T.
// What keeps memory busy across those dependency points:
//   - each barrier is split into arrive and wait; between them every warp issues the loads of its first
//     8 weight packs of the next stage (128 B a lane) and its rows' biases into registers, and the block
//     stages the next LayerNorm's γ and β in shared memory (none depends on the barrier): at GPT-2 small
//     that is the whole of a QKV, FFN1 or FFN2 stage's weights in flight while the block waits;
//   - at the start of each layer every block asks L2 to prefetch its share of the next layer's weights
//     and K/V rows (cp.async.bulk.prefetch on sm_90, prefetch.global.L2 lines before), and during the
//     last layer the first 16 MiB of the LM head: a layer (15.7 MB at GPT-2 small) fits beside the
//     current one in the H100's 50 MB L2.
// gpt2_decode_sync.cuh has the barrier and counters both kernels use; docs/gpt2-decode.md the per-stage
// byte budget and what limits each kernel, docs/gpt2-decode-tries.md the measurements of every change. A
// grid that could not be co-resident is refused before launch with the occupancy it needs;
// cudaLaunchCooperativeKernel checks it again.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/gelu.h"
#include "cuda/cuda_check.cuh"
#include "gpt2_decode.h"
#include "gpt2_decode_device.cuh"
#include "gpt2_decode_gemv.cuh"
#include "gpt2_decode_ring.cuh"
#include "gpt2_decode_sync.cuh"

namespace fusebench::kernels {
namespace {

using namespace gpt2;

constexpr size_t kLmHeadPrefetch = size_t{16} << 20;  // LM-head bytes prefetched during the last layer

__device__ __forceinline__ size_t min_size(size_t x, size_t y) { return x < y ? x : y; }

// This block's share of [p, p + bytes) into L2 (a hint: no completion to wait for).
__device__ __forceinline__ void prefetch_l2(const void* p, size_t bytes) {
  const size_t begin = (bytes * blockIdx.x / gridDim.x) & ~size_t{15};
  const size_t end = (bytes * (blockIdx.x + 1) / gridDim.x) & ~size_t{15};
  const char* base = static_cast<const char*>(p);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  constexpr size_t kPiece = 64 << 10;
  for (size_t off = begin + threadIdx.x * kPiece; off < end; off += blockDim.x * kPiece) {
    const unsigned size = static_cast<unsigned>(min_size(kPiece, end - off));
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(base + off), "r"(size) : "memory");
  }
#else
  for (size_t off = begin + threadIdx.x * 128; off < end; off += blockDim.x * 128)
    asm volatile("prefetch.global.L2 [%0];" ::"l"(base + off));
#endif
}

template <class T>
struct FusedParams {
  Gpt2DecodeArgs<T> a;
  size_t chunk, splits;
};

template <class T>
__global__ void __launch_bounds__(kThreads, 1) gpt2_decode_fused_kernel(const FusedParams<T> p) {
  extern __shared__ __align__(16) float smem[];
  __shared__ float red[32];
  const Gpt2DecodeArgs<T>& a = p.a;
  const int c = static_cast<int>(a.hidden), f = static_cast<int>(a.f), heads = static_cast<int>(a.heads);
  const size_t cc = size_t(c) * c, fc = size_t(f) * c, cache_layer = a.ctx * c, keys = a.pos + 1;
  const size_t items = heads * p.splits;
  float* xs = smem;                                 // [max(c, f)] the GEMV input
  float* ng = xs + (((c > f ? c : f) + 3) & ~3);    // [c] the next LayerNorm's γ
  float* nb = ng + c;                               // [c] and β
  float* q = nb + c;                                // [64]
  float* s = q + 64;                                // [kMaxChunk]
  float* opart = s + kMaxChunk;                     // [kThreads / 8 · 64]
  const size_t warps = size_t(gridDim.x) * kWarps, warp = size_t(blockIdx.x) * kWarps + (threadIdx.x >> 5);
  const int elem = sizeof(T);
  unsigned generation = 0;  // barriers passed in this launch
  auto prefetch_layer = [&](size_t l) {
    prefetch_l2(a.w_qkv + l * 3 * cc, 3 * cc * elem);
    prefetch_l2(a.k_cache + l * cache_layer, a.pos * c * elem);
    prefetch_l2(a.v_cache + l * cache_layer, a.pos * c * elem);
    prefetch_l2(a.w_o + l * cc, cc * elem);
    prefetch_l2(a.w1 + l * fc, fc * elem);
    prefetch_l2(a.w2 + l * fc, fc * elem);
  };

  Pack<T> buf[kPreload<T>];
  Items it = row_items(3 * c, c, warp, warps);
  load_items(buf, a.w_qkv, c, it, it.i0);
  float bias = load_bias(a.b_qkv, it);
  // The end of a stage: arrive at the barrier, then start the loads of the next stage's first weights
  // and its biases (`handover`); `release` waits for the barrier (callers stage γ/β in between).
  auto handover = [&](int stamp_done, const Items& next, const T* w, int k, const T* b) {
    FB_STAMP(stamp_done);
    grid_arrive<WholeBlock>();
    it = next;
    load_items(buf, w, k, it, it.i0);
    bias = load_bias(b, it);
  };
  auto release = [&](int stamp_released) {
    grid_wait<WholeBlock>(++generation);
    FB_STAMP(stamp_released);
  };
  stage_norm(ng, nb, a.ln1_g, a.ln1_b, c);
  prefetch_layer(0);
  // x = wte[token] + wpe[pos]: every block for its own LN1, block 0 also into the residual.
  for (int i = threadIdx.x; i < c; i += blockDim.x) {
    const float v = to_float(a.wte[a.token * c + i]) + to_float(a.wpe[a.pos * c + i]);
    xs[i] = v;
    if (blockIdx.x == 0) a.x_f[i] = v;
  }

  FB_STAMP(0);
  for (size_t l = 0; l < a.layers; ++l) {
    const int st = static_cast<int>(8 * l);  // this layer's first stamp − 1
    if (l + 1 < a.layers) prefetch_layer(l + 1);
    else prefetch_l2(a.wte, min_size(kLmHeadPrefetch, a.vocab * c * elem));
    // 1. LN1 + QKV.
    if (l > 0) stage_vector(xs, a.x_f, c);
    layernorm_smem(xs, ng, nb, c, a.eps, red);
    gemv(buf, a.w_qkv + l * 3 * cc, c, it, xs, a.b_qkv + l * 3 * c, bias, [&](size_t row, float v) { a.qkv_f[row] = v; });
    FB_STAMP(st + 1);
    grid_arrive<WholeBlock>();
    stage_norm(ng, nb, a.ln2_g + l * c, a.ln2_b + l * c, c);
    release(st + 2);

    // 2. Attention + out-projection. First every (head, chunk) item of this block, none waiting on another
    // block (so any grid size makes progress): the block whose chunk holds key pos writes the new K/V row
    // first; each partial result is published with the head's counter.
    T* kc = a.k_cache + l * cache_layer;
    T* vc = a.v_cache + l * cache_layer;
    unsigned* done = g_head_done + l * kMaxHeads;
    for (size_t item = blockIdx.x; item < items; item += gridDim.x) {
      const int h = static_cast<int>(item / p.splits);
      const size_t k0 = (item % p.splits) * p.chunk, k1 = min_size(k0 + p.chunk, keys);
      if (threadIdx.x < 64) {
        const int col = h * 64 + threadIdx.x;
        q[threadIdx.x] = __ldcg(a.qkv_f + col) * kScoreScale;
        if (k1 == keys) {
          kc[a.pos * c + col] = from_float<T>(__ldcg(a.qkv_f + c + col));
          vc[a.pos * c + col] = from_float<T>(__ldcg(a.qkv_f + 2 * c + col));
        }
      }
      __syncthreads();
      attend_chunk(q, kc + h * 64, vc + h * 64, c, k0, k1, s, opart, red, a.att_part + item * kPartFloats);
      if (threadIdx.x == 0) {
        __threadfence();
        atomicAdd(done + h, 1u);
      }
    }
    // Then, per item, this chunk's share of the head's rows of the out-projection once every chunk of
    // the head is in: x[r] += Σ_d Wo[r, 64h + d]·o_h[d] (+ bo[r] by head 0), groups of 8 lanes per row,
    // the weights loaded before the wait.
    for (size_t item = blockIdx.x; item < items; item += gridDim.x) {
      const int h = static_cast<int>(item / p.splits);
      const size_t chunk = item % p.splits;
      const int r_begin = static_cast<int>(c * chunk / p.splits), r_end = static_cast<int>(c * (chunk + 1) / p.splits);
      const T* wo = a.w_o + l * cc + h * 64;
      const T* bo = a.b_o + l * c;
      const int l8 = threadIdx.x & 7, groups = kThreads / 8;
      constexpr int kRowsInFlight = 4;
      const int r_first = r_begin + (threadIdx.x >> 3);
      Pack<T> w[kRowsInFlight];
#pragma unroll
      for (int u = 0; u < kRowsInFlight; ++u)
        if (r_first + u * groups < r_end) w[u] = load_pack(wo + size_t(r_first + u * groups) * c + l8 * kPack);
      wait_count<WholeBlock>(done + h, static_cast<unsigned>(p.splits));
      if (threadIdx.x < 64) q[threadIdx.x] = combine_head(a.att_part + h * p.splits * kPartFloats, p.splits, threadIdx.x);
      __syncthreads();
      // Warp-uniform bound: every lane reaches the shuffles.
      for (int r0 = r_first; r0 - ((threadIdx.x >> 3) & 3) < r_end; r0 += groups * kRowsInFlight) {
#pragma unroll
        for (int u = 0; u < kRowsInFlight; ++u) {
          const int r = r0 + u * groups;
          if (r0 != r_first && r < r_end) w[u] = load_pack(wo + size_t(r) * c + l8 * kPack);
        }
#pragma unroll
        for (int u = 0; u < kRowsInFlight; ++u) {
          const int r = r0 + u * groups;
          const float v = group8_sum(r < r_end ? dot_pack(w[u], q + l8 * kPack) : 0.f);
          if (r < r_end && l8 == 0) atomicAdd(a.x_f + r, v + (h == 0 ? to_float(bo[r]) : 0.f));
        }
      }
      __syncthreads();
    }
    handover(st + 3, row_items(f, c, warp, warps), a.w1 + l * fc, c, a.b1 + l * f);
    release(st + 4);

    // 3. LN2 + FFN1 + GELU. Block 0 also clears this layer's head counters (nobody reads them any more).
    if (blockIdx.x == 0 && threadIdx.x < heads) done[threadIdx.x] = 0;
    stage_vector(xs, a.x_f, c);
    layernorm_smem(xs, ng, nb, c, a.eps, red);
    gemv(buf, a.w1 + l * fc, c, it, xs, a.b1 + l * f, bias, [&](size_t row, float u) {
      a.g_f[row] = gelu_tanh(u);
    });
    handover(st + 5, split_items(c, f, warp, warps), a.w2 + l * fc, f, a.b2 + l * c);
    release(st + 6);

    // 4. FFN2 + b2 into the residual.
    stage_vector(xs, a.g_f, f);
    __syncthreads();
    gemv(buf, a.w2 + l * fc, f, it, xs, a.b2 + l * c, bias, [&](size_t row, float v) { atomicAdd(a.x_f + row, v); });
    if (l + 1 < a.layers) {
      handover(st + 7, row_items(3 * c, c, warp, warps), a.w_qkv + (l + 1) * 3 * cc, c, a.b_qkv + (l + 1) * 3 * c);
      stage_norm(ng, nb, a.ln1_g + (l + 1) * c, a.ln1_b + (l + 1) * c, c);
    } else {
      handover(st + 7, row_items(a.vocab, c, warp, warps), a.wte, c, static_cast<const T*>(nullptr));
      stage_norm(ng, nb, a.lnf_g, a.lnf_b, c);
    }
    release(st + 8);
  }

  // LNf + LM head over the tied embedding.
  stage_vector(xs, a.x_f, c);
  layernorm_smem(xs, ng, nb, c, a.eps, red);
  gemv(buf, a.wte, c, it, xs, static_cast<const T*>(nullptr), 0.f,
       [&](size_t row, float v) { a.logits[row] = from_float<T>(v); });
  FB_STAMP(static_cast<int>(8 * a.layers + 1));
}

// Dynamic shared memory of one block: the GEMV vector, q, the chunk's scores and the output partials.
size_t fused_smem_bytes(size_t hidden, size_t f) {
  return (((std::max(hidden, f) + 3) & ~size_t{3}) + 2 * hidden + 64 + kMaxChunk + kThreads / 8 * 64) * sizeof(float);
}

template <class T>
void launch_streaming(const Gpt2DecodeArgs<T>& a, const LaunchContext& ctx, int blocks) {
  const auto kernel = gpt2_decode_fused_kernel<T>;
  const size_t smem = fused_smem_bytes(a.hidden, a.f);
  const AttentionSplit split = attention_split(a.pos + 1, a.heads, static_cast<size_t>(blocks));
  launch_persistent(kernel, FusedParams<T>{a, split.chunk, split.splits}, blocks, kThreads, smem, ctx,
                    "gpt2_decode fused (register streaming)");
}

}  // namespace

// The ring kernel where the device and build have it (Hopper), else the register-streaming kernel, which
// the results name with the ring's reason for refusing.
template <class T>
void gpt2_decode_fused_cuda(const Gpt2DecodeArgs<T>& a, const LaunchContext& ctx) {
  static const bool cooperative = device_attribute(cudaDevAttrCooperativeLaunch) != 0;  // one device a process
  if (!cooperative)
    throw std::runtime_error("gpt2_decode fused: the device cannot launch cooperative (co-resident) grids");
  int blocks = ctx.sm_count;
  if (ctx.max_blocks > 0) blocks = static_cast<int>(std::min<size_t>(blocks, ctx.max_blocks));
  int slots = 0;
  const std::string why = gpt2::ring::refusal(a, static_cast<size_t>(blocks), slots);
  if (why.empty()) {
    gpt2::ring::launch(a, ctx, blocks, slots);
    report_kernel(ctx, "gpt2_decode_ring_sm90");
    return;
  }
  launch_streaming(a, ctx, blocks);
  static std::string name;  // what report_kernel points at, kept until the next call
  name = "gpt2_decode_streaming (the ring kernel: " + why + ")";
  report_kernel(ctx, name.c_str());
}

#ifdef GPT2_DECODE_STAGE_TIMES
std::vector<unsigned long long> gpt2_decode_stage_times() {
  // The global-timer stamps, the ring's wait totals (cycles), then the cycle stamps (gpt2_decode.h).
  std::vector<unsigned long long> out(kTimedBlocks * kStamps), waits(kTimedBlocks), clk(kTimedBlocks * kStamps);
  FB_CUDA_CHECK(cudaMemcpyFromSymbol(out.data(), g_stage_ns, out.size() * sizeof(unsigned long long)));
  FB_CUDA_CHECK(cudaMemcpyFromSymbol(waits.data(), g_ring_wait_clk, waits.size() * sizeof(unsigned long long)));
  FB_CUDA_CHECK(cudaMemcpyFromSymbol(clk.data(), g_stage_clk, clk.size() * sizeof(unsigned long long)));
  out.insert(out.end(), waits.begin(), waits.end());
  out.insert(out.end(), clk.begin(), clk.end());
  const std::vector<unsigned long long> zero(kTimedBlocks, 0);
  FB_CUDA_CHECK(cudaMemcpyToSymbol(g_ring_wait_clk, zero.data(), zero.size() * sizeof(unsigned long long)));
  return out;
}
#endif

#define FB_INSTANTIATE(T) template void gpt2_decode_fused_cuda<T>(const Gpt2DecodeArgs<T>&, const LaunchContext&);
FB_FOR_EACH_DTYPE(FB_INSTANTIATE)
#undef FB_INSTANTIATE

}  // namespace fusebench::kernels
