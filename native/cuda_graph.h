// The CUDA backend's graphs: launches recorded once by stream capture, with programmatic dependent launch
// (PDL) where the device and the build have it, and what the recorded graph holds (GraphFacts).
#pragma once
#include <cuda_runtime.h>

#include <functional>
#include <memory>
#include <string>

#include "backend.h"

namespace fusebench {

// Why launches recorded into a graph cannot go with PDL on the current device with this build and driver;
// "" where they can: compute capability 9.0+, the runtime and the driver 12.3+ (programmatic graph edges by
// stream capture), and the kernels compiled for sm_90+ (so their griddepcontrol.wait exists). Never throws.
std::string graph_pdl_unavailable(const cudaDeviceProp& props);

// Records the launches `launches(pdl)` makes on `stream` into a graph and instantiates it; pdl is
// no_pdl_reason.empty(). A launch that throws ends the capture and rethrows; nothing is kept.
std::unique_ptr<Replay> record_graph(cudaStream_t stream, const std::string& no_pdl_reason,
                                     const std::function<void(bool pdl)>& launches);

}  // namespace fusebench
