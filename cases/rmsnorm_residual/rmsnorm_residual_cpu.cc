// CPU residual add + RMSNorm. Both variants normalize with the same row function (row_ops.h); the
// fused one normalizes each row right after writing its h, while the row is still in L1.
#include "cpu/row_ops.h"
#include "rmsnorm_residual.h"

namespace fusebench::kernels {

template <class T>
void rmsnorm_residual_unfused_cpu(const RmsNormResidualArgs<T>& a) {
  cpu::add_pass(a.x, a.r, a.h, a.rows * a.hidden);
  for (size_t row = 0; row < a.rows; ++row) {
    const size_t off = row * a.hidden;
    cpu::rmsnorm_row(a.h + off, a.gamma, a.y + off, a.hidden, a.eps);
  }
}

template <class T>
void rmsnorm_residual_fused_cpu(const RmsNormResidualArgs<T>& a) {
  for (size_t row = 0; row < a.rows; ++row) {
    const size_t off = row * a.hidden;
    cpu::add_pass(a.x + off, a.r + off, a.h + off, a.hidden);
    cpu::rmsnorm_row(a.h + off, a.gamma, a.y + off, a.hidden, a.eps);
  }
}

FB_CPU_VARIANTS(RmsNormResidualArgs, rmsnorm_residual_unfused_cpu, rmsnorm_residual_fused_cpu)

}  // namespace fusebench::kernels
