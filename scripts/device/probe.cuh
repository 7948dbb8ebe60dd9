// What the standalone device probes (fence-probe.cu, chain-cluster-probe.cu) share.
#pragma once
#include <cuda_runtime.h>

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
