#include "matmul_probe.h"

#include <memory>
#include <stdexcept>
#include <string>

#include "backend.h"
#include "common/dtype.h"
#include "cuda/cublas_ops.h"

namespace fusebench {
namespace {

template <class T>
std::vector<double> times_in(size_t n, int samples) {
  const std::shared_ptr<Backend> b = get_backend(BackendKind::Cuda);
  const size_t elems = n * n;
  const size_t floats = (elems * sizeof(T) + sizeof(float) - 1) / sizeof(float);  // the backend allocates floats
  // n <= 2^16 (checked by the caller), so these products cannot wrap; three matrices must fit the device.
  if (3 * floats * sizeof(float) > b->memory_bytes())
    throw std::invalid_argument("matmul probe: three " + std::to_string(n) + "x" + std::to_string(n) +
                                " matrices exceed " + std::to_string(b->memory_bytes()) + " bytes, " + b->memory_name());
  auto release = [b](float* p) { b->release(p); };
  using Owned = std::unique_ptr<float, decltype(release)>;
  Owned x(b->alloc(floats), release), w(b->alloc(floats), release), y(b->alloc(floats), release);
  // Values spread over [−1, 1) (a fixed LCG): tensor-core power, and so clocks, depend on the data.
  std::vector<T> host(floats * sizeof(float) / sizeof(T));
  uint32_t state = 12345;
  for (T& v : host) {
    state = state * 1664525u + 1013904223u;
    v = from_float<T>(static_cast<float>(state >> 8) / 8388608.0f - 1.0f);
  }
  const auto* raw = reinterpret_cast<const float*>(host.data());
  b->upload(x.get(), raw, floats);
  b->upload(w.get(), raw, floats);
  const LaunchContext ctx = b->launch_context();
  const auto as = [](float* p) { return reinterpret_cast<T*>(p); };
  const auto call = [&] { cuda::cublas_gemm_xwt<T>(as(x.get()), as(w.get()), as(y.get()), n, n, n, ctx); };
  call();
  call();
  b->synchronize();
  std::vector<double> times;
  for (int i = 0; i < samples; ++i) {
    b->start_timer();
    call();
    times.push_back(b->stop_timer_ms());
  }
  return times;
}

}  // namespace

std::vector<double> matmul_times(const std::string& dtype, size_t n, int samples) {
  if (dtype == dtype_name<float>()) return times_in<float>(n, samples);
  if (dtype == dtype_name<bf16>()) return times_in<bf16>(n, samples);
  if (dtype == dtype_name<fp16>()) return times_in<fp16>(n, samples);
  throw std::invalid_argument("matmul probe: unknown dtype '" + dtype + "'; expected fp32, bf16 or fp16");
}

}  // namespace fusebench
