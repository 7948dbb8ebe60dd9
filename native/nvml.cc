#include "nvml.h"

#include <dlfcn.h>

#include <mutex>

namespace fusebench {
namespace {

using nvmlReturn_t = int;
using nvmlDevice_t = void*;
constexpr nvmlReturn_t kNvmlSuccess = 0;
constexpr int kClockSm = 1;
constexpr int kClockMem = 2;

struct Nvml {
  bool ok = false;
  std::string error;
  nvmlReturn_t (*init)() = nullptr;
  nvmlReturn_t (*handle_by_pci)(const char*, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*clock)(nvmlDevice_t, int, unsigned*) = nullptr;
  nvmlReturn_t (*max_clock)(nvmlDevice_t, int, unsigned*) = nullptr;
  nvmlReturn_t (*reasons)(nvmlDevice_t, unsigned long long*) = nullptr;
  nvmlReturn_t (*driver_version)(char*, unsigned) = nullptr;
};

template <typename F>
void bind(void* lib, F& fn, const char* name) {
  fn = reinterpret_cast<F>(dlsym(lib, name));
}

const Nvml& nvml() {
  static Nvml n;
  static std::once_flag once;
  std::call_once(once, [] {
    void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
      const char* why = dlerror();
      n.error = std::string("dlopen(libnvidia-ml.so.1) failed: ") + (why ? why : "unknown");
      return;
    }
    bind(lib, n.init, "nvmlInit_v2");
    bind(lib, n.handle_by_pci, "nvmlDeviceGetHandleByPciBusId_v2");
    bind(lib, n.clock, "nvmlDeviceGetClockInfo");
    bind(lib, n.max_clock, "nvmlDeviceGetMaxClockInfo");
    bind(lib, n.reasons, "nvmlDeviceGetCurrentClocksEventReasons");
    if (n.reasons == nullptr) bind(lib, n.reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
    bind(lib, n.driver_version, "nvmlSystemGetDriverVersion");
    if (!n.init || !n.handle_by_pci || !n.clock || !n.max_clock || !n.reasons || !n.driver_version) {
      n.error = "libnvidia-ml.so.1 lacks a required symbol";
      return;
    }
    const nvmlReturn_t rc = n.init();
    if (rc != kNvmlSuccess) {
      n.error = "nvmlInit_v2 returned " + std::to_string(rc);
      return;
    }
    n.ok = true;
  });
  return n;
}

bool device(const std::string& pci_bus_id, nvmlDevice_t* dev) {
  return nvml().ok && nvml().handle_by_pci(pci_bus_id.c_str(), dev) == kNvmlSuccess;
}

}  // namespace

NvmlInfo nvml_info(const std::string& pci_bus_id) {
  NvmlInfo info;
  const Nvml& n = nvml();
  nvmlDevice_t dev = nullptr;
  if (!device(pci_bus_id, &dev)) {
    info.error = n.ok ? "NVML does not know the device at PCI bus id " + pci_bus_id : n.error;
    return info;
  }
  char version[96] = {0};
  if (n.driver_version(version, sizeof version) == kNvmlSuccess) info.driver_version = version;
  n.max_clock(dev, kClockSm, &info.max_sm_clock_mhz);
  n.max_clock(dev, kClockMem, &info.max_mem_clock_mhz);
  info.available = true;
  return info;
}

NvmlSample nvml_sample(const std::string& pci_bus_id) {
  NvmlSample s;
  const Nvml& n = nvml();
  nvmlDevice_t dev = nullptr;
  if (!device(pci_bus_id, &dev)) return s;
  unsigned long long reasons = 0;
  if (n.clock(dev, kClockSm, &s.sm_clock_mhz) != kNvmlSuccess) return s;
  n.clock(dev, kClockMem, &s.mem_clock_mhz);
  if (n.reasons(dev, &reasons) == kNvmlSuccess) s.clock_event_reasons = reasons;
  s.available = true;
  return s;
}

}  // namespace fusebench
