/**
 * Shapes several cases measure or test at, stated once: the GPT-2 small sizes the GPU runs, and the
 * small awkward sizes that walk the GEMM and attention kernels' tile edges.
 */

/** GEMM [m, n, k] test shapes: a single output, sizes no multiple of the tiles, rows and columns crossing
 * the CUDA GEMM's 128×128 tiles and the CPU GEMM's 4×4 ones, k crossing the CUDA GEMM's k slices of 16,
 * and an odd k (the CUDA GEMM zero-fills a partial last slice). */
export const GEMM_TEST_SHAPES: { m: number; n: number; k: number }[] = [
  { m: 1, n: 1, k: 4 },
  { m: 5, n: 7, k: 12 },
  { m: 3, n: 33, k: 132 },
  { m: 257, n: 5, k: 8 },
  { m: 130, n: 129, k: 68 },
  { m: 64, n: 256, k: 256 },
  { m: 9, n: 33, k: 37 },
];

/** The small GEMM the CPU backend measures. */
export const CPU_GEMM_SHAPE = {
  dims: { m: 256, n: 512, k: 128 },
  description: 'rows 256 × out 512 × in 128',
};

/** GPT-2 small attention: batch 32, 12 heads of 64, seq 512. */
export const GPT2_ATTENTION_SHAPE = {
  dims: { batch: 32, heads: 12, seq: 512, d: 64 },
  description: 'batch 32 × 12 heads × seq 512 × head 64 (GPT-2 small attention)',
};
