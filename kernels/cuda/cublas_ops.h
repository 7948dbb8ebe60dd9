// The library building blocks of the unfused twins (and the cuBLASLt-fused variant), as a
// framework launches them: fp32 GEMMs with FP32 compute (no TF32). Compiled only when the CUDA
// toolkit has cuBLAS and cuBLASLt (FUSEBENCH_WITH_CUBLAS); without them every function throws
// "built without cuBLAS" (the variants declare Needs::Cublas, so runs skip them first, with that reason). Every status is
// checked: a failure throws naming the call, like a CUDA error.
#pragma once
#include <cstddef>

#include "common/dtype.h"
#include "common/launch.h"

namespace fusebench::cuda {

// y[m, n] = x[m, k]·w[n, k]ᵀ, all row-major (cublasSgemm).
void cublas_gemm_xwt(const float* x, const float* w, float* y, size_t m, size_t n, size_t k, const LaunchContext& ctx);

// The same in bf16 or fp16 with fp32 accumulation on tensor cores (cublasGemmEx, CUBLAS_COMPUTE_32F).
void cublas_gemm_xwt(const bf16* x, const bf16* w, bf16* y, size_t m, size_t n, size_t k, const LaunchContext& ctx);
void cublas_gemm_xwt(const fp16* x, const fp16* w, fp16* y, size_t m, size_t n, size_t k, const LaunchContext& ctx);

// For each of `batch` matrices: c[m, n] = a[m, k]·b[n, k]ᵀ (kTransB) or a[m, k]·b[k, n], row-major,
// consecutive matrices `stride_*` floats apart (cublasSgemmStridedBatched).
void cublas_gemm_batched(const float* a, const float* b, float* c, size_t batch, size_t m, size_t n, size_t k,
                         bool b_transposed, const LaunchContext& ctx);

// The same in bf16 or fp16 with fp32 accumulation on tensor cores (cublasGemmStridedBatchedEx,
// CUBLAS_COMPUTE_32F), as PyTorch's autocast GEMMs.
void cublas_gemm_batched(const bf16* a, const bf16* b, bf16* c, size_t batch, size_t m, size_t n, size_t k,
                         bool b_transposed, const LaunchContext& ctx);
void cublas_gemm_batched(const fp16* a, const fp16* b, fp16* c, size_t batch, size_t m, size_t n, size_t k,
                         bool b_transposed, const LaunchContext& ctx);

// y[m, n] = gelu(x[m, k]·w[n, k]ᵀ + bias) in one cuBLASLt call (CUBLASLT_EPILOGUE_GELU_BIAS, the tanh GELU).
void cublaslt_linear_gelu(const float* x, const float* w, const float* bias, float* y, size_t m, size_t n, size_t k,
                          const LaunchContext& ctx);
// y[m, n] = x[m, k]·w[n, k]ᵀ + bias in one cuBLASLt call (CUBLASLT_EPILOGUE_BIAS), in bf16 or fp16.
void cublaslt_linear_bias(const bf16* x, const bf16* w, const bf16* bias, bf16* y, size_t m, size_t n, size_t k,
                          const LaunchContext& ctx);
void cublaslt_linear_bias(const fp16* x, const fp16* w, const fp16* bias, fp16* y, size_t m, size_t n, size_t k,
                          const LaunchContext& ctx);

// y[m, n] = r[m, n] + (x[m, k]·w[n, k]ᵀ + bias) in one cuBLASLt call (CUBLASLT_EPILOGUE_BIAS, β = 1 on C = r),
// in bf16 or fp16; with the GELU_BIAS call below, the FFN's two library-fused GEMMs.
void cublaslt_linear_bias_residual(const bf16* x, const bf16* w, const bf16* bias, const bf16* r, bf16* y, size_t m,
                                   size_t n, size_t k, const LaunchContext& ctx);
void cublaslt_linear_bias_residual(const fp16* x, const fp16* w, const fp16* bias, const fp16* r, fp16* y, size_t m,
                                   size_t n, size_t k, const LaunchContext& ctx);

// The same in bf16 or fp16 (bias in the same type, fp32 accumulation and epilogue on tensor cores).
void cublaslt_linear_gelu(const bf16* x, const bf16* w, const bf16* bias, bf16* y, size_t m, size_t n, size_t k,
                          const LaunchContext& ctx);
void cublaslt_linear_gelu(const fp16* x, const fp16* w, const fp16* bias, fp16* y, size_t m, size_t n, size_t k,
                          const LaunchContext& ctx);

}  // namespace fusebench::cuda
