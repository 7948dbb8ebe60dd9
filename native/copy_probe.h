// The device's copy bandwidth, measured by fusebench itself under the cases' protocol (caches flushed
// before every sample): the ceiling the memory-bound cases' throughput is quoted against.
#pragma once
#include <cstddef>
#include <vector>

#include "backend.h"

namespace fusebench {

// Times `samples` copies of `count` floats made by `method`; milliseconds each.
std::vector<double> copy_times(BackendKind backend, size_t count, int samples, CopyMethod method);

}  // namespace fusebench
