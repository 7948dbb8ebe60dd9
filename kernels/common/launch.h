// What a kernel family needs to know about where it runs. Plain data, no CUDA types, so the
// CPU build and the registry can pass it around without the CUDA headers.
#pragma once
#include <cstddef>

namespace fusebench {

struct LaunchContext {
  int sm_count = 1;        // CUDA: multiprocessors, used to size grids from the device
  void* stream = nullptr;  // CUDA: cudaStream_t (the default stream when null)
};

}  // namespace fusebench
