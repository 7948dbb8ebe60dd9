// The device's matrix throughput as the library reaches it, measured by fusebench itself: square GEMMs
// through the same cuBLAS call the unfused twins make (cublas_ops.h: FP32 math in fp32, tensor cores
// with fp32 accumulation in bf16/fp16). The ceiling the GEMM-bound cases' TFLOP/s are quoted against,
// as the copy bandwidth is for the memory-bound ones; never a number from a datasheet.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace fusebench {

// Times `samples` GEMMs y[n, n] = x[n, n]·w[n, n]ᵀ in `dtype` ("fp32", "bf16" or "fp16") on the CUDA
// backend's stream, after two untimed calls; milliseconds each. Throws naming the reason when the
// addon has no CUDA or no cuBLAS, or the dtype is unknown.
std::vector<double> matmul_times(const std::string& dtype, size_t n, int samples);

}  // namespace fusebench
