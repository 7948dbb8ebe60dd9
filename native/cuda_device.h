// What the CUDA backend reports about its device. Plain data; filled from cudaGetDeviceProperties.
#pragma once
#include <cstddef>
#include <string>

namespace fusebench {

struct CudaProbe {
  int device_count = 0;
  std::string error;  // why no device is usable, when device_count is 0
};

struct CudaDeviceInfo {
  std::string name;
  std::string uuid;
  std::string pci_bus_id;
  int cc_major = 0;
  int cc_minor = 0;
  int sm_count = 0;
  size_t l2_bytes = 0;
  size_t memory_bytes = 0;
  size_t free_memory_bytes = 0;
  size_t shared_memory_per_block_optin = 0;  // the most dynamic shared memory a block can opt in to
  int driver_api_version = 0;   // cudaDriverGetVersion, e.g. 13000
  int runtime_version = 0;      // cudaRuntimeGetVersion
};

// Never throws: a machine without a driver or device reports 0 devices and the reason.
CudaProbe cuda_probe();
CudaDeviceInfo read_cuda_device_info();

}  // namespace fusebench
