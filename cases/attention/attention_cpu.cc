// CPU causal self-attention. Unfused: the unfused attention building block (kernels/cpu/attention_cpu.h),
// one full pass per op as the GPU twin launches them. Fused: the flash-style routine, one online-softmax
// pass per query row over its keys 0 .. i only, writing nothing but O.
#include "attention.h"
#include "cpu/attention_cpu.h"

namespace fusebench::kernels {

void attention_unfused_cpu(const AttentionArgs& a) { cpu::attention_unfused(a); }

void attention_fused_cpu(const AttentionArgs& a) {
  cpu::flash_attention(cpu::contiguous_operands(a), a.o, cpu::contiguous_heads(a.heads, a.seq));
}

}  // namespace fusebench::kernels
