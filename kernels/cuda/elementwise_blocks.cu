// The elementwise building blocks of the unfused twins (building_blocks.h), on the map kernels of
// elementwise.cuh and bias_map.cuh, in every precision.
#include "common/gelu.h"
#include "cuda/bias_map.cuh"
#include "cuda/building_blocks.h"
#include "cuda/elementwise.cuh"

namespace fusebench::cuda {
namespace {

struct ScaleOp {
  float s;
  __device__ float operator()(float x) const { return x * s; }
};

// SwiGLU's silu(gate)·up (building_blocks.h), on the accurate expf and division.
struct SiluMulOp {
  __device__ float operator()(float gate, float up) const { return gate / (1.0f + expf(-gate)) * up; }
};

}  // namespace

template <class T>
void bias_add(const T* x, const T* b, T* out, size_t rows, size_t cols, const LaunchContext& ctx) {
  launch_bias_map(x, b, out, rows, cols, AddOp{}, ctx);
}

template <class T>
void gelu(const T* x, T* out, size_t n, const LaunchContext& ctx) {
  launch_map(x, out, n, GeluOp<T>{}, ctx, "gelu");
}

template <class T>
void add(const T* x, const T* r, T* out, size_t n, const LaunchContext& ctx) {
  launch_map2(x, r, out, n, AddOp{}, ctx, "add");
}

template <class T>
void scale(const T* x, T* out, size_t n, float s, const LaunchContext& ctx) {
  launch_map(x, out, n, ScaleOp{s}, ctx, "scale");
}

template <class T>
void swiglu(const T* gate_up, T* out, size_t n, const LaunchContext& ctx) {
  launch_map2(gate_up, gate_up + n, out, n, SiluMulOp{}, ctx, "swiglu");
}

#define FB_INSTANTIATE(T)                                                                      \
  template void bias_add<T>(const T*, const T*, T*, size_t, size_t, const LaunchContext&); \
  template void gelu<T>(const T*, T*, size_t, const LaunchContext&);                       \
  template void add<T>(const T*, const T*, T*, size_t, const LaunchContext&);              \
  template void scale<T>(const T*, T*, size_t, float, const LaunchContext&);               \
  template void swiglu<T>(const T*, T*, size_t, const LaunchContext&);
FB_FOR_EACH_DTYPE(FB_INSTANTIATE)
#undef FB_INSTANTIATE

}  // namespace fusebench::cuda
