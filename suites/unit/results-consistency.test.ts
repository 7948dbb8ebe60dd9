// A results file's summaries, speedups, rates and verdicts must be what its own samples and the decision rule
// give: a hand edit or a merge gone wrong is refused naming the field, and nothing a run writes ever is.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { type DeviceDescription, deviceSlug } from '../../src/addon/device.ts';
import type { BaselineEntry, LoadedBaselines } from '../../src/gate/baseline-file.ts';
import { gateCase } from '../../src/gate/gate.ts';
import { fieldPath, type ResultsFile, resultsFileSchema, validateFile } from '../../src/results/results.ts';
import { caseContradictions } from '../../src/results/results-consistency.ts';
import { measuredCase } from '../support/measured-case.ts';

const fixtures = join(import.meta.dirname, '..', 'fixtures');
const read = (name: string): ResultsFile => JSON.parse(readFileSync(join(fixtures, name), 'utf8'));
/** A real H100 run: cases 27 (a GEMM, every pair kept, gated SAME on both metrics) and 0 (gelu_scale 1K, gated
 * on its batched timing, both timings thinned to 40 of their pairs). */
const h100 = read('h100-results-cb047cf.json');
/** A real H200 run of gpt2_decode with its graph twin, every pair kept. */
const decode = read('h200-gpt2-decode-run.json');

type Path = (string | number)[];
/** The file with the number at `path` passed through `f`. */
function edit(file: ResultsFile, path: Path, f: (x: number) => number): ResultsFile {
  const copy = structuredClone(file) as unknown as Record<string | number, unknown>;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  const last = path.at(-1) as string | number;
  node[last] = f(node[last] as number);
  return copy as unknown as ResultsFile;
}
const problems = (file: ResultsFile): string => {
  try {
    validateFile(resultsFileSchema, file, 'run.json');
    return '';
  } catch (e) {
    return (e as Error).message;
  }
};

describe('a results file against its own samples', () => {
  test('every recorded run loads: thinned or whole, gated or not, with hand-written verdicts that keep the rule', () => {
    for (const name of [
      'h100-results-cb047cf.json',
      'h200-results.json',
      'h200-gate-run.json',
      'h200-gate-inject.json',
      'h200-mixed-verdicts.json',
      'h200-gpt2-decode-run.json',
    ])
      expect(problems(read(name)), name).toBe('');
  });

  // Each row: what is edited, in which run, the number's path and the factor; the field the refusal names is that
  // path unless given.
  test.each([
    ['a fused median 3% off', h100, 'cases.27.timing.fused.median', 1.03],
    // An estimate moved out of its own interval is refused by the interval's check, before the samples are asked.
    ['a speedup 2% off', h100, 'cases.27.speedup.estimate', 1.02, 'cases.27.speedup'],
    ['a speedup 0.1% off, inside its interval', h100, 'cases.27.speedup.estimate', 1.001],
    ['a sample count', h100, 'cases.27.timing.unfused.n', 2],
    ['a least time', h100, 'cases.27.timing.unfused.min', 0.9],
    ['a mean', h100, 'cases.27.timing.fused.mean', 1.01],
    ['a 90th percentile', h100, 'cases.27.timing.unfused.p90', 1.01],
    ['a spread', h100, 'cases.27.timing.unfused.relMad', 3],
    ['a bandwidth', h100, 'cases.27.fusedGBs', 1.1],
    ['a share of the copy rate', h100, 'cases.27.fusedPctOfCopy', 1.1],
    ['an efficiency', h100, 'cases.27.efficiency', 1.1],
    ['a TFLOP/s', decode, 'cases.1.tflops.fused', 1.1],
    ['a share of the matrix peak', decode, 'cases.1.fusedPctOfMatrixPeak', 1.1],
    ["the gate's current speedup", h100, 'cases.27.gate.speedup.current', 1.05],
    ["the gate's baseline", h100, 'cases.27.gate.fusedTime.baseline', 1.05, 'cases.27.gate.fusedTime.diff.estimate'],
    // Thinned: a median far outside where 40 kept samples put the median of all is refused; so is a batched one.
    ['a thinned median', h100, 'cases.0.timing.fused.median', 2],
    ['a batched median', h100, 'cases.0.batched.fused.median', 2],
    ['a batched speedup', h100, 'cases.0.batched.speedup.estimate', 2, 'cases.0.batched.speedup'],
    ["the graph twin's median", decode, 'cases.1.graphTwin.graph.median', 1.01],
    ["the graph twin's speedup", decode, 'cases.1.graphTwin.speedup.estimate', 1.01, 'cases.1.graphTwin.speedup'],
  ] as [string, ResultsFile, string, number, string?][])(
    '%s edited by hand is refused naming the field',
    (_, file, at, k, named = at) => {
      const path = (p: string) => p.split('.').map((x) => (/^\d+$/.test(x) ? Number(x) : x));
      expect(problems(file)).toBe('');
      expect(problems(edit(file, path(at), (x) => x * k))).toContain(`\n  ${fieldPath(path(named))}: `);
    },
  );

  test('a verdict its interval and δ do not give is refused, and so is a status its decisions do not give', () => {
    // SAME made SLOWER: the interval lies inside the ±δ band.
    const slower = structuredClone(h100);
    const g = slower.cases[27]?.gate;
    if (!g?.speedup) throw new Error('the fixture has a gated GEMM');
    g.speedup.verdict = 'SLOWER';
    expect(problems(slower)).toContain('cases[27].gate.speedup.verdict: SLOWER disagrees with its interval');
    // The case's status alone: FASTER where both decisions say SAME.
    const faster = structuredClone(h100);
    (faster.cases[27]?.gate as NonNullable<typeof g>).status = 'FASTER';
    expect(problems(faster)).toContain('cases[27].gate.status: FASTER disagrees with its decisions, which give SAME');
    // An AMBIGUOUS is never refused: the gate says it for a baseline of too few pairs, whatever the interval.
    const ambiguous = structuredClone(h100);
    const a = ambiguous.cases[27]?.gate as NonNullable<typeof g>;
    (a.speedup as NonNullable<typeof a.speedup>).verdict = 'AMBIGUOUS';
    a.status = 'AMBIGUOUS';
    expect(problems(ambiguous)).toBe('');
  });

  test('a FASTER written by the rule before 6febc14 (the upper edge log(1 + δ)) is still read', () => {
    const faster = structuredClone(h100);
    const g = faster.cases[27]?.gate;
    if (!g?.speedup?.diff) throw new Error('the fixture has a gated GEMM');
    // Between log(1.05) = 0.0488 and −log(0.95) = 0.0513: FASTER then, AMBIGUOUS now.
    g.speedup = { ...g.speedup, verdict: 'FASTER', delta: 0.05, diff: { ...g.speedup.diff, lo: 0.05, hi: 0.07 } };
    g.status = 'FASTER';
    (g.fusedTime as NonNullable<typeof g.fusedTime>).verdict = 'SAME';
    expect(problems(faster)).toBe('');
    g.speedup.diff.lo = 0.048;
    expect(problems(faster)).toContain(
      'cases[27].gate.speedup.verdict: FASTER disagrees with its interval [0.048, 0.07]',
    );
  });

  test('a copy whose samples were cut must say so; then it may hold fewer samples than its pairs, never more', () => {
    // One pair taken out of a whole run: its checks must not loosen to a cut copy's bands by themselves.
    const cut = structuredClone(decode);
    const t = cut.cases[1]?.timing;
    if (!t) throw new Error('the fixture measured gpt2_decode bf16');
    t.samples = { unfused: t.samples.unfused.slice(1), fused: t.samples.fused.slice(1) };
    expect(problems(cut)).toContain(
      `cases[1].timing.unfused.n: ${t.unfused.n} pairs, but timing.samples.unfused holds ${t.unfused.n - 1} samples: a run keeps every pair it summarized`,
    );
    expect(problems({ ...cut, samplesThinned: 'the first pair dropped' })).toBe('');
    expect(problems(edit(h100, ['cases', 0, 'timing', 'fused', 'n'], () => 39))).toContain(
      'cases[0].timing.fused.n: 39 pairs, but timing.samples.fused holds 40 samples',
    );
  });
});

describe('what a run writes is consistent, whatever it measured', () => {
  const device: DeviceDescription = {
    backend: 'cuda',
    name: 'Test GPU',
    slug: deviceSlug('Test GPU'),
    details: {},
    fingerprint: {},
    copyBandwidthGBs: 1000,
    freeMemoryBytes: 1e9,
  };
  const timesOf = (n: number, medianMs: number, spread: number, seed: number) =>
    Array.from({ length: n }, (_, i) => medianMs * Math.exp(spread * Math.sin(seed + 1.7 * i * i)));

  test.prop(
    [
      fc.integer({ min: 10, max: 300 }),
      fc.double({ min: 0.001, max: 50, noNaN: true }),
      fc.double({ min: 0.2, max: 5, noNaN: true }),
      fc.double({ min: 0, max: 0.3, noNaN: true }),
      fc.double({ min: 0.5, max: 2, noNaN: true }),
      fc.boolean(),
      fc.integer({ min: 0, max: 1000 }),
    ],
    { numRuns: 60 },
  )(
    'a case whose summaries, speedup and gate come from the run’s own statistics and gate, then a random cut copy of it',
    (n, fusedMs, speedup, spread, drift, withSamples, seed) => {
      const u = timesOf(n, fusedMs * speedup, spread, seed);
      const f = timesOf(n, fusedMs, spread, seed + 1);
      const c = measuredCase('1M', u, f);
      const base = timesOf(40, drift, spread, seed + 2);
      const entry = {
        case: 'gelu_scale',
        shape: { label: '1M', dims: [1] },
        dtype: 'fp32',
        speedup: {
          estimate: speedup * drift,
          lo: speedup * drift * 0.98,
          hi: speedup * drift * 1.02,
          confidence: 0.95,
        },
        unfusedMedianMs: fusedMs * speedup,
        fusedMedianMs: fusedMs * drift,
        sampleCount: 40,
        ...(withSamples
          ? { samples: { unfused: base.map((x) => x * fusedMs * speedup), fused: base.map((x) => x * fusedMs) } }
          : {}),
        tolerance: 0.03,
        gating: true,
        provenance: { kind: 'reported', source: 'test', approximate: false },
      } as BaselineEntry;
      const baselines: LoadedBaselines = {
        file: 'b.json',
        data: {
          schemaVersion: 1,
          device: { name: device.name, slug: device.slug },
          entries: { [c.key]: entry },
        } as never,
        warnings: [],
      };
      c.gate = gateCase(c, baselines, device, { updateCommand: 'x' });
      expect(caseContradictions(c, device)).toEqual([]);
      // A random 30 of the pairs (as a fixture keeps them): the medians of all still lie in the kept ones' bands.
      if (n > 30 && c.timing) {
        const keep = new Set(
          Array.from({ length: n }, (_, i) => i)
            .sort((i, j) => Math.sin(seed * i) - Math.sin(seed * j))
            .slice(0, 30),
        );
        const pick = (xs: number[]) => xs.filter((_, i) => keep.has(i));
        c.timing.samples = { unfused: pick(c.timing.samples.unfused), fused: pick(c.timing.samples.fused) };
        expect(caseContradictions(c, device, true)).toEqual([]);
        // Without the file saying its samples were cut, fewer samples than pairs is itself the contradiction.
        expect(caseContradictions(c, device).map((x) => x.path.join('.'))).toEqual([
          'timing.unfused.n',
          'timing.fused.n',
        ]);
      }
    },
  );
});
