// CPU bias + GELU: a bias-add pass to an intermediate and a GELU pass against one fused pass, with
// the same float math as the CUDA kernels (kernels/common/gelu.h).
#include "bias_gelu.h"
#include "common/gelu.h"
#include "cpu/row_ops.h"

namespace fusebench::kernels {

template <class T>
void bias_gelu_unfused_cpu(const BiasGeluArgs<T>& a) {
  cpu::bias_pass(a.x, a.b, a.tmp, a.rows, a.cols);
  cpu::gelu_pass(a.tmp, a.y, a.rows * a.cols);
}

template <class T>
void bias_gelu_fused_cpu(const BiasGeluArgs<T>& a) {
  for (size_t row = 0; row < a.rows; ++row) {
    const size_t off = row * a.cols;
    for (size_t c = 0; c < a.cols; ++c)
      a.y[off + c] = from_float<T>(gelu_tanh(to_float(a.x[off + c]) + to_float(a.b[c])));
  }
}

FB_CPU_VARIANTS(BiasGeluArgs, bias_gelu_unfused_cpu, bias_gelu_fused_cpu)

}  // namespace fusebench::kernels
