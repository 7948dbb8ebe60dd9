// A test's cap on the memory a backend may take (FUSEBENCH_CPU_MEMORY_BYTES, FUSEBENCH_CUDA_MEMORY_BYTES):
// the fuzz test keeps every workspace it gets accepted small with it, so each runs in milliseconds.
#pragma once

#include <cstddef>
#include <cstdlib>

namespace fusebench {

// `limit`, or the value of the environment variable `env_name` where it is a whole number of bytes in
// (0, limit); `capped` says which.
inline size_t memory_cap(const char* env_name, size_t limit, bool* capped) {
  *capped = false;
  const char* env = std::getenv(env_name);
  if (env == nullptr) return limit;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(env, &end, 10);
  if (end == env || *end != '\0' || v == 0 || v >= limit) return limit;
  *capped = true;
  return static_cast<size_t>(v);
}

}  // namespace fusebench
