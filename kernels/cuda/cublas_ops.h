// The library building blocks of the unfused twins (and the cuBLASLt-fused variants), as a
// framework launches them: fp32 GEMMs with FP32 compute (no TF32), half GEMMs on tensor cores. Compiled only when the CUDA
// toolkit has cuBLAS and cuBLASLt (FUSEBENCH_WITH_CUBLAS); without them every function throws
// "built without cuBLAS" (the variants declare Needs::Cublas, so runs skip them first, with that reason). Every status is
// checked: a failure throws naming the call, like a CUDA error.
#pragma once
#include <cstddef>

#include "common/dtype.h"
#include "common/launch.h"

namespace fusebench::cuda {

// Every call takes T = float, bf16 or fp16 (instantiated for all three in cublas_ops.cu). fp32 runs
// cuBLAS's SGEMMs pinned to FP32 math; bf16/fp16 run on tensor cores with fp32 accumulation
// (cublasGemmEx, CUBLAS_COMPUTE_32F), as PyTorch's autocast GEMMs. All operands are row-major.

// y[m, n] = x[m, k]·w[n, k]ᵀ (cublasSgemm; cublasGemmEx in the half types).
template <class T>
void cublas_gemm_xwt(const T* x, const T* w, T* y, size_t m, size_t n, size_t k, const LaunchContext& ctx);

// For each of `batch` matrices: c[m, n] = a[m, k]·b[n, k]ᵀ (b_transposed) or a[m, k]·b[k, n], consecutive
// matrices m·k, n·k and m·n elements apart (cublasSgemmStridedBatched; cublasGemmStridedBatchedEx).
template <class T>
void cublas_gemm_batched(const T* a, const T* b, T* c, size_t batch, size_t m, size_t n, size_t k, bool b_transposed,
                         const LaunchContext& ctx);

// One cuBLASLt call each, the bias of T: y[m, n] = gelu(x[m, k]·w[n, k]ᵀ + bias) (CUBLASLT_EPILOGUE_GELU_BIAS,
// the tanh GELU); y = x·wᵀ + bias (CUBLASLT_EPILOGUE_BIAS); y = r + (x·wᵀ + bias) (BIAS with β = 1 on C = r).
template <class T>
void cublaslt_linear_gelu(const T* x, const T* w, const T* bias, T* y, size_t m, size_t n, size_t k,
                          const LaunchContext& ctx);
template <class T>
void cublaslt_linear_bias(const T* x, const T* w, const T* bias, T* y, size_t m, size_t n, size_t k,
                          const LaunchContext& ctx);
template <class T>
void cublaslt_linear_bias_residual(const T* x, const T* w, const T* bias, const T* r, T* y, size_t m, size_t n, size_t k,
                                   const LaunchContext& ctx);

}  // namespace fusebench::cuda
