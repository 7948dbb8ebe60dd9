// What the CPU backend reports about its machine (read from /proc and sysconf).
#pragma once
#include <cstddef>
#include <string>

namespace fusebench {

struct CpuInfo {
  std::string model;
  unsigned logical_cores = 0;
  size_t last_level_cache_bytes = 0;
  size_t memory_bytes = 0;
  // What a process may still take: MemAvailable, or less where its cgroup's limit leaves less (in a container
  // /proc/meminfo shows the host's memory); 0 where neither can be read.
  size_t available_bytes = 0;
};

CpuInfo read_cpu_info();
size_t cpu_last_level_cache_bytes();

}  // namespace fusebench
