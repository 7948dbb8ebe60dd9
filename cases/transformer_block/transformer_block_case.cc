#include "case_decl.h"
#include "common/constants.h"
#include "common/gemm_limits.h"
#include "transformer_block.h"

namespace fusebench {
namespace {

using kernels::TransformerBlockArgs;
using A = TransformerBlockArgs;

size_t c_of(const A& a) { return a.heads * kHeadDim; }
size_t m_of(const A& a) { return a.batch * a.seq; }
size_t c(const A& a) { return c_of(a); }
size_t c3(const A& a) { return 3 * c_of(a); }
size_t cc(const A& a) { return c_of(a) * c_of(a); }
size_t cc3(const A& a) { return 3 * cc(a); }
size_t f(const A& a) { return a.f; }
size_t fc(const A& a) { return a.f * c_of(a); }
size_t mc(const A& a) { return m_of(a) * c_of(a); }
size_t mc3(const A& a) { return 3 * mc(a); }
size_t mf(const A& a) { return m_of(a) * a.f; }
size_t scores(const A& a) { return a.batch * a.heads * a.seq * a.seq; }

CaseDecl<A> declare() {
  using namespace kernels;
  const Role in = Role::Input, out = Role::Output, tmp = Role::Scratch;
  return {"transformer_block",
          {{"batch", &A::batch}, {"seq", &A::seq}, {"heads", &A::heads}, {"f", &A::f}},
          {{"eps", &A::eps, kLayerNormEps}},
          {// Inputs.
           {"x", &A::x, in, mc}, {"ln1_g", &A::ln1_g, in, c}, {"ln1_b", &A::ln1_b, in, c},
           {"w_qkv", &A::w_qkv, in, cc3}, {"b_qkv", &A::b_qkv, in, c3}, {"w_o", &A::w_o, in, cc},
           {"b_o", &A::b_o, in, c}, {"ln2_g", &A::ln2_g, in, c}, {"ln2_b", &A::ln2_b, in, c},
           {"w1", &A::w1, in, fc}, {"b1", &A::b1, in, f}, {"w2", &A::w2, in, fc}, {"b2", &A::b2, in, c},
           // Outputs of both variants.
           {"h", &A::h, out, mc}, {"y", &A::y, out, mc},
           // Scratch: the unfused twin's one buffer per op, the fused variant's qkv, merged, g and folds.
           {"a", &A::a, tmp, mc}, {"qkv_t", &A::qkv_t, tmp, mc3}, {"qkv", &A::qkv, tmp, mc3},
           {"q", &A::q, tmp, mc}, {"k", &A::k, tmp, mc}, {"v", &A::v, tmp, mc},
           {"scores", &A::scores, tmp, scores}, {"scaled", &A::scaled, tmp, scores},
           {"masked", &A::masked, tmp, scores}, {"p", &A::p, tmp, scores}, {"o", &A::o, tmp, mc},
           {"merged", &A::merged, tmp, mc}, {"proj_t", &A::proj_t, tmp, mc}, {"proj", &A::proj, tmp, mc},
           {"a2", &A::a2, tmp, mc}, {"f1_t", &A::f1_t, tmp, mf}, {"f1", &A::f1, tmp, mf}, {"g", &A::g, tmp, mf},
           {"f2_t", &A::f2_t, tmp, mc}, {"f2", &A::f2, tmp, mc}, {"wqkv_f", &A::wqkv_f, tmp, cc3},
           {"cqkv", &A::cqkv, tmp, c3}, {"dqkv", &A::dqkv, tmp, c3}, {"w1_f", &A::w1_f, tmp, fc},
           {"c1", &A::c1, tmp, f}, {"d1", &A::d1, tmp, f}},
          {{"unfused", transformer_block_unfused_cpu, FB_CUDA(transformer_block_unfused_cuda), Needs::Cublas},
           {"fused", transformer_block_fused_cpu, FB_CUDA(transformer_block_fused_cuda), Needs::Nothing, kFlashSmemBytes}},
          // c = heads·64 is a multiple of 4 by construction; f is the FFN2 GEMM's k.
          {{"f % 4 == 0", kVectorKWhy, [](const A& a) { return a.f % 4 == 0; }},
           {"seq <= 16,384", "the unfused twin materializes seq×seq scores per head (1 GiB each at 16,384)",
            [](const A& a) { return a.seq <= kMaxSeq; }},
           {"every GEMM dimension < 2^31", kIntDimsWhy,
            [](const A& a) { return fit_int({m_of(a), 3 * c_of(a), a.f, a.batch * a.heads}); }},
           {"batch·seq <= 8,388,480", kGemmRowsWhy, [](const A& a) { return m_of(a) <= kMaxGemmRows; }}}};
}

FB_REGISTER_CASE(declare);

}  // namespace
}  // namespace fusebench
