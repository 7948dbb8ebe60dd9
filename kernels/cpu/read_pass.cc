#include <chrono>

#include "common/read_pass.h"

namespace fusebench::kernels {

void read_pass_cpu(const float* buf, size_t n) {
  float acc = 0.0f;
  for (size_t i = 0; i < n; ++i) acc += buf[i];
  volatile float sink = acc;  // keeps the loop from being optimized away
  (void)sink;
}

void spin_cpu(uint64_t ns) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::nanoseconds(ns);
  while (std::chrono::steady_clock::now() < end) {
  }
}

}  // namespace fusebench::kernels
