/** Residual add + LayerNorm: h = x + r; y = LayerNorm(h)·γ + β per row, writing both h and y. */
import { normalArray, seedStream } from '../rng.ts';
import { type CaseDef, checkDims } from './types.ts';

/** LayerNorm's ε (PyTorch's and GPT-2's default), passed to the kernels as a runtime parameter. */
export const LAYERNORM_EPS = 1e-5;
/** Longest row the CUDA kernels take: they index within a row with 32-bit ints, with headroom for a tile. */
const MAX_HIDDEN = 2 ** 30;

const rowsHidden = (dims: number[]) => ({ rows: dims[0] as number, hidden: dims[1] as number });

/** Independent input streams from one seed (the run uses seed and seed + 1 for its two variants). */

function shifted(values: Float32Array, by: number): Float32Array {
  for (let i = 0; i < values.length; i++) values[i] = (values[i] as number) + by;
  return values;
}

/** LayerNorm of one row in float64, two-pass. */
function layerNormRow(h: Float64Array, gamma: Float32Array, beta: Float32Array, y: Float64Array, off: number) {
  const n = gamma.length;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += h[off + i] as number;
  const mean = sum / n;
  let sq = 0;
  for (let i = 0; i < n; i++) sq += ((h[off + i] as number) - mean) ** 2;
  const rstd = 1 / Math.sqrt(sq / n + LAYERNORM_EPS);
  for (let i = 0; i < n; i++)
    y[off + i] = ((h[off + i] as number) - mean) * rstd * (gamma[i] as number) + (beta[i] as number);
}

export const residualLayerNorm: CaseDef = {
  name: 'residual_layernorm',
  title: 'Residual add + LayerNorm',
  sources: ['kernels/cuda/residual_layernorm.cu', 'kernels/cuda/row_reduce.cuh', 'kernels/cpu/residual_layernorm.cc'],
  variants: { unfused: 'unfused', fused: 'fused' },
  params: [LAYERNORM_EPS],
  shapes: (backend) =>
    backend === 'cuda'
      ? [
          {
            label: '16384x768',
            dims: [16_384, 768],
            description: 'rows 16,384 (batch 32 × seq 512) × hidden 768 (GPT-2 small)',
          },
        ]
      : [{ label: '2048x768', dims: [2048, 768], description: 'rows 2,048 (batch 4 × seq 512) × hidden 768' }],
  validate: (dims) => {
    checkDims('residual_layernorm', dims, 2);
    const { hidden } = rowsHidden(dims);
    if (hidden > MAX_HIDDEN) {
      throw new Error(
        `residual_layernorm: shape [${dims.join(', ')}] has hidden ${hidden}; the CUDA kernels index a row ` +
          `with 32-bit ints and take at most ${MAX_HIDDEN}`,
      );
    }
  },
  // The residual stream carries an offset (mean ≈ 4 against sd ≈ 1.4), where a one-pass
  // E[h²] − E[h]² variance would lose digits; γ ≈ 1 and β ≈ 0 as in a trained model.
  inputs: (dims, seed) => {
    const { rows, hidden } = rowsHidden(dims);
    return {
      x: normalArray(rows * hidden, 1, seedStream(seed, 0)),
      r: shifted(normalArray(rows * hidden, 1, seedStream(seed, 1)), 4),
      gamma: shifted(normalArray(hidden, 0.5, seedStream(seed, 2)), 1),
      beta: normalArray(hidden, 0.5, seedStream(seed, 3)),
    };
  },
  reference: (inputs, dims) => {
    const { rows, hidden } = rowsHidden(dims);
    const x = inputs.x as Float32Array;
    const r = inputs.r as Float32Array;
    const h = new Float64Array(rows * hidden);
    for (let i = 0; i < h.length; i++) h[i] = (x[i] as number) + (r[i] as number);
    const y = new Float64Array(rows * hidden);
    for (let row = 0; row < rows; row++) {
      layerNormRow(h, inputs.gamma as Float32Array, inputs.beta as Float32Array, y, row * hidden);
    }
    return { h, y };
  },
  // y = z·γ + β with z = (h − mean)·rstd. In float32 the error is dominated by |z·γ| times the
  // relative error of rstd: the squared deviations summed in ~30 roundings (per-thread run + tree),
  // then rsqrtf (≤ 2 ulp), ≤ ~1e-6 together; with |z·γ| ≤ ~17 at 12M elements that bounds it near
  // 2e-5, absolute, since β can cancel z·γ (a relative tolerance alone would fail near y = 0).
  // Measured on the CPU: ≤ 5.3e-6 up to hidden 20,000. A real defect (a wrong element, mean or γ) is ≥ 1e-2.
  tolerance: { atol: 5e-5, rtol: 1e-5 },
  traffic: (dims) => {
    const { rows, hidden } = rowsHidden(dims);
    const n = rows * hidden;
    return {
      // add: read x, r; write h. LayerNorm: read h, γ, β; write y.
      unfused: { bytes: 4 * (5 * n + 2 * hidden), launches: 2 },
      // read x, r, γ, β; write h, y.
      fused: { bytes: 4 * (4 * n + 2 * hidden), launches: 1 },
    };
  },
};
