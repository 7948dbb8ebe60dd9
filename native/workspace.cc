#include "workspace.h"

#include <stdexcept>

#include "common/read_pass.h"

namespace fusebench {

Workspace::Workspace(std::shared_ptr<Backend> backend, const CaseSpec& spec, std::vector<int64_t> dims,
                     std::vector<double> params, Injection injection, WorkspaceOptions options)
    : backend_(std::move(backend)),
      spec_(spec),
      dims_(std::move(dims)),
      params_(std::move(params)),
      injection_(injection),
      options_(options) {
  check_shape(spec_, dims_);
  if (params_.size() != spec_.params.size())
    throw std::invalid_argument(spec_.name + ": expected " + std::to_string(spec_.params.size()) + " params but received " +
                                std::to_string(params_.size()));
  specs_ = spec_.buffers(dims_);
  try {
    for (const auto& b : specs_) ptrs_.push_back(backend_->alloc(b.count));
    bound_ = spec_.bind(dims_, params_, ptrs_);
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
  throw std::invalid_argument(spec_.name + " has no buffer '" + name + "'");
}

void Workspace::upload(const std::string& name, const float* data, size_t count) {
  const size_t i = index_of(name);
  if (count != specs_[i].count)
    throw std::invalid_argument(spec_.name + ": buffer '" + name + "' holds " + std::to_string(specs_[i].count) +
                                " floats but " + std::to_string(count) + " were given");
  backend_->upload(ptrs_[i], data, count);
}

void Workspace::download(const std::string& name, float* data, size_t count) {
  const size_t i = index_of(name);
  if (count != specs_[i].count)
    throw std::invalid_argument(spec_.name + ": buffer '" + name + "' holds " + std::to_string(specs_[i].count) +
                                " floats but the destination has room for " + std::to_string(count));
  backend_->download(data, ptrs_[i], count);
}

void Workspace::poison(const std::string& name) {
  const size_t i = index_of(name);
  backend_->poison(ptrs_[i], specs_[i].count);
}

void Workspace::launch(int variant) {
  if (variant < 0 || static_cast<size_t>(variant) >= spec_.variants.size())
    throw std::invalid_argument(spec_.name + ": no variant " + std::to_string(variant));
  LaunchContext ctx = backend_->launch_context();
  ctx.max_blocks = options_.max_blocks;
  bound_(backend_->kind(), static_cast<size_t>(variant), ctx);
  if (variant != injection_.variant) return;
  const bool cpu = backend_->kind() == BackendKind::Cpu;
  for (int p = 0; p < injection_.passes; ++p) {
    if (cpu) {
      kernels::read_pass_cpu(ptrs_[0], specs_[0].count);
    } else {
#ifdef FUSEBENCH_WITH_CUDA
      kernels::read_pass_cuda(ptrs_[0], specs_[0].count, backend_->sink(), ctx);
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

void Workspace::run(int variant) {
  launch(variant);
  backend_->synchronize();
}

double Workspace::time_batch(int variant, int calls) {
  if (calls < 1) throw std::invalid_argument(spec_.name + ": a batch needs at least one call");
  backend_->flush_caches();
  backend_->hold_queue();
  backend_->start_timer();
  for (int i = 0; i < calls; ++i) launch(variant);
  return backend_->stop_timer_ms() / calls;
}

double Workspace::time(int variant) {
  backend_->flush_caches();
  backend_->start_timer();
  launch(variant);
  return backend_->stop_timer_ms();
}

}  // namespace fusebench
