// The own fp32 GEMMs' tile configurations against cuBLAS SGEMM (FP32 math, no TF32) at the suite's four
// GEMM shapes, on a GPU machine: which configuration the multistage launcher
// (kernels/cuda/gemm_multistage.cuh) should take, per shape. A tuning tool, not a benchmark of record:
// the gemm and gemm_multistage cases measure the launchers' choices with the suite's statistics.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -I kernels -I native scripts/device/gemm-tiles.cu -lcublas -o gemm-tiles
//   ./gemm-tiles            # prints, per shape: cuBLAS, then each configuration's time, TFLOP/s, share
//                           # of cuBLAS and relative L2 difference from cuBLAS's result
//
// Times are the median of 21 calls, each after a write of 256 MiB that evicts L2 (as the suite does).
#include <cublas_v2.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cuda/gemm.cuh"
#include "cuda/gemm_multistage.cuh"

namespace fb = fusebench;
namespace fbc = fusebench::cuda;

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

__global__ void fill(float* p, size_t n, unsigned seed, float scale) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x) {
    unsigned h = static_cast<unsigned>(i) * 2654435761u ^ seed;
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    h ^= h >> 15;
    p[i] = ((h & 0xffffff) / 16777216.0f - 0.5f) * scale;
  }
}

__global__ void evict(float* p, size_t n) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x) p[i] += 1.0f;
}

struct Bench {
  float* scratch;
  size_t scratch_floats = size_t{64} << 20;
  cudaEvent_t start, stop;

  template <class F>
  float median_ms(F call) {
    std::vector<float> ms;
    for (int it = 0; it < 24; ++it) {
      evict<<<1024, 256>>>(scratch, scratch_floats);
      check(cudaEventRecord(start), "cudaEventRecord");
      call();
      check(cudaEventRecord(stop), "cudaEventRecord");
      check(cudaEventSynchronize(stop), "cudaEventSynchronize");
      float t;
      check(cudaEventElapsedTime(&t, start, stop), "cudaEventElapsedTime");
      if (it >= 3) ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
  }
};

double rel_l2(const float* a_dev, const float* b_dev, size_t n) {
  std::vector<float> a(n), b(n);
  check(cudaMemcpy(a.data(), a_dev, n * 4, cudaMemcpyDeviceToHost), "cudaMemcpy");
  check(cudaMemcpy(b.data(), b_dev, n * 4, cudaMemcpyDeviceToHost), "cudaMemcpy");
  double num = 0, den = 0;
  for (size_t i = 0; i < n; ++i) {
    const double d = static_cast<double>(a[i]) - b[i];
    num += d * d;
    den += static_cast<double>(b[i]) * b[i];
  }
  return std::sqrt(num / den);
}

}  // namespace

int main() {
  struct Shape {
    int m, n, k;
  };
  const Shape shapes[] = {{16384, 3072, 768}, {16384, 768, 768}, {16384, 768, 3072}, {16384, 2304, 768}};
  const size_t max_mk = size_t{16384} * 3072, max_nk = size_t{3072} * 3072, max_mn = size_t{16384} * 3072;
  float *x, *w, *y, *y_ref;
  Bench bench;
  check(cudaMalloc(&x, max_mk * 4), "cudaMalloc");
  check(cudaMalloc(&w, max_nk * 4), "cudaMalloc");
  check(cudaMalloc(&y, max_mn * 4), "cudaMalloc");
  check(cudaMalloc(&y_ref, max_mn * 4), "cudaMalloc");
  check(cudaMalloc(&bench.scratch, bench.scratch_floats * 4), "cudaMalloc");
  check(cudaEventCreate(&bench.start), "cudaEventCreate");
  check(cudaEventCreate(&bench.stop), "cudaEventCreate");
  fill<<<1024, 256>>>(x, max_mk, 1, 2.0f);
  fill<<<1024, 256>>>(w, max_nk, 2, 0.07f);
  cublasHandle_t blas;
  if (cublasCreate(&blas) != CUBLAS_STATUS_SUCCESS || cublasSetMathMode(blas, CUBLAS_PEDANTIC_MATH) != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "cuBLAS would not start\n");
    return 1;
  }
  const fb::LaunchContext ctx{};
  for (const Shape s : shapes) {
    const float one = 1.0f, zero = 0.0f;
    const double flop = 2.0 * s.m * s.n * s.k;
    const float t_blas = bench.median_ms([&] {
      cublasSgemm(blas, CUBLAS_OP_T, CUBLAS_OP_N, s.n, s.m, s.k, &one, w, s.k, x, s.k, &zero, y_ref, s.n);
    });
    check(cudaDeviceSynchronize(), "cuBLAS SGEMM");
    std::printf("%dx%dx%d  cuBLAS %.4f ms  %.1f TFLOP/s\n", s.m, s.n, s.k, t_blas, flop / t_blas / 1e9);
    const fbc::GemmArgs args{x, w, nullptr, nullptr, y, s.m, s.n, s.k, s.n};
    const auto report = [&](const char* name, auto launch) {
      check(cudaMemset(y, 0xff, size_t{4} * s.m * s.n), "cudaMemset");
      launch();
      check(cudaDeviceSynchronize(), name);
      const double diff = rel_l2(y, y_ref, size_t{1} * s.m * s.n);
      const float t = bench.median_ms(launch);
      std::printf("  %-26s %.4f ms  %.1f TFLOP/s  %.3f of cuBLAS  rel. L2 vs cuBLAS %.1e\n", name, t, flop / t / 1e9, t_blas / t,
                  diff);
    };
    report("own (gemm.cuh)", [&] { fbc::launch_gemm_tn<fbc::Epilogue::None>(args, ctx, "own"); });
#define FB_TILE(BM, BN, BK, S)                                                                                  \
  report("multistage " #BM "x" #BN "x" #BK " s" #S,                                                           \
         [&] { fbc::launch_gemm_multistage<fbc::GemmTile<BM, BN, BK, S>, fbc::Epilogue::None>(args, ctx, "multistage"); });
    FB_TILE(128, 128, 8, 4)
    FB_TILE(128, 128, 8, 3)
    FB_TILE(128, 128, 8, 2)
    FB_TILE(128, 128, 16, 3)
    FB_TILE(128, 128, 16, 2)
    FB_TILE(128, 64, 8, 4)
    FB_TILE(128, 64, 16, 3)
    FB_TILE(128, 256, 8, 3)
    FB_TILE(128, 256, 8, 4)
#undef FB_TILE
  }
  return 0;
}
