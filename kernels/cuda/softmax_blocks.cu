// The softmax building blocks of the unfused twins (building_blocks.h), on softmax_rows.cuh, in every
// precision.
#include "cuda/building_blocks.h"
#include "cuda/softmax_rows.cuh"

namespace fusebench::cuda {

template <class T>
void causal_mask(const T* in, T* out, size_t rows, size_t seq_q, size_t seq_k, const LaunchContext& ctx) {
  if (vector_rows_ok<T>(seq_k, {in, out})) launch_mask<true>(in, out, rows, seq_q, seq_k, ctx);
  else launch_mask<false>(in, out, rows, seq_q, seq_k, ctx);
}

template <class T>
void softmax(const T* in, T* p, size_t rows, size_t seq_q, size_t seq_k, const LaunchContext& ctx) {
  launch_softmax<false>(in, p, rows, seq_q, seq_k, 1.0f, ctx);
}

#define FB_INSTANTIATE(T)                                                                      \
  template void causal_mask<T>(const T*, T*, size_t, size_t, size_t, const LaunchContext&); \
  template void softmax<T>(const T*, T*, size_t, size_t, size_t, const LaunchContext&);
FB_FOR_EACH_DTYPE(FB_INSTANTIATE)
#undef FB_INSTANTIATE

}  // namespace fusebench::cuda
