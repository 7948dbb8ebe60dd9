// The shape limits of the cases whose GEMM is y[m, n] = x[m, k]·w[n, k]ᵀ (their argument structs have
// size_t m, n, k), stated once for their registrations: what fusebench's own GEMM and the cuBLAS calls
// can take (common/gemm_limits.h has the reasons).
#pragma once
#include <vector>

#include "case_decl.h"
#include "common/gemm_limits.h"

namespace fusebench {

template <class Args>
std::vector<Limit<Args>> linear_limits() {
  return {{"every dimension < 2^31", kIntDimsWhy, [](const Args& a) { return fit_int({a.m, a.n, a.k}); }},
          {"m <= 8,388,480", kGemmRowsWhy, [](const Args& a) { return a.m <= kMaxGemmRows; }}};
}

}  // namespace fusebench
