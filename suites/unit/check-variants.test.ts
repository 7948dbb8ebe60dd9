// The numerics check of one shape (src/run/check-variants.ts) and the phases it is timed in: one set of
// inputs and one reference for both variants, uploaded again before each; with a sampled reference, an unwritten element anywhere
// still fails, naming its index; a phase that throws names itself.
import { describe, expect, test } from 'vitest';
import { findCase } from '../../cases/registry.ts';
import type { DeviceContext } from '../../src/addon/device.ts';
import { firstNonFinite, Workspace } from '../../src/addon/native.ts';
import type { CaseDef } from '../../src/case/types.ts';
import { PHASES, PhaseClock, PhaseError } from '../../src/results/phases.ts';
import { checkVariant, checkVariants, prepareInputs } from '../../src/run/check-variants.ts';
import { runCase } from '../../src/run/run-case.ts';

const biasGelu = await findCase('bias_gelu');

/** bias_gelu whose reference covers only rows 0 and rows − 1, as a GPU-sized reference samples them. */
function sampledTwoRows(def: CaseDef): CaseDef {
  return {
    ...def,
    reference: (inputs, dims) => {
      const whole = def.reference(inputs, dims).y as Float64Array;
      const [rows, cols] = dims as [number, number];
      const indices = Uint32Array.from({ length: 2 * cols }, (_, i) => (i < cols ? i : (rows - 1) * cols + i - cols));
      return { y: { indices, values: Float64Array.from(indices, (i) => whole[i] as number), note: '2 rows' } };
    },
  };
}

const cpuDevice = {
  description: { backend: 'cpu', freeMemoryBytes: 1e12 },
  sampleClocks: () => null,
} as unknown as DeviceContext;

describe('checkVariants', () => {
  test('both variants are checked on the same inputs against one reference', () => {
    const ws = new Workspace('cpu', 'bias_gelu', 'fp32', [33, 767], [], undefined);
    let references = 0;
    const counted: CaseDef = {
      ...biasGelu,
      reference: (inputs, d) => {
        references++;
        return biasGelu.reference(inputs, d);
      },
    };
    try {
      const { unfused, fused } = checkVariants(counted, ws, [33, 767], 5);
      expect(unfused.report.failure).toBeUndefined();
      expect(fused.report.failure).toBeUndefined();
      expect(fused.inputs).toBe(unfused.inputs);
      expect(references).toBe(1);
      // The CPU variants pick no kernel at run time, so they report none.
      expect(fused.kernel).toBeUndefined();
    } finally {
      ws.dispose();
    }
  });

  test('each variant runs on its inputs as made: an input one variant wrote in place is restored for the next', () => {
    const ws = new Workspace('cpu', 'bias_gelu', 'fp32', [9, 31], [], undefined);
    try {
      const prepared = prepareInputs(biasGelu, [9, 31], 4);
      // A variant that scribbles over an input (as gpt2_decode writes its new K/V row into the cache) and
      // then computes from it: checked after it, the fused variant must still see the inputs as made.
      const scribbler = {
        ...ws,
        buffers: () => ws.buffers(),
        upload: (n: string, d: Float32Array) => ws.upload(n, d),
        poison: (n: string) => ws.poison(n),
        download: (n: string) => ws.download(n),
        run: (v: string) => {
          ws.upload('x', new Float32Array(9 * 31).fill(7));
          return ws.run(v);
        },
      };
      expect(checkVariant(biasGelu, scribbler as unknown as Workspace, 'unfused', prepared).report.failure).toMatch(
        /unfused y/,
      );
      expect(checkVariant(biasGelu, ws, 'fused', prepared).report.failure).toBeUndefined();
    } finally {
      ws.dispose();
    }
  });

  test('with a sampled reference, an element outside the sampled rows left unwritten fails and is named', () => {
    const def = sampledTwoRows(biasGelu);
    const ws = new Workspace('cpu', 'bias_gelu', 'fp32', [9, 31], [], undefined);
    try {
      const prepared = prepareInputs(def, [9, 31], 3);
      expect(checkVariant(def, ws, 'fused', prepared).report).toMatchObject({ sampled: '2 rows' });
      expect(checkVariant(def, ws, 'fused', prepared).report.failure).toBeUndefined();
      // A variant that writes nothing: every element is still the poison NaN, row 4 among them.
      const lazy = {
        ...ws,
        buffers: () => ws.buffers(),
        upload: (n: string, d: Float32Array) => ws.upload(n, d),
        poison: (n: string) => ws.poison(n),
        run: () => {},
        download: (n: string) => ws.download(n),
      };
      const report = checkVariant(def, lazy as unknown as Workspace, 'fused', prepared).report;
      expect(report.failure).toMatch(/^fused y\[0\] is NaN \(unwritten/);
      // A variant that names the kernel it picked (as the CUDA attention variants do): the check keeps the name.
      const named = { ...lazy, run: () => 'flash_attention_sm90' };
      expect(checkVariant(def, named as unknown as Workspace, 'fused', prepared).kernel).toBe('flash_attention_sm90');
      // Rows 0 and 8 written, the middle ones not: the NaN of row 1 is found although no reference covers it.
      const partial = {
        ...lazy,
        download: (n: string) => {
          ws.run('fused');
          const y = ws.download(n);
          y.fill(Number.NaN, 31, 8 * 31);
          return y;
        },
      };
      expect(checkVariant(def, partial as unknown as Workspace, 'fused', prepared).report.failure).toMatch(
        /^fused y\[31\] is NaN .*the reference covers 2 rows/,
      );
    } finally {
      ws.dispose();
    }
  });
});

describe('firstNonFinite', () => {
  test('the first NaN or infinity of a large output, scanned on several threads; -1 when all are finite', () => {
    const x = new Float32Array(2 ** 22).fill(1.5);
    expect(firstNonFinite(x)).toBe(-1);
    x[3_900_000] = Number.NaN;
    x[2_500_001] = Number.NEGATIVE_INFINITY;
    expect(firstNonFinite(x)).toBe(2_500_001);
    x[7] = Number.POSITIVE_INFINITY;
    expect(firstNonFinite(x)).toBe(7);
    expect(firstNonFinite(new Float32Array(0))).toBe(-1);
  });
});

/** A short measurement: enough pairs to finish, few enough to be quick. */
const settings = { budgetMs: 20, minPairs: 5, warmupPairs: 1, targetHalfWidth: 0.5, seed: 2, maxElements: undefined };

describe('phases', () => {
  test('a measured shape records every phase, and they add up to no more than its wall time', () => {
    const t0 = performance.now();
    const r = runCase(biasGelu, { label: '64x256', dims: [64, 256], description: 'small' }, cpuDevice, settings);
    const wall = performance.now() - t0;
    expect(r.status).toBe('measured');
    const phases = r.phases as NonNullable<typeof r.phases>;
    expect(Object.keys(phases)).toEqual([...PHASES]);
    expect(phases.sampling).toBeGreaterThan(0);
    expect(phases.inputs + phases.reference + phases.comparison).toBeGreaterThan(0);
    const sum = PHASES.reduce((s, p) => s + phases[p], 0);
    expect(sum).toBeLessThanOrEqual(wall + 1);
  });

  test('each timing announces itself before its first round (the live line would stand still for its seconds)', async () => {
    const geluScale = await findCase('gelu_scale');
    const seen: { method: string; pairs: number; speedup: boolean }[] = [];
    const r = runCase(geluScale, { label: '1K', dims: [1024], description: 'tiny', timing: 'batched' }, cpuDevice, {
      ...settings,
      onProgress: (p) => seen.push({ method: p.method, pairs: p.pairs, speedup: p.speedup !== undefined }),
    });
    expect(r.status, r.reason).toBe('measured');
    expect(seen[0]).toEqual({ method: 'per-call', pairs: 0, speedup: false });
    const firstBatched = seen.findIndex((p) => p.method === 'batched');
    expect(seen[firstBatched]).toEqual({ method: 'batched', pairs: 0, speedup: false });
    expect(seen.slice(firstBatched + 1).every((p) => p.method === 'batched' && p.pairs > 0 && p.speedup)).toBe(true);
    expect(seen.slice(0, firstBatched).every((p) => p.method === 'per-call')).toBe(true);
  });

  test.each([
    [
      'inputs',
      {
        inputs: () => {
          throw new Error('no memory for x');
        },
      },
    ],
    [
      'reference',
      {
        reference: () => {
          throw new Error('row 99 is out of range');
        },
      },
    ],
  ] as const)('a failing %s phase is an error naming the phase', (phase, broken) => {
    const def = { ...biasGelu, ...broken } as CaseDef;
    const run = () => runCase(def, { label: '8x8', dims: [8, 8], description: 'tiny' }, cpuDevice, settings);
    expect(run).toThrow(PhaseError);
    expect(run).toThrow(new RegExp(`^${phase} failed: `));
  });

  test('PhaseClock: rest is the wall time no phase took; a nested PhaseError keeps its own phase', () => {
    const clock = new PhaseClock();
    clock.time('inputs', () => {
      const until = performance.now() + 5;
      while (performance.now() < until) {}
    });
    expect(clock.phases().inputs).toBeGreaterThanOrEqual(4);
    const inner = () =>
      clock.time('reference', () => {
        throw new Error('x');
      });
    expect(() => clock.time('runs', inner)).toThrow(/^reference failed: x$/);
  });
});
