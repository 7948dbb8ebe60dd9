// The CPU GEMM on tensors of any precision T: for float, cpu::gemm as it is; for bf16/fp16, the
// operands widened to float, the GEMM and its epilogue in float, and the output rounded to T once (as a
// tensor-core GEMM with fp32 accumulation and a fused epilogue stores it).
//
// `make(wide)` builds the epilogue; `wide(p, count)` gives a float view of an epilogue operand of T (a
// bias, a residual), kept alive through the GEMM.
#pragma once
#include <cstddef>
#include <type_traits>
#include <vector>

#include "cpu/gemm_cpu.h"
#include "cpu/widen.h"

namespace fusebench::kernels::cpu {

template <class T, class MakeEpilogue>
void gemm_any(const T* x, const T* w, T* out, size_t m, size_t n, size_t k, MakeEpilogue make) {
  if constexpr (std::is_same_v<T, float>) {
    gemm(x, w, out, m, n, k, make([](const float* p, size_t) { return p; }));
  } else {
    const std::vector<float> xf = widen(x, m * k), wf = widen(w, n * k);
    std::vector<float> o(m * n);
    std::vector<std::vector<float>> keep;  // moving a vector keeps its buffer: the views stay valid
    const auto wide = [&keep](const T* p, size_t count) {
      keep.push_back(widen(p, count));
      return static_cast<const float*>(keep.back().data());
    };
    gemm(xf.data(), wf.data(), o.data(), m, n, k, make(wide));
    narrow(o.data(), out, m * n);
  }
}

// The plain GEMM (no epilogue).
template <class T>
void gemm_any(const T* x, const T* w, T* out, size_t m, size_t n, size_t k) {
  gemm_any(x, w, out, m, n, k, [](auto) { return NoEpilogue{}; });
}

}  // namespace fusebench::kernels::cpu
