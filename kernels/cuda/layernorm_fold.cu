// The weight fold of the LayerNorm-folded GEMM (gemm.cuh has the algebra): w' = w·diag(γ),
// c_j = Σ_k w'_jk, d_j = b_j + Σ_k β_k·w_jk.
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

}  // namespace

void fold_layernorm_weights(const float* w, const float* gamma, const float* beta, const float* b, float* w_folded,
                                   float* c, float* d, int n, int k, const LaunchContext& ctx) {
  const int warps_per_block = 8;
  fold_layernorm_weights_kernel<<<(n + warps_per_block - 1) / warps_per_block, 32 * warps_per_block, 0,
                                  static_cast<cudaStream_t>(ctx.stream)>>>(w, gamma, beta, b, w_folded, c, d, n, k);
  FB_CUDA_CHECK_LAUNCH("fold_layernorm_weights_kernel");
}

}  // namespace fusebench::cuda
