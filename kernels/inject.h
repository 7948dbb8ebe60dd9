// The regression-injection pass: one extra read of a buffer, run after the chosen variant when the
// user turns injection on, so the gate can be checked end to end with a real, measurable slowdown.
#pragma once
#include <cstddef>

#include "common/launch.h"

namespace fusebench::kernels {

void extra_read_pass_cpu(const float* buf, size_t n);

#ifdef FUSEBENCH_WITH_CUDA
// `sink` holds at least one float; it is written only on an impossible sum so the reads stay live.
void extra_read_pass_cuda(const float* buf, size_t n, float* sink, const LaunchContext& ctx);
#endif

}  // namespace fusebench::kernels
