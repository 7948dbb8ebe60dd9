// The shape limits of the GPT-2 block (kernels/common/gpt2_block.h), stated once for the cases that run
// it: transformer_block (one block) and gpt2_forward (the whole model). Args has batch, seq, heads, f;
// its hidden size is heads·64 (gpt2_forward states that as a limit of its own).
#pragma once
#include <type_traits>
#include <vector>

#include "attention_limits.h"
#include "case_decl.h"
#include "common/constants.h"
#include "common/gemm_limits.h"

namespace fusebench {

template <class T, class Args>
std::vector<Limit<Args>> gpt2_block_limits() {
  std::vector<Limit<Args>> limits = {
      {"seq <= 16,384", "the unfused twin materializes seq×seq scores per head (1 GiB each at 16,384)",
       [](const Args& a) { return a.seq <= kMaxSeq; }},
      {"every GEMM dimension < 2^31", kIntDimsWhy,
       [](const Args& a) { return fit_int({a.batch * a.seq, 3 * a.heads * kHeadDim, a.f, a.batch * a.heads}); }},
      {"batch·seq <= 8,388,480", kGemmRowsWhy, [](const Args& a) { return a.batch * a.seq <= kMaxGemmRows; }}};
  if constexpr (!std::is_same_v<T, float>) limits.push_back(tensor_core_flash_grid_limit<Args>());
  return limits;
}

}  // namespace fusebench
