#include "copy_probe.h"

#include "case_registry.h"

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <vector>

namespace fusebench {

std::vector<double> copy_times(BackendKind backend, size_t count, int samples, CopyMethod method) {
  const std::shared_ptr<Backend> b = get_backend(backend);
  // Two buffers of `count` floats, checked before allocating (the source is filled from a small host chunk).
  size_t bytes = 0;
  if (__builtin_mul_overflow(count, 2 * sizeof(float), &bytes) || bytes > b->memory_bytes())
    throw std::invalid_argument("copy probe: two buffers of " + grouped(count) + " floats exceed " +
                                grouped(b->memory_bytes()) + " bytes, " + b->memory_name());
  if (samples < 1) throw std::invalid_argument("copy probe: expected at least one sample");
  // Owners, so a throw part way releases both buffers.
  auto release = [b](float* p) { b->release(p); };
  std::unique_ptr<float, decltype(release)> src(b->alloc(count), release), dst(b->alloc(count), release);
  const std::vector<float> chunk(std::min(count, size_t{1} << 20), 1.5f);
  for (size_t at = 0; at < count; at += chunk.size())
    b->upload(src.get() + at, chunk.data(), std::min(chunk.size(), count - at));
  b->copy(dst.get(), src.get(), count, method);  // warm-up
  b->synchronize();
  std::vector<double> times;
  for (int i = 0; i < samples; ++i) {
    b->flush_caches({{src.get(), count * sizeof(float)}, {dst.get(), count * sizeof(float)}});
    b->start_timer();
    b->copy(dst.get(), src.get(), count, method);
    times.push_back(b->stop_timer_ms());
  }
  return times;
}

}  // namespace fusebench
