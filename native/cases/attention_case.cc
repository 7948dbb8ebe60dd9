#include "attention.h"
#include "case_registry.h"
#include "variant_table.h"

namespace fusebench {
namespace {

// The attention buffers of [batch, heads, seq, 64] (dims[0..2]), in the order both cases list first.
std::vector<BufferSpec> attention_buffers(const std::vector<int64_t>& d, Role o_role) {
  const auto bh = static_cast<size_t>(d[0]) * static_cast<size_t>(d[1]), s = static_cast<size_t>(d[2]);
  const size_t qkv = bh * s * kernels::kAttentionHeadDim, scores = bh * s * s;
  return {{"q", qkv, Role::Input},           {"k", qkv, Role::Input},           {"v", qkv, Role::Input},
          {"o", qkv, o_role},                {"scores", scores, Role::Scratch}, {"scaled", scores, Role::Scratch},
          {"masked", scores, Role::Scratch}, {"p", scores, Role::Scratch}};
}

kernels::AttentionArgs attention_args(const CaseCall& c) {
  const auto& b = c.buffers;
  return {b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], static_cast<size_t>(c.dims[0]),
          static_cast<size_t>(c.dims[1]), static_cast<size_t>(c.dims[2])};
}

}  // namespace

// dims: [batch, heads, seq, 64]; no params; variants: 0 unfused, 1 fused (flash).
CaseSpec attention_case() {
  return CaseSpec{
      "attention",
      {"unfused", "fused"},
      4,
      0,
      [](const std::vector<int64_t>& d) { return attention_buffers(d, Role::Output); },
      [](const CaseCall& c) {
        using namespace kernels;
        run_variant<AttentionArgs, 2>("attention", c, attention_args(c), {attention_unfused_cpu, attention_fused_cpu},
                                      {FB_CUDA_KERNELS(attention_unfused_cuda, attention_fused_cuda)});
      },
  };
}

// dims: [batch, heads, seq, 64]; params: [eps]; variants: 0 unfused, 1 fused. y = LayerNorm(x + merge_heads(O)).
CaseSpec attention_layernorm_residual_case() {
  return CaseSpec{
      "attention_layernorm_residual",
      {"unfused", "fused"},
      4,
      1,
      [](const std::vector<int64_t>& d) {
        auto buffers = attention_buffers(d, Role::Scratch);
        const auto rows = static_cast<size_t>(d[0]) * static_cast<size_t>(d[2]);
        const size_t c = static_cast<size_t>(d[1]) * kernels::kAttentionHeadDim;
        const size_t tiles = static_cast<size_t>(d[0]) * ((static_cast<size_t>(d[2]) + 63) / 64);
        buffers.insert(buffers.end(), {{"x", rows * c, Role::Input},
                                       {"gamma", c, Role::Input},
                                       {"beta", c, Role::Input},
                                       {"y", rows * c, Role::Output},
                                       {"merged", rows * c, Role::Scratch},
                                       {"h", rows * c, Role::Scratch},
                                       {"counters", tiles, Role::Scratch}});
        return buffers;
      },
      [](const CaseCall& c) {
        const auto& b = c.buffers;
        kernels::AttentionLayerNormArgs a{};
        a.att = attention_args(c);
        a.x = b[8];
        a.gamma = b[9];
        a.beta = b[10];
        a.y = b[11];
        a.merged = b[12];
        a.h = b[13];
        a.counters = b[14];
        a.eps = static_cast<float>(c.params[0]);
        using namespace kernels;
        run_variant<AttentionLayerNormArgs, 2>(
            "attention_layernorm_residual", c, a,
            {attention_layernorm_residual_unfused_cpu, attention_layernorm_residual_fused_cpu},
            {FB_CUDA_KERNELS(attention_layernorm_residual_unfused_cuda, attention_layernorm_residual_fused_cuda)});
      },
  };
}

}  // namespace fusebench
