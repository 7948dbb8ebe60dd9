// The fused Llama decode step: one persistent kernel launched once (cooperatively) for every layer, the
// final RMSNorm and the LM head — the ring kernel of llama_decode_ring.cuh, on Hopper. Elsewhere the
// variant is not run (the case declares compute capability 9.0; a build without sm_90a code, or a shape
// the ring refuses, throws naming the reason before any launch).
#include <algorithm>
#include <stdexcept>
#include <string>

#include "llama_decode.h"
#include "llama_decode_ring.cuh"

namespace fusebench::kernels {

template <class T>
void llama_decode_fused_cuda(const LlamaDecodeArgs<T>& a, const LaunchContext& ctx) {
  static const bool cooperative = device_attribute(cudaDevAttrCooperativeLaunch) != 0;  // one device a process
  if (!cooperative)
    throw std::runtime_error("llama_decode fused: the device cannot launch cooperative (co-resident) grids");
  int blocks = ctx.sm_count;
  if (ctx.max_blocks > 0) blocks = static_cast<int>(std::min<size_t>(blocks, ctx.max_blocks));
  int slots = 0;
  const std::string why = llama::ring::refusal(a, static_cast<size_t>(blocks), slots);
  if (!why.empty()) throw std::runtime_error("llama_decode fused: the ring kernel cannot run this step: " + why);
  llama::ring::launch(a, ctx, blocks, slots);
  report_kernel(ctx, "llama_decode_ring_sm90");
}

#define FB_INSTANTIATE(T) template void llama_decode_fused_cuda<T>(const LlamaDecodeArgs<T>&, const LaunchContext&);
FB_FOR_EACH_DTYPE(FB_INSTANTIATE)
#undef FB_INSTANTIATE

}  // namespace fusebench::kernels
