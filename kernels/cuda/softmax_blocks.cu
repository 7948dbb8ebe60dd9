// The softmax building blocks of the unfused twins (building_blocks.h), on softmax_rows.cuh.
#include "cuda/building_blocks.h"
#include "cuda/softmax_rows.cuh"

namespace fusebench::cuda {

void causal_mask(const float* in, float* out, size_t rows, size_t seq_q, size_t seq_k, const LaunchContext& ctx) {
  if (vector_rows_ok(seq_k, {in, out})) launch_mask<true>(in, out, rows, seq_q, seq_k, ctx);
  else launch_mask<false>(in, out, rows, seq_q, seq_k, ctx);
}

void softmax(const float* in, float* p, size_t rows, size_t seq_q, size_t seq_k, const LaunchContext& ctx) {
  launch_softmax<false>(in, p, rows, seq_q, seq_k, 1.0f, ctx);
}

}  // namespace fusebench::cuda
