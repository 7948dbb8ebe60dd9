#include "common/read_pass.h"

namespace fusebench::kernels {

void read_pass_cpu(const float* buf, size_t n) {
  float acc = 0.0f;
  for (size_t i = 0; i < n; ++i) acc += buf[i];
  volatile float sink = acc;  // keeps the loop from being optimized away
  (void)sink;
}

}  // namespace fusebench::kernels
