#include "workspace.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>

#include "common/dtype.h"
#include "common/read_pass.h"
#include "parallel.h"

namespace fusebench {

Workspace::Workspace(std::shared_ptr<Backend> backend, const CaseSpec& spec, std::vector<int64_t> dims,
                     std::vector<double> params, Injection injection, WorkspaceOptions options)
    : backend_(std::move(backend)),
      spec_(spec),
      dims_(std::move(dims)),
      params_(std::move(params)),
      injection_(injection),
      options_(options),
      launched_(spec.variants.size(), false) {
  specs_ = sized_buffers(spec_, dims_, backend_->memory_bytes(), backend_->memory_name());
  if (params_.size() != spec_.params.size())
    throw std::invalid_argument(spec_.name + ": expected " + std::to_string(spec_.params.size()) + " params but received " +
                                std::to_string(params_.size()));
  // The kernels take params as float: a value past its range would be undefined behaviour to convert.
  for (size_t i = 0; i < params_.size(); ++i)
    if (!(std::fabs(params_[i]) <= static_cast<double>(std::numeric_limits<float>::max())))
      throw std::invalid_argument(spec_.name + ": params[" + std::to_string(i) + "] (" + spec_.params[i].name +
                                  ") must be a finite float32, within ±3.4e38");
  try {
    for (size_t i = 0; i < specs_.size(); ++i) ptrs_.push_back(backend_->alloc(words(i)));
    bound_ = spec_.bind(dims_, params_, std::vector<void*>(ptrs_.begin(), ptrs_.end()));
  } catch (...) {
    for (float* p : ptrs_) backend_->release(p);
    throw;
  }
}

Workspace::~Workspace() {
  for (float* p : ptrs_) backend_->release(p);
}

size_t Workspace::index_of(const std::string& name) const {
  for (size_t i = 0; i < specs_.size(); ++i)
    if (specs_[i].name == name) return i;
  std::string names;
  for (const auto& b : specs_) names += (names.empty() ? "" : ", ") + b.name;
  throw std::invalid_argument(spec_.name + " has no buffer '" + name + "'; its buffers: " + names);
}

size_t Workspace::words(size_t i) const { return specs_[i].bytes / 4; }

std::vector<MemoryRegion> Workspace::regions() const {
  std::vector<MemoryRegion> out;
  for (size_t i = 0; i < ptrs_.size(); ++i) out.push_back({ptrs_[i], words(i) * sizeof(float)});
  return out;
}

namespace {

// The 16-bit patterns of `n` floats in a half type, padded to whole 32-bit words.
template <class H>
std::vector<uint16_t> to_half(const float* data, size_t n) {
  std::vector<uint16_t> bits(n + n % 2, 0);
  parallel_chunks(n, 1, [&bits, data](size_t begin, size_t end) {
    for (size_t k = begin; k < end; ++k) bits[k] = from_float<H>(data[k]).bits;
  });
  return bits;
}

template <class H>
void from_half(const std::vector<uint16_t>& bits, float* data, size_t n) {
  parallel_chunks(n, 1, [&bits, data](size_t begin, size_t end) {
    for (size_t k = begin; k < end; ++k) data[k] = to_float(H{bits[k]});
  });
}

}  // namespace

void Workspace::upload(const std::string& name, const float* data, size_t count) {
  const size_t i = index_of(name);
  const BufferSpec& b = specs_[i];
  if (count != b.count)
    throw std::invalid_argument(spec_.name + ": buffer '" + name + "' holds " + std::to_string(b.count) + " elements but " +
                                std::to_string(count) + " were given");
  if (b.elem == Elem::F32) return backend_->upload(ptrs_[i], data, count);
  if (b.elem == Elem::U32)
    throw std::invalid_argument(spec_.name + ": buffer '" + name + "' holds 32-bit counters, not floats");
  const auto bits = b.elem == Elem::BF16 ? to_half<bf16>(data, count) : to_half<fp16>(data, count);
  backend_->upload(ptrs_[i], reinterpret_cast<const float*>(bits.data()), words(i));
}

void Workspace::download(const std::string& name, float* data, size_t count) {
  const size_t i = index_of(name);
  const BufferSpec& b = specs_[i];
  if (count != b.count)
    throw std::invalid_argument(spec_.name + ": buffer '" + name + "' holds " + std::to_string(b.count) +
                                " elements but the destination has room for " + std::to_string(count));
  if (b.elem == Elem::F32 || b.elem == Elem::U32) return backend_->download(data, ptrs_[i], count);
  std::vector<uint16_t> bits(2 * words(i));
  backend_->download(reinterpret_cast<float*>(bits.data()), ptrs_[i], words(i));
  if (b.elem == Elem::BF16) from_half<bf16>(bits, data, count);
  else from_half<fp16>(bits, data, count);
}

void Workspace::poison(const std::string& name) {
  const size_t i = index_of(name);
  backend_->poison(ptrs_[i], words(i));
}

void Workspace::check_variant(int variant) const {
  if (variant < 0 || static_cast<size_t>(variant) >= spec_.variants.size())
    throw std::invalid_argument(spec_.name + ": no variant " + std::to_string(variant));
}

void Workspace::launch(int variant, bool pdl) {
  check_variant(variant);
  LaunchContext ctx = backend_->launch_context();
  ctx.max_blocks = options_.max_blocks;
  ctx.pdl = pdl;
  kernel_ = nullptr;
  ctx.kernel = &kernel_;
  bound_(backend_->kind(), static_cast<size_t>(variant), ctx);
  launched_[static_cast<size_t>(variant)] = true;
  if (variant != injection_.variant) return;
  const bool cpu = backend_->kind() == BackendKind::Cpu;
  for (int p = 0; p < injection_.passes; ++p) {
    if (cpu) {
      kernels::read_pass_cpu(ptrs_[0], words(0));
    } else {
#ifdef FUSEBENCH_WITH_CUDA
      kernels::read_pass_cuda(ptrs_[0], words(0), backend_->sink(), ctx);
#endif
    }
  }
  if (injection_.spin == 0) return;
  if (cpu) {
    kernels::spin_cpu(injection_.spin);
  } else {
#ifdef FUSEBENCH_WITH_CUDA
    kernels::spin_cuda(injection_.spin, ctx);
#endif
  }
}

std::string Workspace::run(int variant) {
  launch(variant);
  backend_->synchronize();
  return kernel_ != nullptr ? kernel_ : "";
}

double Workspace::time_batch(int variant, int calls) {
  if (calls < 1) throw std::invalid_argument(spec_.name + ": a batch needs at least one call");
  check_variant(variant);  // before the queue is held: a refusal then leaves nothing waiting on the device
  if (!launched_[static_cast<size_t>(variant)]) {
    // CUDA loads a kernel on its first launch (lazy loading, Linux's default since 12.2), and a load may wait
    // for the device's running kernels: behind the hold kernel, for a release that comes only after the
    // launches, so the batch would stall until the hold's 2 s timeout. One untimed call loads them first
    // (its libraries' kernels and an injection's passes too).
    launch(variant);
    backend_->synchronize();
  }
  backend_->flush_caches(regions());
  backend_->hold_queue();
  try {
    backend_->start_timer();
    for (int i = 0; i < calls; ++i) launch(variant);
    return backend_->stop_timer_ms() / calls;
  } catch (...) {
    // A launch that threw leaves the hold kernel waiting for a release no stop_timer_ms will give: release it
    // now, or it waits its 2 s and the next good batch reports its timeout.
    backend_->release_queue();
    throw;
  }
}

double Workspace::time_graph(int variant, int calls) {
  if (calls < 1) throw std::invalid_argument(spec_.name + ": a graph needs at least one call");
  auto& graph = graphs_[{variant, calls}];
  if (!graph) {
    launch(variant);  // once outside the recording: a library's first call may allocate or choose algorithms
    backend_->synchronize();
    graph = backend_->record([&](bool pdl) {
      for (int i = 0; i < calls; ++i) launch(variant, pdl);
    });
  }
  backend_->flush_caches(regions());
  backend_->start_timer();
  graph->replay();
  return backend_->stop_timer_ms() / calls;
}

const GraphFacts& Workspace::graph_facts(int variant, int calls) const {
  const auto it = graphs_.find({variant, calls});
  if (it == graphs_.end() || !it->second)
    throw std::invalid_argument(spec_.name + ": no graph of variant " + std::to_string(variant) + " with " +
                                std::to_string(calls) + " calls was recorded (time it first)");
  return it->second->facts();
}

double Workspace::time(int variant) {
  backend_->flush_caches(regions());
  backend_->start_timer();
  launch(variant);
  return backend_->stop_timer_ms();
}

}  // namespace fusebench
