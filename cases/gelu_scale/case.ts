/** GELU (tanh form) then scale: the V100 tutorial's case. */
import { defineCase } from '../../src/case/define.ts';
import { normalArray } from '../../src/case/random.ts';
import { geluErf, geluTanh } from '../../src/reference/gelu.ts';
import { elementsReference, spreadIndices } from '../../src/reference/sampling.ts';

const SHAPES = [
  // Launch-bound: one call is a few microseconds, of which the launch gap and the event tick are a large share;
  // the graph twin says how much of the fused kernel's lead a CUDA graph of the two unfused launches takes back.
  {
    label: '1K',
    dims: { n: 1024 },
    description: '1,024 elements',
    timing: 'batched' as const,
    graphTwin: true as const,
  },
  {
    label: '1M',
    dims: { n: 1_048_576 },
    description: '1,048,576 elements',
    timing: 'batched' as const,
    graphTwin: true as const,
  },
  {
    label: '32x512x768',
    dims: { n: 32 * 512 * 768 },
    description: '12,582,912 elements (batch 32 × seq 512 × hidden 768)',
  },
  { label: '16M', dims: { n: 16_777_216 }, description: '16,777,216 elements' },
];

export default defineCase<'n', 'scale'>({
  title: 'GELU + scale',
  shapes: { cuda: SHAPES, cpu: SHAPES },
  // Every vector path: n = 1, n % 4 ≠ 0 (the scalar tail), n crossing the unrolled grid-stride body.
  testShapes: [
    { n: 1 },
    { n: 3 },
    { n: 4 },
    { n: 5 },
    { n: 31 },
    { n: 1023 },
    { n: 1024 },
    { n: 4099 },
    { n: 65_539 },
    { n: 1_048_576 },
  ],
  cappedGridShapes: [{ n: 100_003 }, { n: 4096 }],
  // Normal with sd 3: a wide range, through GELU's curved region and far into both tails.
  inputs: ({ n }, seed) => ({ x: normalArray(n, 3, seed) }),
  reference: (inputs, { n }, { scale }) => {
    const x = inputs.x as Float32Array;
    return { y: elementsReference(n, (i) => geluTanh(x[i] as number) * scale) };
  },
  // float32 tanh and products: a few ulp relative; absolute near zero where 1 + tanh cancels.
  // bf16/fp16: the output's rounding (≤ 2^-9 / 2^-12 relative, twice in the unfused twin: tmp, then y)
  // inside the rtol of PyTorch's defaults; the small atol beside it is for GELU's cancellation near
  // x ≈ −3 (measured margins: docs/measurements.md#gelu_scale).
  tolerance: {
    fp32: { atol: 1e-5, rtol: 1e-5 },
    bf16: { atol: 1e-5, rtol: 1.6e-2 },
    fp16: { atol: 1e-5, rtol: 2e-3 },
  },
  traffic: ({ n }, e) => ({
    unfused: { bytes: e * 4 * n, launches: 2 }, // read x, write tmp, read tmp, write y
    fused: { bytes: e * 2 * n, launches: 1 }, // read x, write y
  }),
  extraNumerics: (inputs, outputs, _d, { scale }) => {
    const x = inputs.x as Float32Array;
    const y = outputs.y as Float32Array;
    let maxDiff = 0;
    const { stride } = spreadIndices(x.length); // every element at the test shapes
    for (let i = 0; i < x.length; i += stride) {
      const d = Math.abs((y[i] as number) - geluErf(x[i] as number) * scale);
      if (d > maxDiff) maxDiff = d;
    }
    return { 'Max difference from exact erf-GELU': maxDiff };
  },
});
