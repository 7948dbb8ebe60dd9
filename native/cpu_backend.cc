// The CPU backend: host memory, a steady clock, and cache eviction of the timed call's own buffers
// (clflush on x86-64, dc civac on AArch64; elsewhere a sweep over a buffer twice the last-level cache).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include "backend.h"
#include "cpu_info.h"
#include "memory_cap.h"

#if defined(__x86_64__) || defined(_M_X64)
#include <immintrin.h>
#endif

namespace fusebench {
namespace {

constexpr size_t kCacheLine = 64;

// Writes back and invalidates every cache line of `r`, in every cache level, then waits for it.
// Returns false where the architecture has no such instruction (the caller sweeps instead).
bool evict(const std::vector<MemoryRegion>& regions) {
#if defined(__x86_64__) || defined(_M_X64)
  for (const MemoryRegion& r : regions) {
    const auto* p = static_cast<const char*>(r.ptr);
    for (size_t off = 0; off < r.bytes; off += kCacheLine) _mm_clflush(p + off);
  }
  _mm_mfence();
  return true;
#elif defined(__aarch64__)
  for (const MemoryRegion& r : regions) {
    const auto* p = static_cast<const char*>(r.ptr);
    for (size_t off = 0; off < r.bytes; off += kCacheLine) asm volatile("dc civac, %0" ::"r"(p + off) : "memory");
  }
  asm volatile("dsb ish" ::: "memory");
  return true;
#else
  (void)regions;
  return false;
#endif
}

class CpuBackend final : public Backend {
 public:
  CpuBackend() : memory_(memory_limit()) {}
  BackendKind kind() const override { return BackendKind::Cpu; }
  size_t memory_bytes() const override { return memory_; }
  const char* memory_name() const override {
    return capped_ ? "the CPU backend's memory (FUSEBENCH_CPU_MEMORY_BYTES)" : "the CPU backend's memory (MemAvailable, or the cgroup's room)";
  }
  // Every workspace's buffers together stay within memory_bytes(): each workspace is checked against it
  // alone first (sized_buffers), and here against what the live ones already hold, so that many workspaces
  // (or ones dropped and not yet collected) cannot take the host past it, where the kernel's OOM killer ends
  // the process instead of an error.
  float* alloc(size_t count) override {
    const size_t bytes = (count > 0 ? count : 1) * sizeof(float);
    std::lock_guard<std::mutex> lock(held_mutex_);
    if (bytes > memory_ || held_bytes_ > memory_ - bytes)
      throw std::runtime_error("CPU allocation of " + std::to_string(bytes) + " bytes refused: the workspaces alive hold " +
                               std::to_string(held_bytes_) + " bytes, and the limit is " + std::to_string(memory_) +
                               " bytes, " + memory_name() + " (dispose() the workspaces no longer used)");
    auto* p = new (std::nothrow) float[bytes / sizeof(float)];
    if (p == nullptr) throw std::runtime_error("CPU allocation of " + std::to_string(bytes) + " bytes failed");
    try {
      held_.emplace(p, bytes);
    } catch (...) {
      delete[] p;  // not recorded: released here, not by release()
      throw;
    }
    held_bytes_ += bytes;
    return p;
  }
  void release(float* ptr) noexcept override {
    {
      std::lock_guard<std::mutex> lock(held_mutex_);
      const auto it = held_.find(ptr);
      if (it != held_.end()) {
        held_bytes_ -= it->second;
        held_.erase(it);
      }
    }
    delete[] ptr;
  }
  void upload(float* dst, const float* src, size_t count) override { std::memcpy(dst, src, count * sizeof(float)); }
  void download(float* dst, const float* src, size_t count) override { std::memcpy(dst, src, count * sizeof(float)); }
  void copy(float* dst, const float* src, size_t count, CopyMethod method) override {
    if (method == CopyMethod::Runtime) {
      std::memcpy(dst, src, count * sizeof(float));
    } else {
      for (size_t i = 0; i < count; ++i) dst[i] = src[i];
    }
  }
  void poison(float* ptr, size_t count) override {
    // All ones: a NaN as binary32 and as each 16-bit half of a word (bf16 and fp16 buffers).
    std::memset(ptr, 0xFF, count * sizeof(float));
  }
  void flush_caches(const std::vector<MemoryRegion>& touched) override {
    if (evict(touched)) return;
    // No eviction instruction: a read-modify-write of every line of a buffer twice the last-level cache,
    // never more than a quarter of the memory the backend may use (FUSEBENCH_CPU_MEMORY_BYTES below).
    std::lock_guard<std::mutex> lock(flush_mutex_);
    if (flush_.empty()) flush_.assign(std::min(2 * cpu_last_level_cache_bytes(), memory_ / 4) / sizeof(float) + 1, 0.0f);
    for (auto& v : flush_) v += 1.0f;
  }
  // The one backend serves every thread of the process (worker_threads included): each thread times itself.
  void start_timer() override { timer_start() = std::chrono::steady_clock::now(); }
  double stop_timer_ms() override {
    const auto end = std::chrono::steady_clock::now();
    return std::chrono::duration<double, std::milli>(end - timer_start()).count();
  }
  void synchronize() override {}
  LaunchContext launch_context() const override { return LaunchContext{}; }
  std::unique_ptr<Replay> record(const std::function<void(bool)>&) override {
    throw std::invalid_argument("the CPU backend has no graphs to replay launches from (CUDA only)");
  }
  float* sink() override { return &sink_; }

 private:
  // The memory this process may still take when the backend starts (cpu_info.h: MemAvailable or the cgroup's
  // room; MemTotal, then 2^40, where those cannot be read, which still refuses sizes no host has), or less
  // where FUSEBENCH_CPU_MEMORY_BYTES says so (the fuzz test keeps every workspace small with it).
  size_t memory_limit() {
    const CpuInfo cpu = read_cpu_info();
    const size_t room = cpu.available_bytes > 0 ? cpu.available_bytes : cpu.memory_bytes;
    return memory_cap("FUSEBENCH_CPU_MEMORY_BYTES", room > 0 ? room : size_t{1} << 40, &capped_);
  }

  static std::chrono::steady_clock::time_point& timer_start() {
    thread_local std::chrono::steady_clock::time_point start{};
    return start;
  }

  bool capped_ = false;
  size_t memory_;
  std::mutex held_mutex_;
  std::unordered_map<const float*, size_t> held_;
  size_t held_bytes_ = 0;
  std::mutex flush_mutex_;
  std::vector<float> flush_;
  float sink_ = 0.0f;
};

}  // namespace

std::shared_ptr<Backend> make_cpu_backend() { return std::make_shared<CpuBackend>(); }

}  // namespace fusebench
