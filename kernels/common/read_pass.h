// One read of a whole buffer, kept alive by a data-dependent store that never happens. Used to
// leave the CUDA L2 clean after the cache flush, and as the regression-injection pass that makes a
// chosen variant measurably slower so the gate can be checked end to end.
#pragma once
#include <cstddef>

#include "common/launch.h"

namespace fusebench::kernels {

void read_pass_cpu(const float* buf, size_t n);

#ifdef FUSEBENCH_WITH_CUDA
// `sink` holds at least one float; it is written only on an impossible sum so the reads stay live.
void read_pass_cuda(const float* buf, size_t n, float* sink, const LaunchContext& ctx);
#endif

}  // namespace fusebench::kernels
