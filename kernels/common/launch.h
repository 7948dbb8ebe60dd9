// What a kernel family needs to know about where it runs. Plain data, no CUDA types, so the
// CPU build and the registry can pass it around without the CUDA headers.
#pragma once
#include <cstddef>

namespace fusebench {

struct LaunchContext {
  int sm_count = 1;        // CUDA: multiprocessors, used to size grids from the device
  void* stream = nullptr;  // CUDA: cudaStream_t (the default stream when null)
  // Tests only: a cap on the blocks of every grid-stride launch (0: none), so that small inputs
  // still take the paths where threads loop (the unrolled body, stride carry-overs, row strides).
  size_t max_blocks = 0;
};

}  // namespace fusebench
