// CPU scale + causal mask + softmax: three passes over memory (unfused) against one (fused), both on
// the row softmax of kernels/cpu/softmax_cpu.h.
#include "cpu/softmax_cpu.h"
#include "scale_mask_softmax.h"

namespace fusebench::kernels {

template <class T>
void scale_mask_softmax_unfused_cpu(const ScaleMaskSoftmaxArgs<T>& a) {
  cpu::scale_mask_softmax_passes(a.s, a.scaled, a.masked, a.p, a.rows(), a.seq_q, a.seq_k, a.scale);
}

template <class T>
void scale_mask_softmax_fused_cpu(const ScaleMaskSoftmaxArgs<T>& a) {
  cpu::scale_mask_softmax_rows(a.s, a.p, a.rows(), a.seq_q, a.seq_k, a.scale);
}

FB_CPU_VARIANTS(ScaleMaskSoftmaxArgs, scale_mask_softmax_unfused_cpu, scale_mask_softmax_fused_cpu)

}  // namespace fusebench::kernels
