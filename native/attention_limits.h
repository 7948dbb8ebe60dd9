// The shape limits of the cases built on the attention building blocks (their argument structs derive
// from kernels::AttentionTensors and add the head dimension d), stated once for their registrations.
#pragma once
#include <vector>

#include "case_decl.h"
#include "common/constants.h"

namespace fusebench {

template <class Args>
std::vector<Limit<Args>> attention_limits() {
  return {{"d == 64", "the flash kernel's tiles are one head of 64 wide", [](const Args& a) { return a.d == kHeadDim; }},
          {"seq <= 16,384", "the unfused twin materializes seq×seq scores per head (1 GiB each at 16,384)",
           [](const Args& a) { return a.seq <= kMaxSeq; }},
          {"batch·heads < 2^31", "cuBLAS takes the batch count as a 32-bit int",
           [](const Args& a) { return a.batch * a.heads < (size_t{1} << 31); }}};
}

// The tensor-core flash kernel's grid (query tiles, heads, batch): the bf16/fp16 registrations add it.
template <class Args>
Limit<Args> tensor_core_flash_grid_limit() {
  return {"batch <= 65,535 and heads <= 65,535", "the tensor-core flash kernel's grid has heads in y and batch in z",
          [](const Args& a) { return a.batch <= 65535 && a.heads <= 65535; }};
}

}  // namespace fusebench
