// Seeded normal deviates for a case's inputs, made where they are cheap: a counter-based generator (each
// pair of values a hash of the seed and its index), so any range is made independently and the work is
// split across threads. The same seed gives the same values on every machine and thread count.
#pragma once
#include <cstddef>
#include <cstdint>

#include "case_registry.h"

namespace fusebench {

// out[i] = mean + sd·z_i, z_i standard normal (Box–Muller on the hash of (seed, i / 2)), then rounded to
// `round` (bf16/fp16: to nearest even, as an upload stores it; fp32: as is).
void fill_normal(float* out, size_t n, uint32_t seed, double sd, double mean, Elem round);

// Rounds every value to `elem` in place (to nearest even, exactly as Workspace::upload stores it).
void round_floats(float* data, size_t n, Elem elem);

}  // namespace fusebench
