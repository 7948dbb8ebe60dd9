// The shape rules of the GEMM cases, stated once for their registrations: what fusebench's own GEMM
// (kernels/cuda/gemm.cuh) and the cuBLAS calls can take.
#pragma once
#include <cstddef>
#include <initializer_list>

namespace fusebench {

// Rows of one block of fusebench's GEMM, and the grid's limit of 65,535 row tiles.
constexpr size_t kGemmTileRows = 128;
constexpr size_t kMaxGemmRows = 65535 * kGemmTileRows;

constexpr const char* kGemmRowsWhy = "fusebench's GEMM grid takes 65,535 tiles of 128 rows";
constexpr const char* kIntDimsWhy = "the launchers and cuBLAS take 32-bit ints";

// Whether every value fits a 32-bit int.
inline bool fit_int(std::initializer_list<size_t> values) {
  for (size_t v : values)
    if (v >= (size_t{1} << 31)) return false;
  return true;
}

}  // namespace fusebench
