// Constants that kernels and the float64 references share. Stated once here: the addon hands them to
// TypeScript (`constants()` in native/js_device.cc), so the references never retype them.
#pragma once
#include <cstddef>

namespace fusebench {

// GELU, tanh form: 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))).
constexpr double kGeluSqrt2OverPi = 0.7978845608028654;
constexpr double kGeluCubic = 0.044715;

// Attention: every attention kernel takes head dimension 64, so the GPT-2 cases use 64 and the score
// scale 1/√64 = 1/8 (exact in float32). The attention case also takes kWideHeadDim in bf16/fp16, where
// the tensor-core kernels have tiles for it (scale 1/√128).
constexpr size_t kHeadDim = 64;
constexpr double kAttentionScale = 0.125;
static_assert(kAttentionScale * kAttentionScale * kHeadDim == 1.0, "the attention scale is 1/sqrt(kHeadDim)");
constexpr size_t kWideHeadDim = 128;
// Longest sequence the attention cases take: the unfused twins materialize seq×seq scores per head
// (1 GiB per head at 16,384).
constexpr size_t kMaxSeq = 16384;

// Dynamic shared memory of one flash-attention block (kernels/cuda/flash_attention.cuh): the Qᵀ, Kᵀ, V
// and Pᵀ tiles, 64 rows of 64 floats padded to 68 (68 KB: three blocks a Hopper multiprocessor).
constexpr size_t kFlashSmemBytes = 4 * 64 * 68 * sizeof(float);
// The bf16/fp16 tensor-core flash kernel (kernels/cuda/flash_attention_mma.cuh) at head dimension 64:
// two stages of K and V tiles, 64 rows of 64 two-byte elements.
constexpr size_t kFlashMmaSmemBytes = 4 * 64 * 64 * 2;

// ε of the norms: PyTorch's and GPT-2's LayerNorm default; LLaMA's and T5's RMSNorm.
constexpr double kLayerNormEps = 1e-5;
constexpr double kRmsNormEps = 1e-6;
// Llama-3.2's RMSNorm ε (its config's rms_norm_eps).
constexpr double kLlamaRmsNormEps = 1e-5;

}  // namespace fusebench
