// What the standalone device probes (fence-probe.cu, chain-cluster-probe.cu) share.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include <cstdio>
#include <cstdlib>

// A failed CUDA call ends the probe, naming the call, its place and CUDA's message.
#define CK(x)                                                                                \
  do {                                                                                       \
    cudaError_t e_ = (x);                                                                    \
    if (e_ != cudaSuccess) {                                                                 \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                          \
    }                                                                                        \
  } while (0)

// The launch attribute that groups a launch's blocks in clusters of n along x.
inline cudaLaunchAttribute cluster_dim(int n) {
  cudaLaunchAttribute a = {};
  a.id = cudaLaunchAttributeClusterDimension;
  a.val.clusterDim.x = static_cast<unsigned>(n);
  a.val.clusterDim.y = 1;
  a.val.clusterDim.z = 1;
  return a;
}

// A grid barrier for a grid that is co-resident (one block an SM): every block adds one to `count`, which
// only grows within a launch, with a release add after its block's barrier; thread 0 polls it with acquire
// loads until it reaches `target` (the blocks times the barriers so far). A grid that is not co-resident
// traps instead of hanging. The host zeroes `count` before each launch.
__device__ __forceinline__ void probe_grid_barrier(unsigned* count, unsigned target) {
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("red.release.gpu.global.add.u32 [%0], 1;" ::"l"(count) : "memory");
    unsigned seen = 0;
    for (unsigned polls = 0;; ++polls) {
      asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(seen) : "l"(count) : "memory");
      if (seen >= target) break;
      if (polls > (1u << 26)) __trap();
    }
  }
  __syncthreads();
}

// The upper median of `v` (0 when empty), as the probes report their blocks' and rounds' numbers.
template <class T>
double median(std::vector<T> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return static_cast<double>(v[v.size() / 2]);
}

// Device 0's properties, its first line printed without a newline ("NVIDIA H200, 132 SMs, clock 1980 MHz"),
// and its SM clock in kHz in `khz`.
inline cudaDeviceProp print_device(int* khz) {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  CK(cudaDeviceGetAttribute(khz, cudaDevAttrClockRate, 0));
  std::printf("%s, %d SMs, clock %d MHz", prop.name, prop.multiProcessorCount, *khz / 1000);
  return prop;
}
