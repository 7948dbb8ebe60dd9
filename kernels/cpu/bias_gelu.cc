// CPU bias + GELU: a bias-add pass to an intermediate and a GELU pass against one fused pass, with
// the same float math as the CUDA kernels (kernels/common/gelu.h).
#include "bias_gelu.h"

#include "common/gelu.h"

namespace fusebench::kernels {

void bias_gelu_unfused_cpu(const float* x, const float* b, float* tmp, float* y, size_t rows, size_t cols) {
  for (size_t row = 0; row < rows; ++row) {
    const size_t off = row * cols;
    for (size_t c = 0; c < cols; ++c) tmp[off + c] = x[off + c] + b[c];
  }
  const size_t n = rows * cols;
  for (size_t i = 0; i < n; ++i) y[i] = gelu_tanh(tmp[i]);
}

void bias_gelu_fused_cpu(const float* x, const float* b, float* y, size_t rows, size_t cols) {
  for (size_t row = 0; row < rows; ++row) {
    const size_t off = row * cols;
    for (size_t c = 0; c < cols; ++c) y[off + c] = gelu_tanh(x[off + c] + b[c]);
  }
}

}  // namespace fusebench::kernels
