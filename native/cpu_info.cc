#include "cpu_info.h"

#include <unistd.h>

#include <fstream>
#include <string>
#include <thread>

namespace fusebench {

size_t cpu_last_level_cache_bytes() {
  long bytes = 0;
#ifdef _SC_LEVEL3_CACHE_SIZE
  bytes = sysconf(_SC_LEVEL3_CACHE_SIZE);
  if (bytes <= 0) bytes = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
  // Unknown cache size: assume a large one so eviction still happens.
  return bytes > 0 ? static_cast<size_t>(bytes) : static_cast<size_t>(64) << 20;
}

namespace {

// The first number in `file`, or 0 when it cannot be read or says "max".
size_t read_number(const char* file) {
  std::ifstream in(file);
  size_t v = 0;
  return in >> v ? v : 0;
}

// What this process's cgroup lets it still take (limit less usage), v2 then v1; 0 when it sets no limit.
size_t cgroup_room() {
  const struct {
    const char* limit;
    const char* usage;
  } files[] = {{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"},
               {"/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory/memory.usage_in_bytes"}};
  for (const auto& f : files) {
    const size_t limit = read_number(f.limit);
    // v1 writes "no limit" as a number near 2^63.
    if (limit == 0 || limit >= (size_t{1} << 60)) continue;
    const size_t usage = read_number(f.usage);
    return limit > usage ? limit - usage : 1;
  }
  return 0;
}

}  // namespace

CpuInfo read_cpu_info() {
  CpuInfo info;
  info.logical_cores = std::thread::hardware_concurrency();
  info.last_level_cache_bytes = cpu_last_level_cache_bytes();
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) info.model = line.substr(line.find_first_not_of(" \t", colon + 1));
      break;
    }
  }
  if (info.model.empty()) info.model = "unknown CPU";
  std::ifstream meminfo("/proc/meminfo");
  for (std::string key; meminfo >> key;) {
    size_t kb = 0;
    meminfo >> kb;
    if (key == "MemTotal:") info.memory_bytes = kb * 1024;
    if (key == "MemAvailable:") info.available_bytes = kb * 1024;
    meminfo.ignore(256, '\n');
  }
  const size_t cgroup = cgroup_room();
  if (cgroup > 0 && (info.available_bytes == 0 || cgroup < info.available_bytes)) info.available_bytes = cgroup;
  return info;
}

}  // namespace fusebench
