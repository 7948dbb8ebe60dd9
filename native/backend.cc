#include <memory>
#include <mutex>
#include <stdexcept>

#include "backend.h"

namespace fusebench {

std::shared_ptr<Backend> make_cpu_backend();
#ifdef FUSEBENCH_WITH_CUDA
std::shared_ptr<Backend> make_cuda_backend();
#endif

bool cuda_built() {
#ifdef FUSEBENCH_WITH_CUDA
  return true;
#else
  return false;
#endif
}

std::shared_ptr<Backend> get_backend(BackendKind kind) {
  static std::mutex mutex;
  static std::shared_ptr<Backend> cpu;
  static std::shared_ptr<Backend> cuda;
  std::lock_guard<std::mutex> lock(mutex);
  if (kind == BackendKind::Cpu) {
    if (!cpu) cpu = make_cpu_backend();
    return cpu;
  }
#ifdef FUSEBENCH_WITH_CUDA
  if (!cuda) cuda = make_cuda_backend();
  return cuda;
#else
  throw std::runtime_error("the CUDA backend was not built (no nvcc was found, or FUSEBENCH_CUDA=0)");
#endif
}

}  // namespace fusebench
