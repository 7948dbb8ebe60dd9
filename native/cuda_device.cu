#include <cuda_runtime.h>

#include <cstdio>

#include "cuda/cuda_check.cuh"
#include "cuda_device.h"

namespace fusebench {

CudaProbe cuda_probe() {
  CudaProbe probe;
  const cudaError_t err = cudaGetDeviceCount(&probe.device_count);
  if (err != cudaSuccess) {
    probe.device_count = 0;
    probe.error = std::string(cudaGetErrorName(err)) + " (" + cudaGetErrorString(err) + ")";
    cudaGetLastError();  // clear it: a missing driver is an answer, not a failure
  } else if (probe.device_count == 0) {
    probe.error = "cudaGetDeviceCount returned 0 devices";
  }
  return probe;
}

CudaDeviceInfo read_cuda_device_info() {
  CudaDeviceInfo info;
  cudaDeviceProp props{};
  FB_CUDA_CHECK(cudaSetDevice(0));
  FB_CUDA_CHECK(cudaGetDeviceProperties(&props, 0));
  info.name = props.name;
  char uuid[64];
  const auto* b = reinterpret_cast<const unsigned char*>(props.uuid.bytes);
  std::snprintf(uuid, sizeof uuid, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
                b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
  info.uuid = uuid;
  char bus[32] = {0};
  FB_CUDA_CHECK(cudaDeviceGetPCIBusId(bus, sizeof bus, 0));
  info.pci_bus_id = bus;
  info.cc_major = props.major;
  info.cc_minor = props.minor;
  info.sm_count = props.multiProcessorCount;
  info.l2_bytes = static_cast<size_t>(props.l2CacheSize);
  info.memory_bytes = props.totalGlobalMem;
  info.shared_memory_per_block_optin = props.sharedMemPerBlockOptin;
  size_t free_bytes = 0, total_bytes = 0;
  FB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  info.free_memory_bytes = free_bytes;
  FB_CUDA_CHECK(cudaDriverGetVersion(&info.driver_api_version));
  FB_CUDA_CHECK(cudaRuntimeGetVersion(&info.runtime_version));
  return info;
}

}  // namespace fusebench
