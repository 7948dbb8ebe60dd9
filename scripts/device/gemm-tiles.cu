// fusebench's fp32 GEMM (kernels/cuda/gemm.cuh) in several tile configurations and epilogues against
// cuBLAS SGEMM (FP32 math, no TF32) at the suite's four GEMM shapes, on a GPU machine: which
// configuration the launcher should take. A tuning tool, not a benchmark of record: the gemm case
// measures the launcher's choice with the suite's statistics.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -I kernels -I native scripts/device/gemm-tiles.cu -lcublas -o gemm-tiles
//   ./gemm-tiles                 every variant at every shape: time, TFLOP/s, share of cuBLAS, and
//                                BAD where y differs from cuBLAS's by a relative L2 of 1e-5 or more
//   ./gemm-tiles NAME [SHAPE]    one variant, once, at shape 0..3 (for ncu or compute-sanitizer)
//
// Times are the median of 21 calls, each after a pass that writes one 128 MiB buffer and reads
// another, so L2 holds neither operand and no dirty line is left to write back inside the timing.
#include <cublas_v2.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "cuda/gemm.cuh"

namespace fbc = fusebench::cuda;

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

__global__ void fb_fill(float* p, size_t n, unsigned seed, float scale) {
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x) {
    unsigned h = static_cast<unsigned>(i) * 2654435761u ^ seed;
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    h ^= h >> 15;
    p[i] = ((h & 0xffffff) / 16777216.0f - 0.5f) * scale;
  }
}

__global__ void fb_evict(float* p, const float* q, size_t n, float* sink) {
  float s = 0;
  for (size_t i = blockIdx.x * size_t{blockDim.x} + threadIdx.x; i < n; i += size_t{gridDim.x} * blockDim.x) {
    p[i] = 1.0f;
    s += q[i];
  }
  if (s == 12345.0f) *sink = s;
}

float* g_zeros;
struct Shape {
  int m, n, k;
};
const Shape kShapes[] = {{16384, 3072, 768}, {16384, 768, 768}, {16384, 768, 3072}, {16384, 2304, 768}};

struct Variant {
  std::string name;
  std::function<void(const float*, const float*, float*, int, int, int)> run;
};

// fusebench's GEMM launcher with one tile configuration and epilogue (bias and residual zero-filled,
// so y equals x·wᵀ and is checked against cuBLAS's).
template <int BM, int BN, int BK, int S, fbc::Epilogue E = fbc::Epilogue::None>
Variant own(const char* name) {
  return {name, [](const float* x, const float* w, float* y, int m, int n, int k) {
            const fbc::GemmArgs a{x, w, g_zeros, g_zeros, y, m, n, k, n};
            fbc::launch_gemm_tile<E, false, fbc::GemmTile<BM, BN, BK, S>>(a, fusebench::LaunchContext{}, "own");
          }};
}
}  // namespace

int main(int argc, char** argv) {
  const char* only = argc > 1 ? argv[1] : nullptr;
  const int only_shape = argc > 2 ? std::atoi(argv[2]) : 0;
  const size_t max_mk = size_t{16384} * 3072, max_nk = size_t{3072} * 3072, max_mn = size_t{16384} * 3072;
  float *x, *w, *y, *y_ref, *ev_a, *ev_b, *sink;
  const size_t ev_floats = size_t{32} << 20;  // 128 MiB each, > 2x L2
  check(cudaMalloc(&x, max_mk * 4), "cudaMalloc");
  check(cudaMalloc(&w, max_nk * 4), "cudaMalloc");
  check(cudaMalloc(&y, max_mn * 4), "cudaMalloc");
  check(cudaMalloc(&y_ref, max_mn * 4), "cudaMalloc");
  check(cudaMalloc(&ev_a, ev_floats * 4), "cudaMalloc");
  check(cudaMalloc(&ev_b, ev_floats * 4), "cudaMalloc");
  check(cudaMalloc(&sink, 4), "cudaMalloc");
  check(cudaMemset(ev_b, 0, ev_floats * 4), "cudaMemset");
  check(cudaMalloc(&g_zeros, max_mn * 4), "cudaMalloc");
  check(cudaMemset(g_zeros, 0, max_mn * 4), "cudaMemset");
  fb_fill<<<1024, 256>>>(x, max_mk, 1, 2.0f);
  fb_fill<<<1024, 256>>>(w, max_nk, 2, 0.07f);
  cublasHandle_t blas;
  if (cublasCreate(&blas) != CUBLAS_STATUS_SUCCESS || cublasSetMathMode(blas, CUBLAS_PEDANTIC_MATH) != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "cuBLAS would not start\n");
    return 1;
  }
  std::vector<Variant> variants = {
      {"cublas",
       [&](const float* x_, const float* w_, float* y_, int m, int n, int k) {
         const float one = 1.0f, zero = 0.0f;
         if (cublasSgemm(blas, CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &one, w_, k, x_, k, &zero, y_, n) != CUBLAS_STATUS_SUCCESS) {
           std::fprintf(stderr, "cublasSgemm failed\n");
           std::exit(1);
         }
       }},
      own<128, 128, 16, 3>("launcher"),  // GemmTileDefault
      own<128, 128, 16, 4>("128x128x16/4"),
      own<128, 128, 8, 4>("compact"),  // GemmTileCompact
      own<128, 128, 8, 3>("128x128x8/3"),
      own<128, 128, 32, 3>("128x128x32/3"),
      own<128, 64, 16, 3>("128x64x16/3"),
      own<128, 256, 16, 3>("128x256x16/3"),
      own<128, 128, 16, 3, fbc::Epilogue::Bias>("launcher+bias"),
      own<128, 128, 16, 3, fbc::Epilogue::BiasResidual>("launcher+residual"),
  };
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");

  if (only) {
    if (only_shape < 0 || only_shape > 3) {
      std::fprintf(stderr, "SHAPE is 0 to 3, got %d\n", only_shape);
      return 2;
    }
    const Shape s = kShapes[only_shape];
    for (auto& v : variants)
      if (v.name == only) {
        v.run(x, w, y, s.m, s.n, s.k);
        check(cudaDeviceSynchronize(), only);
        return 0;
      }
    std::fprintf(stderr, "no variant %s\n", only);
    return 1;
  }

  const auto median_ms = [&](const Variant& v, const Shape& s) {
    std::vector<float> ms;
    for (int it = 0; it < 24; ++it) {
      fb_evict<<<1024, 256>>>(ev_a, ev_b, ev_floats, sink);
      check(cudaEventRecord(start), "cudaEventRecord");
      v.run(x, w, y, s.m, s.n, s.k);
      check(cudaEventRecord(stop), "cudaEventRecord");
      check(cudaEventSynchronize(stop), v.name.c_str());
      float t;
      check(cudaEventElapsedTime(&t, start, stop), "cudaEventElapsedTime");
      if (it >= 3) ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    return ms[ms.size() / 2];
  };
  std::vector<float> hy(max_mn), hr(max_mn);
  std::printf("%-24s", "variant");
  for (const Shape& s : kShapes) std::printf(" | %5dx%4dx%4d ms  TF/s  share", s.m, s.n, s.k);
  std::printf("\n");
  std::vector<float> t_blas;
  for (const Shape& s : kShapes) {
    variants[0].run(x, w, y_ref, s.m, s.n, s.k);
    t_blas.push_back(median_ms(variants[0], s));
  }
  for (const auto& v : variants) {
    std::printf("%-24s", v.name.c_str());
    int si = 0;
    for (const Shape& s : kShapes) {
      variants[0].run(x, w, y_ref, s.m, s.n, s.k);
      check(cudaMemset(y, 0xff, size_t{4} * s.m * s.n), "cudaMemset");
      v.run(x, w, y, s.m, s.n, s.k);
      check(cudaDeviceSynchronize(), v.name.c_str());
      const size_t cnt = size_t{1} * s.m * s.n;
      check(cudaMemcpy(hy.data(), y, cnt * 4, cudaMemcpyDeviceToHost), "cudaMemcpy");
      check(cudaMemcpy(hr.data(), y_ref, cnt * 4, cudaMemcpyDeviceToHost), "cudaMemcpy");
      double num = 0, den = 0;
      for (size_t i = 0; i < cnt; ++i) {
        const double d = static_cast<double>(hy[i]) - hr[i];
        num += d * d;
        den += static_cast<double>(hr[i]) * hr[i];
      }
      const double rel = std::sqrt(num / den);
      const float t = median_ms(v, s);
      const double flop = 2.0 * s.m * s.n * s.k;
      std::printf(" | %8.4f %5.1f %5.3f%s", t, flop / t / 1e9, t_blas[si] / t, rel < 1e-5 ? "" : " BAD");
      if (!(rel < 1e-5)) std::printf("(%.1e)", rel);
      ++si;
    }
    std::printf("\n");
    std::fflush(stdout);
  }
  return 0;
}
