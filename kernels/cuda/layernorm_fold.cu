// The small passes of the LayerNorm-folded GEMM (gemm.cuh has the algebra): the weight fold,
// w' = w·diag(γ), c_j = Σ_k w'_jk, d_j = b_j + Σ_k β_k·w_jk, and each row's μ and ρ = 1/√(σ² + ε),
// one warp a weight row or a row of x. layernorm_prologue() runs up to two folds and the statistics
// of one x in one launch, their blocks side by side: the fold of a GPT-2 weight takes 96 to 384
// blocks, too few to fill the GPU alone, and each launch less is a kernel boundary less.
#include "cuda/gemm.cuh"

namespace fusebench::cuda {

namespace {

constexpr int kWarpsPerBlock = 8;

__device__ __forceinline__ void fold_row(const LayerNormFold& f, int j, int lane) {
  const float* wr = f.w + static_cast<size_t>(j) * f.k;
  float* wf = f.w_folded + static_cast<size_t>(j) * f.k;
  float cs = 0.0f, ds = 0.0f;
  for (int e = lane; e < f.k; e += 32) {
    const float wv = wr[e], g = __ldg(f.gamma + e) * wv;
    wf[e] = g;
    cs += g;
    ds = fmaf(__ldg(f.beta + e), wv, ds);
  }
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) {
    cs += __shfl_xor_sync(0xffffffffu, cs, off);
    ds += __shfl_xor_sync(0xffffffffu, ds, off);
  }
  if (lane == 0) {
    f.c[j] = cs;
    f.d[j] = ds + f.b[j];
  }
}

// The mean, then the variance about it (two passes over the row; the second reads it from L1/L2), as
// the LayerNorm kernels compute them. 16-byte loads where the row allows (vec).
__device__ __forceinline__ void stats_row(const RowStats& s, int i, int lane, bool vec) {
  const float* row = s.x + static_cast<size_t>(i) * s.k;
  float sum = 0.0f;
  if (vec) {
    for (int e = 4 * lane; e < s.k; e += 128) {
      const float4 v = __ldg(reinterpret_cast<const float4*>(row + e));
      sum += (v.x + v.y) + (v.z + v.w);
    }
  } else {
    for (int e = lane; e < s.k; e += 32) sum += __ldg(row + e);
  }
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, off);
  const float mean = sum / static_cast<float>(s.k);
  float sq = 0.0f;
  if (vec) {
    for (int e = 4 * lane; e < s.k; e += 128) {
      const float4 v = __ldg(reinterpret_cast<const float4*>(row + e));
      const float d0 = v.x - mean, d1 = v.y - mean, d2 = v.z - mean, d3 = v.w - mean;
      sq += (d0 * d0 + d1 * d1) + (d2 * d2 + d3 * d3);
    }
  } else {
    for (int e = lane; e < s.k; e += 32) {
      const float d = __ldg(row + e) - mean;
      sq += d * d;
    }
  }
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) sq += __shfl_xor_sync(0xffffffffu, sq, off);
  if (lane == 0) {
    s.stats[2 * static_cast<size_t>(i)] = mean;
    s.stats[2 * static_cast<size_t>(i) + 1] = rsqrtf(sq / static_cast<float>(s.k) + s.eps);
  }
}

// Blocks [first[f], first[f + 1]) fold weight f; blocks from first[folds] on take the rows of x,
// grid-stride within their range.
struct Prologue {
  LayerNormFold fold[kMaxLayerNormFolds];
  int folds;
  int first[kMaxLayerNormFolds + 1];
  RowStats stats;
  bool vec;
};

__global__ void __launch_bounds__(32 * kWarpsPerBlock) layernorm_prologue_kernel(Prologue p) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int block = static_cast<int>(blockIdx.x);
  for (int f = 0; f < p.folds; ++f) {
    if (block < p.first[f + 1]) {
      const int j = (block - p.first[f]) * kWarpsPerBlock + warp;
      if (j < p.fold[f].n) fold_row(p.fold[f], j, lane);
      return;
    }
  }
  const int stats_blocks = static_cast<int>(gridDim.x) - p.first[p.folds];
  for (long long i = static_cast<long long>(block - p.first[p.folds]) * kWarpsPerBlock + warp; i < p.stats.m;
       i += static_cast<long long>(stats_blocks) * kWarpsPerBlock)
    stats_row(p.stats, static_cast<int>(i), lane, p.vec);
}

}  // namespace

void layernorm_prologue(std::initializer_list<LayerNormFold> folds, const RowStats& stats, const LaunchContext& ctx) {
  if (folds.size() > static_cast<size_t>(kMaxLayerNormFolds)) throw std::invalid_argument("layernorm_prologue: at most two weight folds a launch");
  Prologue p{};
  int blocks = 0;
  for (const LayerNormFold& f : folds) {
    p.fold[p.folds] = f;
    p.first[p.folds] = blocks;
    blocks += (f.n + kWarpsPerBlock - 1) / kWarpsPerBlock;
    ++p.folds;
  }
  p.first[p.folds] = blocks;
  p.stats = stats;
  p.vec = stats.k % 4 == 0 && reinterpret_cast<size_t>(stats.x) % 16 == 0;
  long long stats_blocks = (static_cast<long long>(stats.m) + kWarpsPerBlock - 1) / kWarpsPerBlock;
  if (ctx.max_blocks > 0 && stats_blocks > static_cast<long long>(ctx.max_blocks)) stats_blocks = static_cast<long long>(ctx.max_blocks);
  if (stats_blocks < 1) stats_blocks = 1;
  layernorm_prologue_kernel<<<static_cast<unsigned>(blocks + stats_blocks), 32 * kWarpsPerBlock, 0,
                              static_cast<cudaStream_t>(ctx.stream)>>>(p);
  FB_CUDA_CHECK_LAUNCH("layernorm_prologue_kernel");
}

void layernorm_row_stats(const RowStats& stats, const LaunchContext& ctx) { layernorm_prologue({}, stats, ctx); }

}  // namespace fusebench::cuda
