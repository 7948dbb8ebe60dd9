// cuBLAS and cuBLASLt calls of the unfused twins. Row-major operands map onto column-major cuBLAS
// by computing the transpose: y = x·wᵀ (row-major) is yᵀ = w·xᵀ (column-major), with w seen as a
// k×n column-major matrix and transposed, x as k×m, y as n×m.
#ifdef FUSEBENCH_WITH_CUBLAS
#include <cublasLt.h>
#include <cublas_v2.h>

#include <climits>
#include <map>
#include <memory>
#include <tuple>
#include <type_traits>
#include <stdexcept>
#include <string>

#include "cuda/cublas_ops.h"
#include "cuda/cuda_check.cuh"

namespace fusebench::cuda {
namespace {

[[noreturn]] void throw_cublas(cublasStatus_t s, const char* call, const char* file, int line) {
  throw CudaError(std::string("cuBLAS error: ") + call + " failed at " + file + ":" + std::to_string(line) + ": " +
                  cublasGetStatusName(s) + " (" + cublasGetStatusString(s) + ")");
}

#define FB_CUBLAS_CHECK(call)                                                         \
  do {                                                                                \
    cublasStatus_t fb_st_ = (call);                                                   \
    if (fb_st_ != CUBLAS_STATUS_SUCCESS) throw_cublas(fb_st_, #call, __FILE__, __LINE__); \
  } while (0)

// One handle per process (device 0, the backend's device), pinned to FP32 math so no TF32 path
// is taken, and one cuBLASLt handle with a workspace. Created on first use, never destroyed (the
// process ends with them; destroying after the CUDA context is gone would fail).
struct Handles {
  cublasHandle_t blas = nullptr;
  cublasHandle_t half = nullptr;  // the half-precision GEMMs: default math, so tensor cores are allowed
  cublasLtHandle_t lt = nullptr;
  void* workspace = nullptr;
  static constexpr size_t kWorkspaceBytes = 32u << 20;
  Handles() {
    FB_CUBLAS_CHECK(cublasCreate(&blas));
    FB_CUBLAS_CHECK(cublasSetMathMode(blas, CUBLAS_PEDANTIC_MATH));
    FB_CUBLAS_CHECK(cublasCreate(&half));
    FB_CUBLAS_CHECK(cublasLtCreate(&lt));
    FB_CUDA_CHECK(cudaMalloc(&workspace, kWorkspaceBytes));
  }
};

Handles& handles() {
  static Handles h;
  return h;
}

cublasHandle_t blas_on(const LaunchContext& ctx, bool half = false) {
  cublasHandle_t h = half ? handles().half : handles().blas;
  FB_CUBLAS_CHECK(cublasSetStream(h, static_cast<cudaStream_t>(ctx.stream)));
  return h;
}

int as_int(size_t v, const char* what) {
  if (v > static_cast<size_t>(INT_MAX)) throw std::invalid_argument(std::string("cuBLAS: ") + what + " exceeds 2^31 − 1");
  return static_cast<int>(v);
}

template <typename T>
struct LtOwner {
  T p = nullptr;
  cublasStatus_t (*destroy)(T);
  ~LtOwner() {
    if (p) destroy(p);
  }
};

// The CUDA data type of the element type T.
template <class T>
constexpr cudaDataType data_type() {
  if constexpr (std::is_same_v<T, float>) return CUDA_R_32F;
  else if constexpr (std::is_same_v<T, bf16>) return CUDA_R_16BF;
  else return CUDA_R_16F;
}

}  // namespace

template <class T>
void cublas_gemm_xwt(const T* x, const T* w, T* y, size_t m, size_t n, size_t k, const LaunchContext& ctx) {
  const float one = 1.0f, zero = 0.0f;
  const int M = as_int(m, "m"), N = as_int(n, "n"), K = as_int(k, "k");
  if constexpr (std::is_same_v<T, float>) {
    FB_CUBLAS_CHECK(cublasSgemm(blas_on(ctx), CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &one, w, K, x, K, &zero, y, N));
  } else {
    constexpr cudaDataType t = data_type<T>();
    FB_CUBLAS_CHECK(cublasGemmEx(blas_on(ctx, true), CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &one, w, t, K, x, t, K, &zero, y,
                                 t, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  }
}

template <class T>
void cublas_gemm_batched(const T* a, const T* b, T* c, size_t batch, size_t m, size_t n, size_t k, bool b_transposed,
                         const LaunchContext& ctx) {
  const float one = 1.0f, zero = 0.0f;
  const int M = as_int(m, "m"), N = as_int(n, "n"), K = as_int(k, "k"), B = as_int(batch, "batch");
  const long long sa = static_cast<long long>(m * k), sb = static_cast<long long>(n * k), sc = static_cast<long long>(m * n);
  // cᵀ = bᵀ·aᵀ in column-major: b is n×k row-major (k×n column-major, transposed) or k×n row-major (n×k
  // column-major, as is); a is k×m column-major.
  const cublasOperation_t op_b = b_transposed ? CUBLAS_OP_T : CUBLAS_OP_N;
  const int ldb = b_transposed ? K : N;
  if constexpr (std::is_same_v<T, float>) {
    FB_CUBLAS_CHECK(cublasSgemmStridedBatched(blas_on(ctx), op_b, CUBLAS_OP_N, N, M, K, &one, b, ldb, sb, a, K, sa, &zero,
                                              c, N, sc, B));
  } else {
    constexpr cudaDataType t = data_type<T>();
    FB_CUBLAS_CHECK(cublasGemmStridedBatchedEx(blas_on(ctx, true), op_b, CUBLAS_OP_N, N, M, K, &one, b, t, ldb, sb, a, t,
                                               K, sa, &zero, c, t, N, sc, B, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  }
}

namespace {

// The descriptors and the heuristic's algorithm for one shape, element type and epilogue, made once:
// choosing them costs host time that would otherwise land inside the timed call.
struct LtPlan {
  LtOwner<cublasLtMatmulDesc_t> op{nullptr, cublasLtMatmulDescDestroy};
  LtOwner<cublasLtMatrixLayout_t> la{nullptr, cublasLtMatrixLayoutDestroy}, lb{nullptr, cublasLtMatrixLayoutDestroy},
      lc{nullptr, cublasLtMatrixLayoutDestroy};
  cublasLtMatmulAlgo_t algo{};

  LtPlan(int M, int N, int K, cudaDataType t, cublasLtEpilogue_t epi) {
    FB_CUBLAS_CHECK(cublasLtMatmulDescCreate(&op.p, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    const cublasOperation_t trans = CUBLAS_OP_T;
    FB_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(op.p, CUBLASLT_MATMUL_DESC_TRANSA, &trans, sizeof(trans)));
    FB_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(op.p, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof(epi)));
    FB_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&la.p, t, K, N, K));  // w, transposed by TRANSA
    FB_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&lb.p, t, K, M, K));  // x
    FB_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&lc.p, t, N, M, N));  // y; the bias is of y's type
    LtOwner<cublasLtMatmulPreference_t> pref{nullptr, cublasLtMatmulPreferenceDestroy};
    FB_CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref.p));
    const size_t ws = Handles::kWorkspaceBytes;
    FB_CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(pref.p, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof(ws)));
    cublasLtMatmulHeuristicResult_t heuristic{};
    int found = 0;
    FB_CUBLAS_CHECK(cublasLtMatmulAlgoGetHeuristic(handles().lt, op.p, la.p, lb.p, lc.p, lc.p, pref.p, 1, &heuristic, &found));
    if (found == 0) throw CudaError("cuBLASLt: no algorithm for this GEMM and epilogue on this GPU");
    algo = heuristic.algo;
  }
};


// y = epilogue(x·wᵀ + bias) (+ r when r is given: β = 1 on C = r).
void lt_linear(const void* x, const void* w, const void* bias, const void* r, void* y, cudaDataType t,
               cublasLtEpilogue_t epi, size_t m, size_t n, size_t k, const LaunchContext& ctx) {
  Handles& h = handles();
  static std::map<std::tuple<int, int, int, int, int>, std::unique_ptr<LtPlan>> plans;
  const int M = as_int(m, "m"), N = as_int(n, "n"), K = as_int(k, "k");
  auto& plan = plans[{M, N, K, static_cast<int>(t), static_cast<int>(epi)}];
  if (!plan) plan = std::make_unique<LtPlan>(M, N, K, t, epi);
  FB_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(plan->op.p, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof(bias)));
  const float one = 1.0f, beta = r ? 1.0f : 0.0f;
  FB_CUBLAS_CHECK(cublasLtMatmul(h.lt, plan->op.p, &one, w, plan->la.p, x, plan->lb.p, &beta, r ? r : y, plan->lc.p, y,
                                 plan->lc.p, &plan->algo, h.workspace, Handles::kWorkspaceBytes,
                                 static_cast<cudaStream_t>(ctx.stream)));
}

}  // namespace

template <class T>
void cublaslt_linear_gelu(const T* x, const T* w, const T* bias, T* y, size_t m, size_t n, size_t k,
                          const LaunchContext& ctx) {
  lt_linear(x, w, bias, nullptr, y, data_type<T>(), CUBLASLT_EPILOGUE_GELU_BIAS, m, n, k, ctx);
}

template <class T>
void cublaslt_linear_bias(const T* x, const T* w, const T* bias, T* y, size_t m, size_t n, size_t k,
                          const LaunchContext& ctx) {
  lt_linear(x, w, bias, nullptr, y, data_type<T>(), CUBLASLT_EPILOGUE_BIAS, m, n, k, ctx);
}

template <class T>
void cublaslt_linear_bias_residual(const T* x, const T* w, const T* bias, const T* r, T* y, size_t m, size_t n, size_t k,
                                   const LaunchContext& ctx) {
  lt_linear(x, w, bias, r, y, data_type<T>(), CUBLASLT_EPILOGUE_BIAS, m, n, k, ctx);
}

}  // namespace fusebench::cuda
#else  // no cuBLAS in this toolkit
#include <stdexcept>

#include "cuda/cublas_ops.h"

namespace fusebench::cuda {
namespace {
[[noreturn]] void no_cublas() {
  throw std::runtime_error("this addon was built without cuBLAS/cuBLASLt (the CUDA toolkit has no libcublas)");
}
}  // namespace
template <class T>
void cublas_gemm_xwt(const T*, const T*, T*, size_t, size_t, size_t, const LaunchContext&) {
  no_cublas();
}
template <class T>
void cublas_gemm_batched(const T*, const T*, T*, size_t, size_t, size_t, size_t, bool, const LaunchContext&) {
  no_cublas();
}
template <class T>
void cublaslt_linear_gelu(const T*, const T*, const T*, T*, size_t, size_t, size_t, const LaunchContext&) {
  no_cublas();
}
template <class T>
void cublaslt_linear_bias(const T*, const T*, const T*, T*, size_t, size_t, size_t, const LaunchContext&) {
  no_cublas();
}
template <class T>
void cublaslt_linear_bias_residual(const T*, const T*, const T*, const T*, T*, size_t, size_t, size_t,
                                   const LaunchContext&) {
  no_cublas();
}
}  // namespace fusebench::cuda
#endif  // FUSEBENCH_WITH_CUBLAS

namespace fusebench::cuda {

#define FB_INSTANTIATE(T)                                                                                            \
  template void cublas_gemm_xwt<T>(const T*, const T*, T*, size_t, size_t, size_t, const LaunchContext&);          \
  template void cublas_gemm_batched<T>(const T*, const T*, T*, size_t, size_t, size_t, size_t, bool,               \
                                       const LaunchContext&);                                                      \
  template void cublaslt_linear_gelu<T>(const T*, const T*, const T*, T*, size_t, size_t, size_t,                  \
                                        const LaunchContext&);                                                     \
  template void cublaslt_linear_bias<T>(const T*, const T*, const T*, T*, size_t, size_t, size_t,                  \
                                        const LaunchContext&);                                                     \
  template void cublaslt_linear_bias_residual<T>(const T*, const T*, const T*, const T*, T*, size_t, size_t, size_t, \
                                                 const LaunchContext&);
FB_FOR_EACH_DTYPE(FB_INSTANTIATE)
#undef FB_INSTANTIATE

}  // namespace fusebench::cuda
