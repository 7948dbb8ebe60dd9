#include "cpu_info.h"

#include <unistd.h>

#include <algorithm>
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

// The path of this process's cgroup in the v2 hierarchy ("0::/path") or the v1 memory one ("N:memory:/path"),
// from /proc/self/cgroup; "" where it is not listed.
std::string own_cgroup(bool v2) {
  std::ifstream in("/proc/self/cgroup");
  for (std::string line; std::getline(in, line);) {
    const auto first = line.find(':');
    const auto second = first == std::string::npos ? first : line.find(':', first + 1);
    if (second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    const bool listed = v2 ? line.compare(0, first, "0") == 0 && controllers.empty()
                           : (',' + controllers + ',').find(",memory,") != std::string::npos;
    if (listed) return line.substr(second + 1);
  }
  return "";
}

// The value of `key` in a memory.stat file ("inactive_file 123"), or 0.
size_t stat_value(const std::string& file, const std::string& key) {
  std::ifstream in(file);
  std::string k;
  size_t v = 0;
  while (in >> k >> v)
    if (k == key) return v;
  return 0;
}

// What this process's cgroups let it still take (limit less usage), the least over its own cgroup and every
// one above it (a limit may sit on any of them), v2 then v1; 0 when none sets a limit. The usage counts the
// page cache, whose inactive part the kernel reclaims before it refuses memory (as MemAvailable counts it as
// free): that part is left out, or a cgroup that had read a large file would refuse shapes that fit.
size_t cgroup_room() {
  const struct {
    bool v2;
    const char* root;
    const char* limit;
    const char* usage;
    const char* inactive;  // memory.stat's key for the reclaimable page cache, this cgroup and those below
  } hierarchies[] = {{true, "/sys/fs/cgroup", "memory.max", "memory.current", "inactive_file"},
                     {false, "/sys/fs/cgroup/memory", "memory.limit_in_bytes", "memory.usage_in_bytes",
                      "total_inactive_file"}};
  size_t least = 0;
  for (const auto& h : hierarchies) {
    std::string path = own_cgroup(h.v2);
    if (path.empty() || path[0] != '/' || path.find("..") != std::string::npos) path = "/";
    for (;;) {
      const std::string dir = std::string(h.root) + (path == "/" ? "" : path) + "/";
      const size_t limit = read_number((dir + h.limit).c_str());
      // v1 writes "no limit" as a number near 2^63; v2 writes "max", read as 0.
      if (limit > 0 && limit < (size_t{1} << 60)) {
        const size_t charged = read_number((dir + h.usage).c_str());
        const size_t inactive = stat_value(dir + "memory.stat", h.inactive);
        const size_t usage = charged > inactive ? charged - inactive : 0;
        const size_t room = limit > usage ? limit - usage : 1;
        least = least == 0 ? room : std::min(least, room);
      }
      if (path == "/") break;
      const auto slash = path.rfind('/');
      path = slash == 0 ? "/" : path.substr(0, slash);
    }
    if (least > 0) return least;
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
