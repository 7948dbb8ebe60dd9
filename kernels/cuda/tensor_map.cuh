// The driver's cuTensorMapEncodeTiled, found once through the runtime (no link against libcuda): it builds
// the TMA descriptors of the sm_90 kernels (flash_attention_sm90.cuh, the gpt2_decode ring kernel). Host
// side only, CUDA 12+: FB_TENSOR_MAP_HOST is defined where it exists.
#pragma once
#include <cuda.h>
#include <cuda_runtime.h>

#if defined(CUDART_VERSION) && CUDART_VERSION >= 12000
#include <cudaTypedefs.h>

#include "cuda/cuda_check.cuh"

#define FB_TENSOR_MAP_HOST 1

namespace fusebench::cuda {

inline PFN_cuTensorMapEncodeTiled_v12000 encode_tiled() {
  static const PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* f = nullptr;
    cudaDriverEntryPointQueryResult q{};
#if CUDART_VERSION >= 12050
    FB_CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &f, 12000, cudaEnableDefault, &q));
#else
    FB_CUDA_CHECK(cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &f, cudaEnableDefault, &q));
#endif
    if (f == nullptr || q != cudaDriverEntryPointSuccess) throw CudaError("the driver has no cuTensorMapEncodeTiled");
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(f);
  }();
  return fn;
}

}  // namespace fusebench::cuda

#endif
