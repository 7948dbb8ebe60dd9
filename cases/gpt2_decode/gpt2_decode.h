// One GPT-2 decode step at batch 1 with a KV cache, c = heads·64:
//   x = wte[token] + wpe[pos]; for each layer l:
//     a = LN1(x); [q | k | v] = a·Wqkvᵀ + bqkv; K[l][pos] = k, V[l][pos] = v (written into the cache);
//     o = attention of q over the cache rows 0 .. pos, per head; x += o·Woᵀ + bo;
//     x += gelu(LN2(x)·W1ᵀ + b1)·W2ᵀ + b2;
//   logits = LNf(x)·wteᵀ (the LM head is the tied embedding).
// Unfused: one launch per op, as an eager framework runs the step (149 launches at 12 layers): the suite's
// LayerNorm row kernel, cuBLASLt GEMVs with the bias epilogue, residual adds, GELU, a split-KV attention
// over the cache and its combine. Fused: one persistent kernel for the whole step (gpt2_decode_fused.cu
// says how its blocks wait for each other). The weights of every layer are stacked in one buffer each.
// The cache is an input: rows 0 .. pos − 1 hold the past, and both variants write row pos in place
// (the harness has no in-out role; row pos is rewritten with the same values on every call).
#pragma once
#include <cstddef>
#ifdef GPT2_DECODE_STAGE_TIMES
#include <vector>
#endif

#include "common/dtype.h"
#include "common/launch.h"

namespace fusebench::kernels {

template <class T>
struct Gpt2DecodeArgs {
  // Inputs.
  const T* wte;                 // [vocab, c] token embedding, also the LM head
  const T* wpe;                 // [ctx, c] position embedding
  const T* ln1_g, *ln1_b;       // [layers, c]
  const T* w_qkv, *b_qkv;       // [layers, 3c, c], [layers, 3c]: rows [Q | K | V]
  const T* w_o, *b_o;           // [layers, c, c], [layers, c]
  const T* ln2_g, *ln2_b;       // [layers, c]
  const T* w1, *b1;             // [layers, f, c], [layers, f]
  const T* w2, *b2;             // [layers, c, f], [layers, c]
  const T* lnf_g, *lnf_b;       // [c]
  T* k_cache, *v_cache;         // [layers, ctx, c]: the past in rows 0 .. pos − 1; the step writes row pos
  // Output.
  T* logits;                    // [vocab]
  // Scratch of the unfused twin, one buffer per op output (as eager stores them, in T).
  T* x, *h, *a, *qkv, *att, *proj;  // [c] residual before and after attention, [c], [3c], [c], [c]
  T* f1, *g;                    // [f]
  // Scratch of both: the attention's per-chunk partial results (max, sum, 64 unnormalized outputs).
  float* att_part;              // [heads, max_splits(ctx), 66]
  // Scratch of the fused kernel, fp32: the residual stream, q|k|v, and gelu(FFN1).
  float* x_f, *qkv_f, *g_f;     // [c·kResidualCopies], [3c], [max(f, c·kResidualCopies)] (gpt2_decode_case.cc)
  size_t layers, hidden, heads, f, vocab, ctx, pos, token;
  float eps;
};

namespace gpt2 {

// The attention over the cache rows 0 .. pos is split into chunks of keys, each reduced by one block
// to (max, sum, unnormalized output) and combined per head: chunks of 16 to 256 keys, as many as it
// takes to give every block of a grid of `blocks` one chunk.
constexpr size_t kMinChunk = 16;
constexpr size_t kMaxChunk = 256;
constexpr size_t kPartFloats = 66;  // max, sum, 64 outputs
struct AttentionSplit {
  size_t chunk, splits;
};
inline AttentionSplit attention_split(size_t keys, size_t heads, size_t blocks) {
  const size_t want = blocks > heads ? (blocks + heads - 1) / heads : 1;
  size_t chunk = (keys + want - 1) / want;
  chunk = chunk < kMinChunk ? kMinChunk : (chunk > kMaxChunk ? kMaxChunk : chunk);
  return {chunk, (keys + chunk - 1) / chunk};
}
// Chunks per head at most, over every position of a cache of ctx rows (the att_part buffer's size).
inline size_t max_splits(size_t ctx) { return (ctx + kMinChunk - 1) / kMinChunk; }

// The fused kernel's per-layer, per-head completion counters are static device memory.
constexpr size_t kMaxLayers = 64;
constexpr size_t kMaxHeads = 64;
// The ring kernel's residual stream: each of its two fp32 buffers (x_f, g_f) holds this many copies of
// the vector. Block b adds into copy b mod kResidualCopies and a reader sums them, so the split-K atomics
// of ~130 blocks spread over more cache lines of L2.
#ifndef GPT2_RING_RESIDUAL_COPIES
#define GPT2_RING_RESIDUAL_COPIES 8
#endif
constexpr int kResidualCopies = GPT2_RING_RESIDUAL_COPIES;
static_assert(kResidualCopies >= 1, "at least one copy of the residual");
// The fused kernel stages the GEMV input vector (x, or gelu(FFN1)) in shared memory as floats.
constexpr size_t kMaxVector = 8192;

}  // namespace gpt2

FB_FUSED_PAIR_DECL(gpt2_decode, Gpt2DecodeArgs)

#if defined(FUSEBENCH_WITH_CUDA) && defined(GPT2_DECODE_STAGE_TIMES)
// Built with -DGPT2_DECODE_STAGE_TIMES only (a measuring aid, never in the addon): the global-timer stamps
// of the last fused launch, kStamps per block for the first kTimedBlocks blocks: 0 at the start, then per
// stage k (4 per layer, the LM head last) 2k + 1 when its work is done and 2k + 2 when its barrier
// releases the block (the LM head's release stamp is the kernel's end); then kSubStamps points inside each
// layer's stages from kSubBase on (the ring kernel's, FB_SUB_STAMP).
namespace gpt2 {
constexpr size_t kTimedBlocks = 256;
constexpr size_t kSubBase = 8 * kMaxLayers + 2;
constexpr size_t kSubStamps = 16;
constexpr size_t kStamps = kSubBase + kSubStamps * kMaxLayers;
}  // namespace gpt2
// Then kTimedBlocks totals: the ring kernel's thread 0's cycles waiting for ring data (reset on each read);
// then the same stamps as SM cycle counts (clock64), for spans within a block.
std::vector<unsigned long long> gpt2_decode_stage_times();
#endif

}  // namespace fusebench::kernels
