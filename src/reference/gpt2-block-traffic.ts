/**
 * The traffic model of the GPT-2 pre-LN block (kernels/common/gpt2_block.h), shared by the cases that
 * run it (transformer_block, gpt2_forward): floats each variant moves, each op's inputs read once and
 * outputs written once (K/V tiles re-read from L2 not counted), c = heads·64 and m = batch·seq.
 */
import { nativeConstants } from '../addon/native.ts';
import { unfusedAttentionFloats } from './attention.ts';

/** Launches of one block: the unfused twin one op per launch; the fused and library-fused blocks. */
export const GPT2_BLOCK_LAUNCHES = { unfused: 22, fused: 7, library: 7 } as const;

/** Floats one block moves: unfused, fp32 fused (fusebench's LN-folded GEMMs), library-fused (cuBLASLt epilogues). */
export function gpt2BlockFloats(
  batch: number,
  seq: number,
  heads: number,
  f: number,
): { unfused: number; fused: number; library: number } {
  const HEAD_DIM = nativeConstants().headDim;
  const c = heads * HEAD_DIM;
  const m = batch * seq;
  const mc = m * c;
  const mf = m * f;
  const unfused =
    2 * mc +
    2 * c + // LN1: read x, γ, β; write a
    (mc + 3 * c * c + 3 * mc) + // QKV GEMM: read a, Wqkv; write qkv_t
    (3 * mc + 3 * c + 3 * mc) + // bias: read qkv_t, bqkv; write qkv
    3 * (2 * mc) + // three head splits: read a third of qkv, write q, k or v
    unfusedAttentionFloats(batch, heads, seq) +
    2 * mc + // merge: read o, write merged
    (mc + c * c + mc) + // out-projection GEMM: read merged, Wo; write proj_t
    (2 * mc + c) + // bias: read proj_t, bo; write proj
    3 * mc + // add: read x, proj; write h
    (2 * mc + 2 * c) + // LN2: read h, γ, β; write a2
    (mc + f * c + mf) + // FFN1 GEMM: read a2, W1; write f1_t
    (2 * mf + f) + // bias: read f1_t, b1; write f1
    2 * mf + // GELU: read f1, write g
    (mf + c * f + mc) + // FFN2 GEMM: read g, W2; write f2_t
    (2 * mc + c) + // bias: read f2_t, b2; write f2
    3 * mc; // add: read h, f2; write y
  // The library-fused block: fp32's cublaslt variant, and the fused variant in bf16/fp16.
  const library =
    2 * mc +
    2 * c + // LN1: read x, γ, β; write a
    (mc + 3 * c * c + 3 * c + 3 * mc) + // QKV GEMM + bias: read a, Wqkv, bqkv; write qkv
    (3 * mc + mc) + // flash attention: read Q, K, V in place from qkv; write merged
    (mc + c * c + c + mc + mc) + // out-projection + bias + x: read merged, Wo, bo, x; write h
    (2 * mc + 2 * c) + // LN2: read h, γ, β; write a2
    (mc + f * c + f + mf) + // FFN1 + bias + GELU: read a2, W1, b1; write g
    (mf + c * f + c + mc + mc); // FFN2 + bias + h: read g, W2, b2, h; write y
  const fused =
    3 * c * c +
    2 * c +
    3 * c +
    (3 * c * c + 2 * 3 * c) + // fold 1: read Wqkv, γ, β, bqkv; write W', colsum, bias
    (f * c + 2 * c + f) +
    (f * c + 2 * f) + // fold 2: read W1, γ, β, b1; write W', colsum, bias
    (mc + 2 * m) + // LN1 statistics (in the folds' launch): read x; write mean, rstd
    (mc + 2 * m + 3 * c * c + 2 * 3 * c + 3 * mc) + // QKV GEMM: read x, its statistics, W', colsum, bias; write qkv
    (3 * mc + mc) + // flash attention: read Q, K, V in place from qkv; write merged
    (mc + c * c + c + mc + mc) + // out-projection: read merged, Wo, bo, x; write h
    (mc + 2 * m) + // LN2 statistics: read h; write mean, rstd
    (mc + 2 * m + f * c + 2 * f + mf) + // FFN1: read h, its statistics, W1', colsum, bias; write g
    (mf + c * f + c + mc + mc); // FFN2: read g, W2, b2, h; write y
  return { unfused, fused, library };
}
