#include "case_registry.h"
#include "transformer_block.h"
#include "variant_table.h"

namespace fusebench {

// dims: [batch, seq, heads, f] (hidden c = heads·64); params: [eps]; variants: 0 unfused, 1 fused.
// h and y are checked; everything after them is scratch.
CaseSpec transformer_block_case() {
  return CaseSpec{
      "transformer_block",
      {"unfused", "fused"},
      4,
      1,
      [](const std::vector<int64_t>& d) {
        const auto batch = static_cast<size_t>(d[0]), seq = static_cast<size_t>(d[1]);
        const auto heads = static_cast<size_t>(d[2]), f = static_cast<size_t>(d[3]);
        const size_t c = heads * kernels::kAttentionHeadDim, m = batch * seq, mc = m * c, scores = batch * heads * seq * seq;
        const Role in = Role::Input, out = Role::Output, tmp = Role::Scratch;
        return std::vector<BufferSpec>{
            {"x", mc, in},           {"ln1_g", c, in},        {"ln1_b", c, in},        {"w_qkv", 3 * c * c, in},
            {"b_qkv", 3 * c, in},    {"w_o", c * c, in},      {"b_o", c, in},          {"ln2_g", c, in},
            {"ln2_b", c, in},        {"w1", f * c, in},       {"b1", f, in},           {"w2", c * f, in},
            {"b2", c, in},           {"h", mc, out},          {"y", mc, out},          {"a", mc, tmp},
            {"qkv_t", 3 * mc, tmp},  {"qkv", 3 * mc, tmp},    {"q", mc, tmp},          {"k", mc, tmp},
            {"v", mc, tmp},          {"scores", scores, tmp}, {"scaled", scores, tmp}, {"masked", scores, tmp},
            {"p", scores, tmp},      {"o", mc, tmp},          {"merged", mc, tmp},     {"proj_t", mc, tmp},
            {"proj", mc, tmp},       {"a2", mc, tmp},         {"f1_t", m * f, tmp},    {"f1", m * f, tmp},
            {"g", m * f, tmp},       {"f2_t", mc, tmp},       {"f2", mc, tmp},         {"wqkv_f", 3 * c * c, tmp},
            {"cqkv", 3 * c, tmp},    {"dqkv", 3 * c, tmp},    {"w1_f", f * c, tmp},    {"c1", f, tmp},
            {"d1", f, tmp}};
      },
      [](const CaseCall& c) {
        const auto& b = c.buffers;
        kernels::TransformerBlockArgs a{};
        a.x = b[0];
        a.ln1_g = b[1];
        a.ln1_b = b[2];
        a.w_qkv = b[3];
        a.b_qkv = b[4];
        a.w_o = b[5];
        a.b_o = b[6];
        a.ln2_g = b[7];
        a.ln2_b = b[8];
        a.w1 = b[9];
        a.b1 = b[10];
        a.w2 = b[11];
        a.b2 = b[12];
        a.h = b[13];
        a.y = b[14];
        a.a = b[15];
        a.qkv_t = b[16];
        a.qkv = b[17];
        a.q = b[18];
        a.k = b[19];
        a.v = b[20];
        a.scores = b[21];
        a.scaled = b[22];
        a.masked = b[23];
        a.p = b[24];
        a.o = b[25];
        a.merged = b[26];
        a.proj_t = b[27];
        a.proj = b[28];
        a.a2 = b[29];
        a.f1_t = b[30];
        a.f1 = b[31];
        a.g = b[32];
        a.f2_t = b[33];
        a.f2 = b[34];
        a.wqkv_f = b[35];
        a.cqkv = b[36];
        a.dqkv = b[37];
        a.w1_f = b[38];
        a.c1 = b[39];
        a.d1 = b[40];
        a.batch = static_cast<size_t>(c.dims[0]);
        a.seq = static_cast<size_t>(c.dims[1]);
        a.heads = static_cast<size_t>(c.dims[2]);
        a.f = static_cast<size_t>(c.dims[3]);
        a.eps = static_cast<float>(c.params[0]);
        using namespace kernels;
        run_variant<TransformerBlockArgs, 2>("transformer_block", c, a,
                                             {transformer_block_unfused_cpu, transformer_block_fused_cpu},
                                             {FB_CUDA_KERNELS(transformer_block_unfused_cuda, transformer_block_fused_cuda)});
      },
  };
}

}  // namespace fusebench
