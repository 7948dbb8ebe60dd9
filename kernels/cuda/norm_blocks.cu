// The norm building blocks of the unfused twins (building_blocks.h): the row kernels of norm_rows.cuh
// without the residual, in every precision.
#include "cuda/building_blocks.h"
#include "cuda/norm_rows.cuh"

namespace fusebench::cuda {

template <class T>
void layernorm(const T* x, const T* gamma, const T* beta, T* y, size_t rows, size_t hidden, float eps,
               const LaunchContext& ctx) {
  launch_norm_rows<Norm::Layer, false>(NormRows<T>{x, nullptr, nullptr, gamma, beta, y, rows, static_cast<int>(hidden), eps},
                                       ctx);
}

template <class T>
void rmsnorm(const T* x, const T* gamma, T* y, size_t rows, size_t hidden, float eps, const LaunchContext& ctx) {
  launch_norm_rows<Norm::Rms, false>(
      NormRows<T>{x, nullptr, nullptr, gamma, nullptr, y, rows, static_cast<int>(hidden), eps}, ctx);
}

#define FB_INSTANTIATE(T)                                                                                    \
  template void layernorm<T>(const T*, const T*, const T*, T*, size_t, size_t, float, const LaunchContext&); \
  template void rmsnorm<T>(const T*, const T*, T*, size_t, size_t, float, const LaunchContext&);
FB_FOR_EACH_DTYPE(FB_INSTANTIATE)
#undef FB_INSTANTIATE

}  // namespace fusebench::cuda
