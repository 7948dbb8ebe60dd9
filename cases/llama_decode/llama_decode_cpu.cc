// CPU Llama decode step (llama_decode.h). Both variants run the same float arithmetic op by op and differ
// where the GPU variants differ, in what is stored between ops: the unfused twin rounds every tensor it
// stores to T (x, a, qkv before and after RoPE, att, proj, gu, g, as the GPU twin's buffers), the fused
// variant keeps the residual stream, q|k|v and silu(gate)·up in float as the persistent kernel does.
// Both write the new K/V rows (k turned by RoPE) into the cache in T before attending over rows 0 .. pos.
#include <cmath>
#include <vector>

#include "cpu/decode_cpu.h"
#include "cpu/row_ops.h"
#include "llama_decode.h"

namespace fusebench::kernels {
namespace {

using cpu::keep;
using cpu::linear;

template <class T>
std::vector<float> rmsnorm(const std::vector<float>& x, const T* g, float eps) {
  std::vector<float> y(x.size());
  cpu::rmsnorm_row(x.data(), g, y.data(), x.size(), eps);
  return y;
}

// RoPE's cos and sin of pair i < 32 at position pos, shared by every head of every layer.
struct Rope {
  float cos[kHeadDim / 2], sin[kHeadDim / 2];
  Rope(size_t pos, double theta) {
    for (int i = 0; i < static_cast<int>(kHeadDim / 2); ++i) {
      const double angle = llama::rope_angle(pos, i, theta);
      cos[i] = static_cast<float>(std::cos(angle));
      sin[i] = static_cast<float>(std::sin(angle));
    }
  }
  // Turns each 64-wide head of v[first .. first + heads·64): (x_i, x_{i+32}) by the angle of pair i.
  void turn(std::vector<float>& v, size_t first, size_t heads) const {
    constexpr size_t half = kHeadDim / 2;
    for (size_t h = 0; h < heads; ++h) {
      float* x = v.data() + first + h * kHeadDim;
      for (size_t i = 0; i < half; ++i) {
        const float x0 = x[i], x1 = x[i + half];
        x[i] = x0 * cos[i] - x1 * sin[i];
        x[i + half] = x1 * cos[i] + x0 * sin[i];
      }
    }
  }
};

template <class T, bool kFloat>
void decode_step(const LlamaDecodeArgs<T>& a) {
  const size_t c = a.hidden, kv = a.kv_heads * kHeadDim, q = c + 2 * kv, f = a.f;
  const Rope rope(a.pos, a.rope_theta);
  std::vector<float> x(c);
  for (size_t i = 0; i < c; ++i) x[i] = to_float(a.embed[a.token * c + i]);
  for (size_t l = 0; l < a.layers; ++l) {
    std::vector<float> n1 = rmsnorm(x, a.attn_norm + l * c, a.eps);
    keep<T, kFloat>(n1);
    std::vector<float> qkv = linear<T>(n1, a.w_qkv + l * q * c, nullptr, q);
    keep<T, kFloat>(qkv);
    rope.turn(qkv, 0, a.heads);
    rope.turn(qkv, c, a.kv_heads);
    keep<T, kFloat>(qkv);
    T* kc = a.k_cache + l * a.ctx * kv;
    T* vc = a.v_cache + l * a.ctx * kv;
    for (size_t i = 0; i < kv; ++i) {
      kc[a.pos * kv + i] = from_float<T>(qkv[c + i]);
      vc[a.pos * kv + i] = from_float<T>(qkv[c + kv + i]);
    }
    std::vector<float> att = cpu::attend_cache(qkv, kc, vc, a.heads, a.kv_heads, a.pos + 1);
    keep<T, kFloat>(att);
    std::vector<float> proj = cpu::linear_in_out(att, a.w_o + l * c * c, c);
    keep<T, kFloat>(proj);
    for (size_t i = 0; i < c; ++i) x[i] += proj[i];
    keep<T, kFloat>(x);
    std::vector<float> n2 = rmsnorm(x, a.ffn_norm + l * c, a.eps);
    keep<T, kFloat>(n2);
    std::vector<float> gu = linear<T>(n2, a.w_gu + l * 2 * f * c, nullptr, 2 * f);
    keep<T, kFloat>(gu);
    std::vector<float> g(f);
    for (size_t i = 0; i < f; ++i) g[i] = gu[i] / (1.f + std::exp(-gu[i])) * gu[f + i];
    keep<T, kFloat>(g);
    proj = cpu::linear_in_out(g, a.w_down + l * f * c, c);
    keep<T, kFloat>(proj);
    for (size_t i = 0; i < c; ++i) x[i] += proj[i];
    keep<T, kFloat>(x);
  }
  std::vector<float> nf = rmsnorm(x, a.norm_f, a.eps);
  keep<T, kFloat>(nf);
  const std::vector<float> logits = linear<T>(nf, a.embed, nullptr, a.vocab);
  for (size_t j = 0; j < a.vocab; ++j) a.logits[j] = from_float<T>(logits[j]);
}

}  // namespace

template <class T>
void llama_decode_unfused_cpu(const LlamaDecodeArgs<T>& a) {
  decode_step<T, false>(a);
}

template <class T>
void llama_decode_fused_cpu(const LlamaDecodeArgs<T>& a) {
  decode_step<T, true>(a);
}

FB_CPU_VARIANTS(LlamaDecodeArgs, llama_decode_unfused_cpu, llama_decode_fused_cpu)

}  // namespace fusebench::kernels
