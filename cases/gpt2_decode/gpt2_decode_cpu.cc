// CPU GPT-2 decode step (gpt2_decode.h). Both variants run the same float arithmetic op by op and differ
// where the GPU variants differ, in what is stored between ops: the unfused twin rounds every tensor it
// stores to T (x, a, qkv, att, proj, h, f1, g, as the GPU twin's buffers), the fused variant keeps the
// residual stream, q|k|v and gelu(FFN1) in float as the persistent kernel does. Both write the new K/V
// rows into the cache in T before attending over rows 0 .. pos.
#include <cmath>
#include <vector>

#include "common/gelu.h"
#include "cpu/decode_cpu.h"
#include "gpt2_decode.h"

namespace fusebench::kernels {
namespace {

using cpu::keep;
using cpu::linear;

template <class T>
std::vector<float> layernorm(const std::vector<float>& x, const T* g, const T* b, float eps) {
  const size_t n = x.size();
  float mean = 0.f, var = 0.f;
  for (float v : x) mean += v;
  mean /= static_cast<float>(n);
  for (float v : x) var += (v - mean) * (v - mean);
  const float rstd = 1.f / std::sqrt(var / static_cast<float>(n) + eps);
  std::vector<float> y(n);
  for (size_t i = 0; i < n; ++i) y[i] = (x[i] - mean) * rstd * to_float(g[i]) + to_float(b[i]);
  return y;
}

template <class T, bool kFloat>
void decode_step(const Gpt2DecodeArgs<T>& a) {
  const size_t c = a.hidden, f = a.f, cc = c * c, fc = f * c;
  std::vector<float> x(c);
  for (size_t i = 0; i < c; ++i) x[i] = to_float(a.wte[a.token * c + i]) + to_float(a.wpe[a.pos * c + i]);
  keep<T, kFloat>(x);
  for (size_t l = 0; l < a.layers; ++l) {
    std::vector<float> n1 = layernorm(x, a.ln1_g + l * c, a.ln1_b + l * c, a.eps);
    keep<T, kFloat>(n1);
    std::vector<float> qkv = linear(n1, a.w_qkv + l * 3 * cc, a.b_qkv + l * 3 * c, 3 * c);
    keep<T, kFloat>(qkv);
    T* kc = a.k_cache + l * a.ctx * c;
    T* vc = a.v_cache + l * a.ctx * c;
    for (size_t i = 0; i < c; ++i) {
      kc[a.pos * c + i] = from_float<T>(qkv[c + i]);
      vc[a.pos * c + i] = from_float<T>(qkv[2 * c + i]);
    }
    std::vector<float> att = cpu::attend_cache(qkv, kc, vc, a.heads, a.heads, a.pos + 1);
    keep<T, kFloat>(att);
    std::vector<float> proj = linear(att, a.w_o + l * cc, a.b_o + l * c, c);
    keep<T, kFloat>(proj);
    for (size_t i = 0; i < c; ++i) x[i] += proj[i];
    keep<T, kFloat>(x);
    std::vector<float> n2 = layernorm(x, a.ln2_g + l * c, a.ln2_b + l * c, a.eps);
    keep<T, kFloat>(n2);
    std::vector<float> g = linear(n2, a.w1 + l * fc, a.b1 + l * f, f);
    keep<T, kFloat>(g);
    for (float& v : g) v = gelu_tanh(v);
    keep<T, kFloat>(g);
    proj = linear(g, a.w2 + l * fc, a.b2 + l * c, c);
    keep<T, kFloat>(proj);
    for (size_t i = 0; i < c; ++i) x[i] += proj[i];
    keep<T, kFloat>(x);
  }
  std::vector<float> nf = layernorm(x, a.lnf_g, a.lnf_b, a.eps);
  keep<T, kFloat>(nf);
  const std::vector<float> logits = linear(nf, a.wte, static_cast<const T*>(nullptr), a.vocab);
  for (size_t j = 0; j < a.vocab; ++j) a.logits[j] = from_float<T>(logits[j]);
}

}  // namespace

template <class T>
void gpt2_decode_unfused_cpu(const Gpt2DecodeArgs<T>& a) {
  decode_step<T, false>(a);
}

template <class T>
void gpt2_decode_fused_cpu(const Gpt2DecodeArgs<T>& a) {
  decode_step<T, true>(a);
}

FB_CPU_VARIANTS(Gpt2DecodeArgs, gpt2_decode_unfused_cpu, gpt2_decode_fused_cpu)

}  // namespace fusebench::kernels
