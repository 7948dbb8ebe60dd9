// CPU causal self-attention. Unfused: the unfused attention building block (kernels/cpu/attention_cpu.h),
// one full pass per op as the GPU twin launches them. Fused: the flash-style routine, one online-softmax
// pass per query row over its keys 0 .. i only, writing nothing but O. The half types run the same
// routines on widened operands, rounding what the GPU variants store.
#include <type_traits>

#include "attention.h"
#include "cpu/attention_cpu.h"

namespace fusebench::kernels {

template <class T>
void attention_unfused_cpu(const AttentionArgs<T>& a) {
  cpu::attention_unfused(a, a.d);
}

template <class T>
void attention_fused_cpu(const AttentionArgs<T>& a) {
  if constexpr (std::is_same_v<T, float>) {
    cpu::flash_attention(cpu::contiguous_operands(a, a.d), a.o, cpu::contiguous_heads(a.heads, a.seq, a.d));
  } else {
    cpu::flash_attention_half<T>(a, a.o, cpu::contiguous_heads(a.heads, a.seq, a.d), a.d);
  }
}

FB_CPU_VARIANTS(AttentionArgs, attention_unfused_cpu, attention_fused_cpu)

}  // namespace fusebench::kernels
