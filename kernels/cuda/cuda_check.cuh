// One macro for every CUDA runtime call: a failure throws fusebench::CudaError naming the call,
// the file:line and the error, so it reaches JavaScript as an exception and never aborts Node. Also
// the current device's compute capability and shared memory, which launchers pick kernels by.
#pragma once
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace fusebench {

class CudaError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

[[noreturn]] inline void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line) {
  throw CudaError(std::string("CUDA error: ") + call + " failed at " + file + ":" + std::to_string(line) + ": " +
                  cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")");
}

// After a launch: configuration errors (too many threads, too much shared memory) surface through
// cudaGetLastError; `kernel` names what was launched.
inline void check_launch(const char* kernel, const char* file, int line) {
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) throw_cuda_error(err, (std::string("launch of ") + kernel).c_str(), file, line);
}

}  // namespace fusebench

#define FB_CUDA_CHECK(call)                                                            \
  do {                                                                                 \
    cudaError_t fb_err_ = (call);                                                      \
    if (fb_err_ != cudaSuccess) ::fusebench::throw_cuda_error(fb_err_, #call, __FILE__, __LINE__); \
  } while (0)

#define FB_CUDA_CHECK_LAUNCH(kernel_name) ::fusebench::check_launch((kernel_name), __FILE__, __LINE__)

namespace fusebench {

// One attribute of the current device.
inline int device_attribute(cudaDeviceAttr attr) {
  int dev = 0, value = 0;
  FB_CUDA_CHECK(cudaGetDevice(&dev));
  FB_CUDA_CHECK(cudaDeviceGetAttribute(&value, attr, dev));
  return value;
}

// Compute capability of the current device as 10·major + minor, read once (the process has one device).
inline int device_compute_capability() {
  static const int cc = 10 * device_attribute(cudaDevAttrComputeCapabilityMajor) +
                        device_attribute(cudaDevAttrComputeCapabilityMinor);
  return cc;
}

struct DeviceSharedMemory {
  size_t per_multiprocessor;  // what a multiprocessor has for its blocks
  size_t reserved_per_block;  // what the system takes of it for each block (1 KB on sm_80+)
};
// The current device's shared memory, read once.
inline const DeviceSharedMemory& device_shared_memory() {
  static const DeviceSharedMemory mem{static_cast<size_t>(device_attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor)),
                                      static_cast<size_t>(device_attribute(cudaDevAttrReservedSharedMemoryPerBlock))};
  return mem;
}

}  // namespace fusebench
