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
    if (key == "MemTotal:") {
      info.memory_bytes = kb * 1024;
      break;
    }
    meminfo.ignore(256, '\n');
  }
  return info;
}

}  // namespace fusebench
