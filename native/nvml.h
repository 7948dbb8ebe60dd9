// NVML, loaded at run time with dlopen so neither the build nor a machine without the driver
// needs it: device clocks and the reasons the clocks are held down (throttling).
#pragma once
#include <cstdint>
#include <string>

namespace fusebench {

struct NvmlInfo {
  bool available = false;
  std::string error;           // why not, when unavailable
  std::string driver_version;  // e.g. "580.159.04"
  unsigned max_sm_clock_mhz = 0;
  unsigned max_mem_clock_mhz = 0;
};

struct NvmlSample {
  bool available = false;
  unsigned sm_clock_mhz = 0;
  unsigned mem_clock_mhz = 0;
  uint64_t clock_event_reasons = 0;  // nvmlClocksEventReasons bit mask
};

// The device is found by PCI bus id so NVML and CUDA agree on which GPU is meant.
NvmlInfo nvml_info(const std::string& pci_bus_id);
NvmlSample nvml_sample(const std::string& pci_bus_id);

}  // namespace fusebench
