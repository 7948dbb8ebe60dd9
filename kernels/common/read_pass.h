// Passes that cost time and change nothing. The read pass, one read of a whole buffer kept alive by a
// data-dependent store that never happens, leaves the CUDA L2 clean after the cache flush. Both are
// the regression injection that makes a chosen variant measurably slower so the gate can be checked end
// to end: extra read passes, or a spin calibrated to a fraction of the variant's own time.
#pragma once
#include <cstddef>
#include <cstdint>

#include "common/launch.h"

namespace fusebench::kernels {

void read_pass_cpu(const float* buf, size_t n);
// Busy-waits for `ns` nanoseconds of the steady clock.
void spin_cpu(uint64_t ns);

#ifdef FUSEBENCH_WITH_CUDA
// `sink` holds at least one float; it is written only on an impossible sum so the reads stay live.
void read_pass_cuda(const float* buf, size_t n, float* sink, const LaunchContext& ctx);
// One thread spins for `cycles` SM clock cycles (its launch adds a fixed cost on top; see src/run/inject.ts).
void spin_cuda(uint64_t cycles, const LaunchContext& ctx);
#endif

}  // namespace fusebench::kernels
