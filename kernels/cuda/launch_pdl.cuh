// Programmatic dependent launch (PDL, compute capability 9.0+), the one launch helper of the kernels that
// may be recorded with it: the graph twin (Workspace::time_graph) records the unfused twins' launches with
// LaunchContext::pdl set where the device, the toolkit and the driver have it (CudaBackend decides), and
// every kernel launched through `launch_kernel` then goes with
// cudaLaunchAttributeProgrammaticStreamSerialization, so the graph's edge into it is programmatic: its blocks
// may be scheduled before the kernel ahead of it has finished, and the launch latency between two kernels
// overlaps the tail of the first.
//
// The contract of a kernel launched through `launch_kernel` (the CUDA Programming Guide, section 4.5
// "Programmatic Dependent Launch and Synchronization",
// https://docs.nvidia.com/cuda/cuda-programming-guide/04-special-topics/programmatic-dependent-launch.html,
// and the runtime's device API, cuda_device_runtime_api.h):
// - it calls `pdl_wait()` (griddepcontrol.wait, cudaGridDependencySynchronize) before it reads OR writes
//   global memory. The wait blocks until the grids it depends on have completed and their memory operations
//   are visible; a PDL kernel that reads before it gets data its predecessor has not written yet, and one
//   that writes before it can overwrite what its predecessor still reads (the next call's first kernel
//   rewriting a buffer the last kernel of the call before reads: the graph twin records several calls
//   back to back). Without PDL the wait returns at once, so the same kernel serves plain launches too.
// - it may call `pdl_launch_dependents()` (griddepcontrol.launch_dependents,
//   cudaTriggerProgrammaticLaunchCompletion) anywhere after its wait. The trigger only lets the next kernel
//   be scheduled once every block has triggered or exited; it carries no memory visibility: the next kernel
//   still waits, in its own pdl_wait, for this grid's full completion and memory flush. So an early trigger
//   is safe here because every successor launched with PDL is one of these kernels, which wait first; a
//   successor launched plainly (a cuBLAS/cuBLASLt kernel: we do not control its code) keeps an ordinary
//   edge and starts after this kernel completes, whatever the trigger. Triggering right after the wait
//   lets the successor's blocks be resident and waiting when this kernel's last blocks finish; all of this
//   kernel's blocks have started by then (the trigger needs every block), so none is held back by them.
// A kernel that does not wait must never be launched through here with ctx.pdl set:
// scripts/device/pdl-compile-check.sh checks (nvcc only, no GPU) that the kernels launched through here have
// both instructions in their compute_90 code, none for sm_80, and that the PDL launch compiles out before
// CUDA 12.3 (a kernel newly launched through here goes into its list).
//
// Both instructions exist from sm_90 (PTX ISA 7.8): compiled for an older architecture (sm_70, sm_80) they
// are left out, and the backend turns PDL on only where the kernels were compiled for sm_90+ (ptxVersion).
// Recording PDL launches into a graph by stream capture needs CUDA 12.3 (programmatic graph edges): older
// toolkits (the CI's 11.8) build the plain launch only.
#pragma once
#include <cuda_runtime.h>

#include <string>
#include <utility>

#include "common/launch.h"
#include "cuda/cuda_check.cuh"

#if defined(CUDART_VERSION) && CUDART_VERSION >= 12030
#define FB_PDL_GRAPHS 1
#else
#define FB_PDL_GRAPHS 0
#endif

namespace fusebench::cuda {

// Waits for the grids this one depends on to complete and their writes to be visible (PDL launches only;
// a no-op otherwise, and before sm_90).
__device__ __forceinline__ void pdl_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// Lets the next kernel (if launched with PDL) be scheduled once every block of this grid has called it or
// exited. Only after pdl_wait() (see the contract above).
__device__ __forceinline__ void pdl_launch_dependents() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" :::);
#endif
}

// Both at the top of a kernel that needs nothing before its inputs: the usual opening of the kernels here.
__device__ __forceinline__ void pdl_begin() {
  pdl_wait();
  pdl_launch_dependents();
}

// kernel<<<grid, block, smem, ctx.stream>>>(args...), with programmatic stream serialization when ctx.pdl
// is set (and the toolkit can record it); launch errors throw naming `name`.
template <class... Params, class... Args>
void launch_kernel(void (*kernel)(Params...), dim3 grid, dim3 block, size_t smem, const LaunchContext& ctx,
                   const char* name, Args&&... args) {
  const auto stream = static_cast<cudaStream_t>(ctx.stream);
#if FB_PDL_GRAPHS
  if (ctx.pdl) {
    cudaLaunchAttribute attr{};
    attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config{};
    config.gridDim = grid;
    config.blockDim = block;
    config.dynamicSmemBytes = smem;
    config.stream = stream;
    config.attrs = &attr;
    config.numAttrs = 1;
    const cudaError_t err = cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...);
    if (err != cudaSuccess) throw_cuda_error(err, (std::string("PDL launch of ") + name).c_str(), __FILE__, __LINE__);
    return;
  }
#endif
  kernel<<<grid, block, smem, stream>>>(std::forward<Args>(args)...);
  FB_CUDA_CHECK_LAUNCH(name);
}

}  // namespace fusebench::cuda
