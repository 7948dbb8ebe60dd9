// The shape limits of the cases built on the attention building blocks (their argument structs derive
// from kernels::AttentionTensors and add the head dimension d), stated once for their registrations.
#pragma once
#include <vector>

#include "case_decl.h"
#include "common/constants.h"

namespace fusebench {

// The head dimension every attention case takes: 64, the width of every flash kernel's tiles.
template <class Args>
Limit<Args> head_dim_64_limit() {
  return {"d == 64", "the flash kernel's tiles are one head of 64 wide", [](const Args& a) { return a.d == kHeadDim; }};
}

// The attention case in bf16/fp16: the tensor-core kernels also have tiles for head dimension 128.
template <class Args>
Limit<Args> head_dim_64_or_128_limit() {
  return {"d == 64 or d == 128", "the tensor-core flash kernels have tiles for head dimensions 64 and 128",
          [](const Args& a) { return a.d == kHeadDim || a.d == kWideHeadDim; }};
}

// The head-dimension limit (one of the above) first, then the sequence and batch limits.
template <class Args>
std::vector<Limit<Args>> attention_limits(Limit<Args> head_dim = head_dim_64_limit<Args>()) {
  return {head_dim,
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
