// CPU GPT-2 forward (gpt2_forward.h): the GPU variants' structure op by op. Unfused: the token gather,
// the position gather and their broadcast add, each layer's unfused block, LNf, the LM-head GEMM, every
// tensor stored in T. Fused: the embedding in one pass, each layer's fused block (common/gpt2_block.h:
// fp32's fused block, the library-fused block in bf16/fp16), then the same LNf and LM head.
#include <type_traits>
#include <utility>

#include "common/dtype.h"
#include "cpu/gemm_any.h"
#include "cpu/row_ops.h"
#include "gpt2_forward.h"

namespace fusebench::kernels {
namespace {

template <class T>
void lm_head(const Gpt2ForwardArgs<T>& a, const T* x) {
  const size_t m = a.batch * a.seq;
  cpu::layernorm_pass(x, a.lnf_g, a.lnf_b, a.xn, m, a.hidden, a.eps);
  cpu::gemm_any(a.xn, a.wte, a.logits, m, a.vocab, a.hidden);
}

}  // namespace

template <class T>
void gpt2_forward_unfused_cpu(const Gpt2ForwardArgs<T>& a) {
  const size_t m = a.batch * a.seq, c = a.hidden;
  for (size_t r = 0; r < m; ++r)
    for (size_t j = 0; j < c; ++j) a.te[r * c + j] = a.wte[gpt2::token_of(r, a.vocab) * c + j];
  for (size_t i = 0; i < a.seq * c; ++i) a.pe[i] = a.wpe[i];
  for (size_t i = 0; i < m * c; ++i) a.x0[i] = from_float<T>(to_float(a.te[i]) + to_float(a.pe[i % (a.seq * c)]));
  T* x = a.x0;
  T* y = a.x1;
  for (size_t l = 0; l < a.layers; ++l) {
    transformer_block_unfused_cpu<T>(gpt2::block_args(a, l, x, y));
    std::swap(x, y);
  }
  lm_head(a, x);
}

template <class T>
void gpt2_forward_fused_cpu(const Gpt2ForwardArgs<T>& a) {
  const size_t m = a.batch * a.seq, c = a.hidden;
  for (size_t r = 0; r < m; ++r)
    for (size_t j = 0; j < c; ++j)
      a.x0[r * c + j] =
          from_float<T>(to_float(a.wte[gpt2::token_of(r, a.vocab) * c + j]) + to_float(a.wpe[(r % a.seq) * c + j]));
  T* x = a.x0;
  T* y = a.x1;
  for (size_t l = 0; l < a.layers; ++l) {
    if constexpr (std::is_same_v<T, float>)
      transformer_block_fused_cpu(gpt2::block_args(a, l, x, y));
    else
      transformer_block_cublaslt_cpu<T>(gpt2::block_args(a, l, x, y));
    std::swap(x, y);
  }
  lm_head(a, x);
}

FB_CPU_VARIANTS(Gpt2ForwardArgs, gpt2_forward_unfused_cpu, gpt2_forward_fused_cpu)

}  // namespace fusebench::kernels
