// CPU residual add + LayerNorm. Both variants normalize with the same row function (row_ops.h); the
// fused one normalizes each row right after writing its h, while the row is still in L1.
#include "cpu/row_ops.h"
#include "residual_layernorm.h"

namespace fusebench::kernels {

template <class T>
void residual_layernorm_unfused_cpu(const ResidualLayerNormArgs<T>& a) {
  cpu::add_pass(a.x, a.r, a.h, a.rows * a.hidden);
  cpu::layernorm_pass(a.h, a.gamma, a.beta, a.y, a.rows, a.hidden, a.eps);
}

template <class T>
void residual_layernorm_fused_cpu(const ResidualLayerNormArgs<T>& a) {
  for (size_t row = 0; row < a.rows; ++row) {
    const size_t off = row * a.hidden;
    cpu::add_pass(a.x + off, a.r + off, a.h + off, a.hidden);
    cpu::layernorm_row(a.h + off, a.gamma, a.beta, a.y + off, a.hidden, a.eps);
  }
}

FB_CPU_VARIANTS(ResidualLayerNormArgs, residual_layernorm_unfused_cpu, residual_layernorm_fused_cpu)

}  // namespace fusebench::kernels
