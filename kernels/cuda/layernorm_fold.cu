// The two small passes of the LayerNorm-folded GEMM (gemm.cuh has the algebra): the weight fold,
// w' = w·diag(γ), c_j = Σ_k w'_jk, d_j = b_j + Σ_k β_k·w_jk, and each row's μ and ρ = 1/√(σ² + ε).
#include "cuda/gemm.cuh"

namespace fusebench::cuda {

namespace {

// One warp per row of w.
__global__ void __launch_bounds__(256) fold_layernorm_weights_kernel(const float* __restrict__ w, const float* __restrict__ gamma,
                                                                   const float* __restrict__ beta, const float* __restrict__ b,
                                                                   float* __restrict__ w_folded, float* __restrict__ c,
                                                                   float* __restrict__ d, int n, int k) {
  const int lane = threadIdx.x % 32;
  for (int j = (blockIdx.x * blockDim.x + threadIdx.x) / 32; j < n; j += gridDim.x * blockDim.x / 32) {
    const float* wr = w + static_cast<size_t>(j) * k;
    float* wf = w_folded + static_cast<size_t>(j) * k;
    float cs = 0.0f, ds = 0.0f;
    for (int e = lane; e < k; e += 32) {
      const float wv = wr[e], f = wv * __ldg(gamma + e);
      wf[e] = f;
      cs += f;
      ds = fmaf(__ldg(beta + e), wv, ds);
    }
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) {
      cs += __shfl_xor_sync(0xffffffffu, cs, off);
      ds += __shfl_xor_sync(0xffffffffu, ds, off);
    }
    if (lane == 0) {
      c[j] = cs;
      d[j] = ds + b[j];
    }
  }
}

// One warp per row of x: the mean, then the variance about it (two passes over the row; the second
// reads it from L1/L2), as the LayerNorm kernels compute them. 16-byte loads where the row allows.
__global__ void __launch_bounds__(256) layernorm_row_stats_kernel(const float* __restrict__ x, float* __restrict__ stats, int m, int k,
                                                                float eps, bool vec) {
  const int lane = threadIdx.x % 32;
  for (int i = (blockIdx.x * blockDim.x + threadIdx.x) / 32; i < m; i += gridDim.x * blockDim.x / 32) {
    const float* row = x + static_cast<size_t>(i) * k;
    float sum = 0.0f;
    if (vec) {
      for (int e = 4 * lane; e < k; e += 128) {
        const float4 v = __ldg(reinterpret_cast<const float4*>(row + e));
        sum += (v.x + v.y) + (v.z + v.w);
      }
    } else {
      for (int e = lane; e < k; e += 32) sum += __ldg(row + e);
    }
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, off);
    const float mean = sum / static_cast<float>(k);
    float sq = 0.0f;
    if (vec) {
      for (int e = 4 * lane; e < k; e += 128) {
        const float4 v = __ldg(reinterpret_cast<const float4*>(row + e));
        const float d0 = v.x - mean, d1 = v.y - mean, d2 = v.z - mean, d3 = v.w - mean;
        sq += (d0 * d0 + d1 * d1) + (d2 * d2 + d3 * d3);
      }
    } else {
      for (int e = lane; e < k; e += 32) {
        const float d = __ldg(row + e) - mean;
        sq += d * d;
      }
    }
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) sq += __shfl_xor_sync(0xffffffffu, sq, off);
    if (lane == 0) {
      stats[2 * static_cast<size_t>(i)] = mean;
      stats[2 * static_cast<size_t>(i) + 1] = rsqrtf(sq / static_cast<float>(k) + eps);
    }
  }
}

}  // namespace

void layernorm_row_stats(const float* x, float* stats, int m, int k, float eps, const LaunchContext& ctx) {
  const int warps_per_block = 8;
  const bool vec = k % 4 == 0 && reinterpret_cast<size_t>(x) % 16 == 0;
  long long blocks = (static_cast<long long>(m) + warps_per_block - 1) / warps_per_block;
  if (ctx.max_blocks > 0 && blocks > static_cast<long long>(ctx.max_blocks)) blocks = static_cast<long long>(ctx.max_blocks);
  layernorm_row_stats_kernel<<<static_cast<unsigned>(blocks), 32 * warps_per_block, 0, static_cast<cudaStream_t>(ctx.stream)>>>(
      x, stats, m, k, eps, vec);
  FB_CUDA_CHECK_LAUNCH("layernorm_row_stats_kernel");
}

void fold_layernorm_weights(const float* w, const float* gamma, const float* beta, const float* b, float* w_folded,
                                   float* c, float* d, int n, int k, const LaunchContext& ctx) {
  const int warps_per_block = 8;
  fold_layernorm_weights_kernel<<<(n + warps_per_block - 1) / warps_per_block, 32 * warps_per_block, 0,
                                  static_cast<cudaStream_t>(ctx.stream)>>>(w, gamma, beta, b, w_folded, c, d, n, k);
  FB_CUDA_CHECK_LAUNCH("fold_layernorm_weights_kernel");
}

}  // namespace fusebench::cuda
