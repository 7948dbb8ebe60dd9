// Causal flash attention on the tensor cores (the FlashAttention-2 forward) for fp16 or bf16 Q, K, V,
// O with head dimension D ∈ {64, 128}: O = softmax(Q·Kᵀ/√D + mask)·V, fp32 accumulation and softmax.
//
// A 128-thread block takes 64 query rows of one (batch, head), 16 per warp, and walks the key tiles
// of 64 up to the diagonal (later tiles are fully masked and never loaded). A warp holds its Q rows as
// mma.sync m16n8k16 A fragments for the whole walk. Per key tile it computes S = Q·Kᵀ (16×64, fp32;
// K's d-contiguous rows are the "col" B operand: plain ldmatrix), updates the row max online (the 4
// lanes of a quad share a row: two xor shuffles) and turns S into P = exp2(S·scale − m·scale) in
// place: the scale log2(e)/√D is folded into that FFMA rather than into Q, which would round Q·scale
// to T. The accumulators of two adjacent n8 tiles are exactly the A fragment of one k16 step, so P,
// rounded to T, feeds P·V straight from registers; V's B fragments come from ldmatrix.trans of its
// row-major tile. Row sums stay per lane until the end (a quad's lanes rescale theirs alike).
//
// K and V tiles are double-buffered in shared memory and fetched one tile ahead by cp.async (zero
// fill past the sequence); Q passes through the second K buffer before the first prefetch. A row's
// 16-byte chunks sit at chunk ^ (row % 8), so the 8 rows of each ldmatrix 8×8 read fall in distinct
// banks. Only the diagonal tile evaluates the mask key > min(row, seq − 1), which also hides the keys
// past the sequence from the last tile's padding rows (computed, never written). Every row sees key 0
// in the first tile, so the running max is finite from there on and exp2 never meets −∞ − (−∞). O / l
// is staged through shared memory and written as 16-byte row vectors.
//
// Grid (query tiles, heads, batch), tile index reversed: a head's tiles run together (its K and V
// stay in L2), heaviest first. Layout strided as in flash_attention.cuh; the launcher checks that
// bases and strides are multiples of 8 elements (16-byte vectors) and that the device is sm_80+ (for
// older targets the kernel compiles to an empty body).
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "common/dtype.h"
#include "common/launch.h"
#include "cuda/cuda_check.cuh"
#include "cuda/mma_ops.cuh"

namespace fusebench::cuda {

constexpr int kFlashMmaRows = 64;  // query rows per block and keys per tile
constexpr int kFlashMmaThreads = 128;

template <class T>
struct HalfHeadLayout {
  const T* base;
  long long sb, sh, ss;  // elements
  __host__ __device__ const T* row(int b, int h, int s) const { return base + b * sb + h * sh + s * ss; }
};

template <class T>
struct FlashMmaArgs {
  HalfHeadLayout<T> q, k, v;
  T* o;  // element (b, h, s, d) at o + b·osb + h·osh + s·oss + d
  long long osb, osh, oss;
  int batch, heads, seq;
  float scale_log2;  // log2(e)/√D
};

// K and V, two stages each, of 64 rows × D two-byte elements.
template <int D>
constexpr size_t flash_mma_smem_bytes() {
  return 4 * kFlashMmaRows * D * sizeof(__half);
}

namespace flash_mma_detail {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800

// Byte offset of 16-byte chunk `ch` of tile row `r` (XOR swizzle).
template <int D>
__device__ __forceinline__ uint32_t swz(int r, int ch) {
  return r * (D * 2) + ((ch ^ (r & 7)) << 4);
}

// Issues the copies of rows [0, 64) of a tile whose row 0 is at src (zeros from row `rows` on).
template <int D, class T>
__device__ __forceinline__ void load_tile(uint32_t dst, const T* src, long long ss, int rows) {
  constexpr int kChunks = D / 8;
#pragma unroll
  for (int i = 0; i < kFlashMmaRows * kChunks / kFlashMmaThreads; ++i) {
    const int c = threadIdx.x + kFlashMmaThreads * i, r = c / kChunks, ch = c % kChunks;
    const bool in = r < rows;
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst + swz<D>(r, ch)),
                 "l"(src + (in ? r : 0) * ss + ch * 8), "r"(in ? 16 : 0));
  }
}

__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}

__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t (&r)[4], uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}

// c += a·b for one m16n8k16 tile.
template <class T>
__device__ __forceinline__ void mma(float (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  mma_m16n8k16<std::is_same_v<T, __half>>(c, a[0], a[1], a[2], a[3], b0, b1);
}

// Two floats rounded to T, lo in the low half (the lower column of a fragment register).
template <class T>
__device__ __forceinline__ uint32_t pack(float lo, float hi) {
  if constexpr (std::is_same_v<T, __half>) {
    const __half2 v = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<const uint32_t*>(&v);
  } else {
    const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<const uint32_t*>(&v);
  }
}

__device__ __forceinline__ float exp2_approx(float x) {  // 2^x; −∞ gives 0
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}

#endif
}  // namespace flash_mma_detail

// 4 blocks per SM at D = 64 hold 128 registers a thread without spilling, faster than the 136 ptxas
// picks unbounded (docs/measurements.md, "Flash attention: blocks per SM"); D = 128 needs about 230, so 2.
// The kernel and its launcher are local to each .cu file that includes this header: without
// relocatable device code every .cu file holds its own copy of the kernel, and the shared-memory
// opt-in (cudaFuncSetAttribute) belongs to one copy, so each file's launcher opts in its own.
namespace {

template <class T, int D>
__global__ void __launch_bounds__(kFlashMmaThreads, D == 64 ? 4 : 2) flash_mma_kernel(FlashMmaArgs<T> a) {
  static_assert(std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>, "fp16 or bf16");
  static_assert(D == 64 || D == 128, "head dimension 64 or 128");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  using namespace flash_mma_detail;
  constexpr uint32_t kTile = kFlashMmaRows * D * 2;  // bytes
  extern __shared__ __align__(128) unsigned char flash_mma_smem[];
  const uint32_t k_s = static_cast<uint32_t>(__cvta_generic_to_shared(flash_mma_smem));
  const uint32_t v_s = k_s + 2 * kTile, q_s = k_s + kTile;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  const int qt = gridDim.x - 1 - blockIdx.x, h = blockIdx.y, b = blockIdx.z;
  const int q0 = qt * kFlashMmaRows;

  load_tile<D>(q_s, a.q.row(b, h, q0), a.q.ss, a.seq - q0);
  load_tile<D>(k_s, a.k.row(b, h, 0), a.k.ss, a.seq);
  load_tile<D>(v_s, a.v.row(b, h, 0), a.v.ss, a.seq);
  asm volatile("cp.async.commit_group;\ncp.async.wait_all;\n" ::: "memory");
  __syncthreads();
  // Lanes 0-15 address rows 0-15 at chunk 2·kk, lanes 16-31 at chunk 2·kk + 1: the A fragment.
  uint32_t qf[D / 16][4];
#pragma unroll
  for (int kk = 0; kk < D / 16; ++kk) ldmatrix_x4(qf[kk], q_s + swz<D>(16 * warp + lane % 16, 2 * kk + lane / 16));

  float o[D / 8][4] = {}, m[2] = {-INFINITY, -INFINITY}, l[2] = {0.0f, 0.0f};
  for (int kt = 0; kt <= qt; ++kt) {
    asm volatile("cp.async.wait_all;\n" ::: "memory");
    __syncthreads();  // tile kt has landed; every warp is done with tile kt − 1 (or with Q)
    if (kt < qt) {
      const int s1 = (kt + 1) * kFlashMmaRows;
      load_tile<D>(k_s + ((kt + 1) & 1) * kTile, a.k.row(b, h, s1), a.k.ss, a.seq - s1);
      load_tile<D>(v_s + ((kt + 1) & 1) * kTile, a.v.row(b, h, s1), a.v.ss, a.seq - s1);
      asm volatile("cp.async.commit_group;\n" ::: "memory");
    }
    const uint32_t ks = k_s + (kt & 1) * kTile, vs = v_s + (kt & 1) * kTile;

    // S (16 × 64): s[j] is the n8 tile of keys 8j..8j+7. One ldmatrix.x4 gives the B fragments of
    // keys 16jp..16jp+15 over one k16 step: matrices (keys +0, d +0), (+0, +8), (+8, +0), (+8, +8).
    float s[8][4] = {};
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk) {
#pragma unroll
      for (int jp = 0; jp < 4; ++jp) {
        uint32_t kb[4];
        ldmatrix_x4(kb, ks + swz<D>(16 * jp + lane % 8 + 8 * (lane / 16), 2 * kk + (lane / 8) % 2));
        mma<T>(s[2 * jp], qf[kk], kb[0], kb[1]);
        mma<T>(s[2 * jp + 1], qf[kk], kb[2], kb[3]);
      }
    }
    if (kt == qt) {  // the diagonal tile (k0 = q0): this lane's rows are 16·warp + g and + 8
      const int lim[2] = {min(16 * warp + g, a.seq - 1 - q0), min(16 * warp + g + 8, a.seq - 1 - q0)};
#pragma unroll
      for (int j = 0; j < 8; ++j)
#pragma unroll
        for (int e = 0; e < 4; ++e)
          if (8 * j + 2 * t + e % 2 > lim[e / 2]) s[j][e] = -INFINITY;
    }

    // Online softmax; r = 0, 1 for the lane's rows g and g + 8 (accumulator elements 2r, 2r + 1).
    float alpha[2], ms[2];
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      float mx = m[r];
#pragma unroll
      for (int j = 0; j < 8; ++j) mx = fmaxf(mx, fmaxf(s[j][2 * r], s[j][2 * r + 1]));
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
      mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
      alpha[r] = exp2_approx((m[r] - mx) * a.scale_log2);
      m[r] = mx;
      ms[r] = mx * a.scale_log2;
      l[r] *= alpha[r];
    }
#pragma unroll
    for (int e = 0; e < 4; ++e) {
#pragma unroll
      for (int n = 0; n < D / 8; ++n) o[n][e] *= alpha[e / 2];
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        s[j][e] = exp2_approx(fmaf(s[j][e], a.scale_log2, -ms[e / 2]));
        l[e / 2] += s[j][e];
      }
    }

    // O += P·V over the k16 steps of keys 16kk..16kk+15. ldmatrix.trans of (keys +0, d +0),
    // (+8, +0), (+0, +8), (+8, +8) gives the B fragments of d tiles 2dp and 2dp + 1.
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) {
      const uint32_t pa[4] = {pack<T>(s[2 * kk][0], s[2 * kk][1]), pack<T>(s[2 * kk][2], s[2 * kk][3]),
                              pack<T>(s[2 * kk + 1][0], s[2 * kk + 1][1]), pack<T>(s[2 * kk + 1][2], s[2 * kk + 1][3])};
#pragma unroll
      for (int dp = 0; dp < D / 16; ++dp) {
        uint32_t vb[4];
        ldmatrix_x4_trans(vb, vs + swz<D>(16 * kk + lane % 16, 2 * dp + lane / 16));
        mma<T>(o[2 * dp], pa, vb[0], vb[1]);
        mma<T>(o[2 * dp + 1], pa, vb[2], vb[3]);
      }
    }
  }

  // O / l through the first K buffer (each warp its own 16 rows), then 16-byte stores of the rows
  // inside the sequence.
  __syncthreads();  // every warp is done with the last tile
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    l[r] += __shfl_xor_sync(0xffffffffu, l[r], 1);
    l[r] += __shfl_xor_sync(0xffffffffu, l[r], 2);
    const float inv = 1.0f / l[r];
#pragma unroll
    for (int n = 0; n < D / 8; ++n)
      *reinterpret_cast<uint32_t*>(flash_mma_smem + swz<D>(16 * warp + g + 8 * r, n) + 4 * t) =
          pack<T>(o[n][2 * r] * inv, o[n][2 * r + 1] * inv);
  }
  __syncwarp();
  T* out = a.o + b * a.osb + h * a.osh;
#pragma unroll
  for (int i = 0; i < D / 16; ++i) {
    const int c = lane + 32 * i, r = 16 * warp + c / (D / 8), ch = c % (D / 8);
    if (q0 + r < a.seq)
      *reinterpret_cast<uint4*>(out + (q0 + r) * a.oss + ch * 8) =
          *reinterpret_cast<const uint4*>(flash_mma_smem + swz<D>(r, ch));
  }
#else
  (void)a;  // never launched: the launcher refuses devices below sm_80
#endif
}

// The CUDA type the kernel computes with for fusebench's storage type T (the same 16 bits).
template <class T>
using CudaHalf = std::conditional_t<std::is_same_v<T, bf16>, __nv_bfloat16, __half>;

template <class T>
const CudaHalf<T>* as_cuda_half(const T* p) {
  return reinterpret_cast<const CudaHalf<T>*>(p);
}

// log2(e)/√d, the kernel's exp2 scale.
inline float flash_mma_scale_log2(int d) {
  return static_cast<float>(1.4426950408889634 / std::sqrt(static_cast<double>(d)));
}

// The operands of contiguous [batch, heads, seq, d] Q, K, V, O.
template <class T>
FlashMmaArgs<T> contiguous_flash_mma_args(const T* q, const T* k, const T* v, T* o, int batch, int heads, int seq,
                                          int d) {
  const long long sh = static_cast<long long>(seq) * d, sb = heads * sh;
  return {{q, sb, sh, d}, {k, sb, sh, d}, {v, sb, sh, d}, o, sb, sh, d, batch, heads, seq, flash_mma_scale_log2(d)};
}

// Heads of 64 side by side in rows: head h of position (b, s) at base[(b·seq + s)·ld + h·64].
template <class T>
HalfHeadLayout<CudaHalf<T>> interleaved_layout(const T* base, size_t seq, size_t ld) {
  return {as_cuda_half(base), static_cast<long long>(seq * ld), 64, static_cast<long long>(ld)};
}

// Contiguous [batch, heads, seq, 64] Q, K, V (fusebench's bf16/fp16); O written as merged-heads rows
// [batch·seq, heads·64], the layout the out-projection or the residual LayerNorm reads.
template <class T>
FlashMmaArgs<CudaHalf<T>> merged_flash_mma_args(const T* q, const T* k, const T* v, T* merged, size_t batch,
                                                size_t heads, size_t seq) {
  auto* out = reinterpret_cast<CudaHalf<T>*>(merged);
  FlashMmaArgs<CudaHalf<T>> a =
      contiguous_flash_mma_args(as_cuda_half(q), as_cuda_half(k), as_cuda_half(v), out, static_cast<int>(batch),
                                static_cast<int>(heads), static_cast<int>(seq), 64);
  const HalfHeadLayout<CudaHalf<T>> o = interleaved_layout(merged, seq, heads * 64);
  a.osb = o.sb;
  a.osh = o.sh;
  a.oss = o.ss;
  return a;
}

// Q, K, V read in place from a projection qkv [batch·seq, 3·heads·64] (columns [Q | K | V]); O written
// as merged-heads rows [batch·seq, heads·64].
template <class T>
FlashMmaArgs<CudaHalf<T>> qkv_flash_mma_args(const T* qkv, T* merged, size_t batch, size_t heads, size_t seq) {
  const size_t c = heads * 64;
  const HalfHeadLayout<CudaHalf<T>> o = interleaved_layout(merged, seq, c);
  return {interleaved_layout(qkv, seq, 3 * c), interleaved_layout(qkv + c, seq, 3 * c),
          interleaved_layout(qkv + 2 * c, seq, 3 * c), const_cast<CudaHalf<T>*>(o.base), o.sb, o.sh, o.ss,
          static_cast<int>(batch), static_cast<int>(heads), static_cast<int>(seq), flash_mma_scale_log2(64)};
}

// Throws naming the broken constraint: 16-byte vectors, a non-empty grid within its limits, sm_80+.
template <class T>
void check_flash_mma_args(const FlashMmaArgs<T>& a, const char* name) {
  const HalfHeadLayout<T> ops[4] = {a.q, a.k, a.v, {a.o, a.osb, a.osh, a.oss}};
  for (int i = 0; i < 4; ++i) {
    const HalfHeadLayout<T>& l = ops[i];
    if (reinterpret_cast<uintptr_t>(l.base) % 16 != 0 || l.sb % 8 != 0 || l.sh % 8 != 0 || l.ss % 8 != 0)
      throw std::invalid_argument(std::string(name) + ": flash_attention_mma needs the base and strides of " +
                                  "QKVO"[i] + " in multiples of 8 elements (16-byte vectors)");
  }
  if (a.seq < 1 || a.heads < 1 || a.batch < 1 || a.heads > 65535 || a.batch > 65535) {
    throw std::invalid_argument(std::string(name) + ": flash_attention_mma needs seq, heads, batch >= 1 and " +
                                "heads, batch <= 65535 (grid y, z)");
  }
  const int cc = device_compute_capability();
  if (cc < 80) {
    throw std::invalid_argument(
        "flash_attention_mma: needs compute capability 8.0+ (mma.sync bf16/fp16 m16n8k16, cp.async, ldmatrix); "
        "this device has " + std::to_string(cc / 10) + "." + std::to_string(cc % 10));
  }
}

template <class T, int D>
void launch_flash_mma(const FlashMmaArgs<T>& a, const LaunchContext& ctx, const char* name) {
  check_flash_mma_args(a, name);
  constexpr size_t smem = flash_mma_smem_bytes<D>();
  if constexpr (smem > 48 * 1024) {  // opt in once per kernel, not inside every timed call
    static const bool opted_in = [] {
      FB_CUDA_CHECK(cudaFuncSetAttribute(flash_mma_kernel<T, D>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(smem)));
      return true;
    }();
    (void)opted_in;
  }
  const dim3 grid((a.seq + kFlashMmaRows - 1) / kFlashMmaRows, a.heads, a.batch);
  flash_mma_kernel<T, D><<<grid, kFlashMmaThreads, smem, static_cast<cudaStream_t>(ctx.stream)>>>(a);
  FB_CUDA_CHECK_LAUNCH(name);
}

}  // namespace

}  // namespace fusebench::cuda
