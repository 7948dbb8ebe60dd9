#include "case_registry.h"

#include <stdexcept>

namespace fusebench {

CaseSpec copy_case();
CaseSpec gelu_scale_case();
CaseSpec bias_gelu_case();
CaseSpec residual_layernorm_case();
CaseSpec scale_mask_softmax_case();
CaseSpec linear_gelu_case();
CaseSpec layernorm_linear_case();
CaseSpec ffn_case();
CaseSpec attention_case();
CaseSpec attention_layernorm_residual_case();
CaseSpec transformer_block_case();

const std::vector<CaseSpec>& all_cases() {
  static const std::vector<CaseSpec> cases = {
      copy_case(),        gelu_scale_case(),       bias_gelu_case(),   residual_layernorm_case(),
      scale_mask_softmax_case(), linear_gelu_case(), layernorm_linear_case(), ffn_case(),
      attention_case(),   attention_layernorm_residual_case(), transformer_block_case()};
  return cases;
}

const CaseSpec& find_case(const std::string& name) {
  std::string valid;
  for (const auto& c : all_cases()) {
    if (c.name == name) return c;
    valid += (valid.empty() ? "" : ", ") + c.name;
  }
  throw std::invalid_argument("unknown case '" + name + "'; the addon has: " + valid);
}

}  // namespace fusebench
