// The elementwise building blocks of the unfused twins (building_blocks.h), on the map kernels of
// elementwise.cuh and bias_map.cuh.
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

}  // namespace

void bias_add(const float* x, const float* b, float* out, size_t rows, size_t cols, const LaunchContext& ctx) {
  launch_bias_map(x, b, out, rows, cols, AddOp{}, ctx);
}

void gelu(const float* x, float* out, size_t n, const LaunchContext& ctx) { launch_map(x, out, n, GeluOp{}, ctx, "gelu"); }

void add(const float* x, const float* r, float* out, size_t n, const LaunchContext& ctx) {
  launch_map2(x, r, out, n, AddOp{}, ctx, "add");
}

void scale(const float* x, float* out, size_t n, float s, const LaunchContext& ctx) {
  launch_map(x, out, n, ScaleOp{s}, ctx, "scale");
}

}  // namespace fusebench::cuda
