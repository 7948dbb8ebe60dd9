import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { loadCases } from '../../cases/registry.ts';
import { median } from '../../src/base/stats.ts';
import { entryContradictions, MAX_BASELINE_PAIRS } from '../../src/gate/baseline-consistency.ts';
import {
  type BaselineEntry,
  baselinePath,
  loadBaselineFile,
  validateBaselineDir,
} from '../../src/gate/baseline-file.ts';

const CASES = await loadCases();

const known = CASES.map((c) => c.name);
const dir = mkdtempSync(join(tmpdir(), 'fusebench-baselines-'));

const entry = {
  case: 'gelu_scale',
  shape: { label: '16M', dims: [16777216] },
  dtype: 'fp32',
  unfusedMedianMs: 0.0765,
  fusedMedianMs: 0.0395,
  speedup: { estimate: 1.94, lo: 1.92, hi: 1.95, confidence: 0.95 },
  sampleCount: 30,
  tolerance: 0.05,
  gating: true,
  provenance: { kind: 'measured', date: '2026-11-21T22:27:45Z', commit: 'abc123' },
};
const file = (entries: Record<string, unknown>) => ({
  schemaVersion: 1,
  device: { name: 'NVIDIA H200', slug: 'nvidia-h200', backend: 'cuda' },
  entries,
});
function write(name: string, content: unknown): string {
  const p = join(dir, name);
  writeFileSync(p, typeof content === 'string' ? content : JSON.stringify(content));
  return p;
}

describe('baseline files', () => {
  test('the V100 file from the tutorial loads and validates, with no warning once every case it names exists', () => {
    const loaded = loadBaselineFile(baselinePath('baselines', 'tesla-v100-sxm2-32gb'), known);
    const e = loaded.data.entries['gelu_scale/16M/fp32'];
    expect(e).toMatchObject({
      unfusedMedianMs: 0.3351,
      fusedMedianMs: 0.1752,
      speedup: { estimate: 1.91 },
      gating: true,
    });
    expect(e?.provenance).toMatchObject({ kind: 'reported', approximate: false });
    expect(loaded.data.entries['ffn/16384x768x3072/fp32']).toMatchObject({
      gating: false,
      provenance: { approximate: true },
    });
    expect(loaded.warnings).toEqual([]);
  });

  test('every committed baseline file validates', () => {
    expect(() => validateBaselineDir('baselines')).not.toThrow();
  });

  test('invalid JSON names the file', () => {
    const p = write('broken.json', '{"schemaVersion": 1, "entries": {');
    expect(() => loadBaselineFile(p, known)).toThrow(new RegExp(`${p} is not valid JSON`));
  });

  test('a missing field names the file and the field path', () => {
    const { speedup: _, ...noSpeedup } = entry;
    const p = write('missing.json', file({ 'gelu_scale/16M/fp32': noSpeedup }));
    expect(() => loadBaselineFile(p, known)).toThrow(
      /missing\.json is not valid:\n {2}entries\.gelu_scale\/16M\/fp32\.speedup:/,
    );
  });

  test('a wrong type names the field', () => {
    const p = write('type.json', file({ 'gelu_scale/16M/fp32': { ...entry, fusedMedianMs: '0.04' } }));
    expect(() => loadBaselineFile(p, known)).toThrow(/entries\.gelu_scale\/16M\/fp32\.fusedMedianMs/);
  });

  test.each([0, 1, 1.5, -0.1])('a tolerance of %d is refused, naming the value', (tolerance) => {
    const p = write(`tol-${tolerance}.json`, file({ 'gelu_scale/16M/fp32': { ...entry, tolerance } }));
    expect(() => loadBaselineFile(p, known)).toThrow(new RegExp(`tolerance must be in \\(0, 1\\); got ${tolerance}`));
  });

  test('samples of unequal length are refused, naming the entry and the counts', () => {
    const samples = { unfused: [1, 2, 3, 4, 5, 6], fused: [1, 2, 3, 4, 5] };
    const p = write('samples.json', file({ 'gelu_scale/16M/fp32': { ...entry, samples } }));
    expect(() => loadBaselineFile(p, known)).toThrow(
      /entries\.gelu_scale\/16M\/fp32\.samples: .*got 6 unfused and 5 fused/,
    );
  });

  test.each([0, 0.4, 1, 95])(
    "an interval's confidence of %d is refused: it must be a fraction from 0.5 to below 1",
    (confidence) => {
      const p = write(
        `conf-${confidence}.json`,
        file({ 'gelu_scale/16M/fp32': { ...entry, speedup: { ...entry.speedup, confidence } } }),
      );
      expect(() => loadBaselineFile(p, known)).toThrow(/entries\.gelu_scale\/16M\/fp32\.speedup\.confidence/);
    },
  );

  test.each([
    [MAX_BASELINE_PAIRS + 1, 'more than an update keeps'],
    [4, 'fewer than any file ever kept'],
  ])('%i samples (%s) are refused, naming the entry and the counts', (n) => {
    const samples = { unfused: Array(n).fill(1), fused: Array(n).fill(1) };
    const p = write('many.json', file({ 'gelu_scale/16M/fp32': { ...entry, samples } }));
    expect(() => loadBaselineFile(p, known)).toThrow(
      new RegExp(`entries\\.gelu_scale/16M/fp32\\.samples: .*5 to 200 pairs.*got ${n} unfused and ${n} fused`),
    );
  });

  test('a noise that no runs could give is refused, naming the field: a negative spread, a count beside other runs', () => {
    const run = {
      date: '2026-11-21T22:27:45Z',
      commit: 'abc123',
      speedup: 1.94,
      fusedMedianMs: 0.0395,
      halfWidth: 0.01,
    };
    const noise = { withinRun: 0.01, betweenRuns: { speedup: 0.02, fusedTime: 0.03 }, runs: 2 };
    const cases: [string, unknown, RegExp][] = [
      ['neg-between', { ...noise, betweenRuns: { speedup: -5, fusedTime: 0.03 } }, /noise\.betweenRuns\.speedup/],
      ['neg-within', { ...noise, withinRun: -1 }, /noise\.withinRun/],
      ['neg-runs', { ...noise, runs: -3 }, /noise\.runs/],
      ['count', { ...noise, runs: 3 }, /noise\.runs: 3 runs, but the entry lists 2 in runs/],
    ];
    for (const [name, n, field] of cases) {
      const p = write(`${name}.json`, file({ 'gelu_scale/16M/fp32': { ...entry, runs: [run, run], noise: n } }));
      expect(() => loadBaselineFile(p, known), name).toThrow(field);
    }
    const ok = write('noise-ok.json', file({ 'gelu_scale/16M/fp32': { ...entry, runs: [run, run], noise } }));
    expect(() => loadBaselineFile(ok, known)).not.toThrow();
  });

  // Numbers no run records: perf gated against them (SLOWER, "+5.0e+299%") and wrote a results file that
  // compare, merge and history then refused.
  test.each([
    ['speedup.estimate', { speedup: { estimate: 1e300 } }],
    ['speedup.lo', { speedup: { ...entry.speedup, lo: 1e-9 } }],
    ['fusedMedianMs', { fusedMedianMs: 1e-300 }],
    ['unfusedMedianMs', { unfusedMedianMs: 1e9 }],
    ['samples.fused[0]', { samples: { unfused: [1, 1, 1, 1, 1], fused: [5e-324, 1, 1, 1, 1] } }],
    [
      'runs[0].speedup',
      { runs: [{ date: '2026-11-21T22:27:45Z', commit: 'c', speedup: 1e7, fusedMedianMs: 0.04, halfWidth: 0 }] },
    ],
  ])('%s out of the range a results file holds is refused, naming the field', (field, change) => {
    const p = write(`range-${field}.json`, file({ 'gelu_scale/16M/fp32': { ...entry, ...change } }));
    expect(() => loadBaselineFile(p, known)).toThrow(`entries.gelu_scale/16M/fp32.${field}: expected a`);
  });

  test('an entry for an unknown case is a warning, not a crash', () => {
    const p = write('unknown.json', file({ 'warp_drive/16M/fp32': { ...entry, case: 'warp_drive' } }));
    expect(loadBaselineFile(p, known).warnings).toEqual([
      `${p}: entry 'warp_drive/16M/fp32' is for unknown case 'warp_drive'; ignored`,
    ]);
  });

  test('a newer schema version is refused with the field named', () => {
    const p = write('v2.json', { ...file({}), schemaVersion: 2 });
    expect(() => loadBaselineFile(p, known)).toThrow(/schemaVersion/);
  });
});

describe('an entry whose numbers contradict each other', () => {
  const samples = (u: number, f: number, n = 30) => ({
    unfused: Array.from({ length: n }, (_, i) => Number((u * (1 + 0.002 * Math.sin(i))).toPrecision(5))),
    fused: Array.from({ length: n }, (_, i) => Number((f * (1 + 0.002 * Math.cos(i))).toPrecision(5))),
  });
  const consistent = { ...entry, samples: samples(0.0765, 0.0395) };
  const load = (name: string, e: unknown) => () =>
    loadBaselineFile(write(name, file({ 'gelu_scale/16M/fp32': e })), known);

  test('a consistent entry with samples loads', () => {
    expect(load('consistent.json', consistent)).not.toThrow();
  });

  test.each([
    [
      'an estimate outside its own interval',
      { speedup: { ...entry.speedup, estimate: 1.99 } },
      "speedup.estimate: 1.99 lies outside the entry's own interval [1.92, 1.95]",
    ],
    [
      'an estimate the medians disagree with',
      { unfusedMedianMs: 0.08 },
      'speedup.estimate: 1.94 disagrees with unfusedMedianMs / fusedMedianMs = 2.0253 (tolerance 0.50%)',
    ],
    [
      'a fused median its samples disagree with',
      { fusedMedianMs: 0.05, unfusedMedianMs: 0.097 },
      "fusedMedianMs: 0.05 ms disagrees with the median of the entry's 30 kept samples, 0.039495 ms (tolerance 1.0%)",
    ],
    [
      'an estimate and interval its samples contradict',
      { samples: samples(0.0765, 0.0495) },
      "speedup.estimate: 1.94 is contradicted by the entry's samples: their median(unfused) / median(fused) is 1.5459, outside [1.8905, 1.9805]",
    ],
  ])('%s is refused when the file is loaded, naming the field', (_, edit, message) => {
    expect(load('contradiction.json', { ...consistent, ...edit })).toThrow(`entries.gelu_scale/16M/fp32.${message}`);
  });

  test('thinned samples whose median ratio drifts more than 1% from the estimate are accepted (the recorded 1K entry)', () => {
    const recorded = loadBaselineFile('suites/fixtures/h200-baseline.json', known).data.entries['gelu_scale/1K/fp32'];
    expect(recorded?.samples?.unfused).toHaveLength(200);
    expect(recorded?.sampleCount).toBe(9276);
    const kept = recorded?.samples as { unfused: number[]; fused: number[] };
    const ratio = median(kept.unfused) / median(kept.fused);
    expect(Math.abs(ratio / (recorded?.speedup.estimate ?? 1) - 1)).toBeGreaterThan(0.01);
    expect(entryContradictions(recorded as BaselineEntry)).toEqual([]);
  });

  test.each([
    'baselines/nvidia-h100-80gb-hbm3.json',
    'baselines/nvidia-h200.json',
    'baselines/tesla-v100-sxm2-32gb.json',
    'suites/fixtures/h200-baseline.json',
  ])('every entry of %s passes the rule', (path) => {
    const data = loadBaselineFile(path, known).data;
    for (const e of Object.values(data.entries)) expect(entryContradictions(e)).toEqual([]);
  });
});

describe('messages', () => {
  test.each([
    [
      2,
      'written by a newer fusebench (schema 2; this one reads 1): update fusebench (git pull, then npm ci) to read it',
    ],
    [
      0,
      'written by an older fusebench (schema 0; this one reads 1): re-record it: move the file aside, then run `npm run perf -- --update-baselines` on this device',
    ],
    ['1', 'expected the schema version 1 that this fusebench reads; got "1"'],
  ])(
    'a baseline file of schemaVersion %j says which fusebench wrote it and what to do, and nothing else',
    (v, says) => {
      // The entries changed shape too: only the version is reported.
      const p = write(`version-${v}.json`, { ...file({ x: { renamed: true } }), schemaVersion: v });
      expect(() => loadBaselineFile(p, known)).toThrow(`${p} is not valid:\n  schemaVersion: ${says}`);
      expect(() => loadBaselineFile(p, known)).not.toThrow(/entries/);
    },
  );

  test('a huge file with many entries for unknown cases gives one warning with the count and the first keys', () => {
    const many = Object.fromEntries(
      Array.from({ length: 1000 }, (_, i) => [
        `warp_drive/${i}/fp32`,
        { ...entry, case: 'warp_drive', shape: { label: String(i), dims: [1] } },
      ]),
    );
    const p = write('many-unknown.json', file({ ...many, 'gelu_scale/16M/fp32': entry }));
    expect(loadBaselineFile(p, known).warnings).toEqual([
      `${p}: 1000 entries are for the unknown case 'warp_drive' (warp_drive/0/fp32, warp_drive/1/fp32, warp_drive/2/fp32, ` +
        'warp_drive/3/fp32, warp_drive/4/fp32, and 995 more); ignored (a newer fusebench may know them)',
    ]);
  });

  test('misnamed entries are refused, one message for many: the gate would judge a shape by another’s numbers', () => {
    const p = write(
      'misnamed.json',
      file({ a: entry, b: entry, c: entry, d: entry, e: entry, f: entry, 'gelu_scale/16M/fp32': entry }),
    );
    expect(() => loadBaselineFile(p, known)).toThrow(
      `${p}: 6 entries are not keyed <case>/<shape>/<precision> of what they hold ('a' → 'gelu_scale/16M/fp32', 'b' → 'gelu_scale/16M/fp32', ` +
        "'c' → 'gelu_scale/16M/fp32', 'd' → 'gelu_scale/16M/fp32', 'e' → 'gelu_scale/16M/fp32', and 1 more); the gate would judge the shape a key names against another shape's numbers: rename them",
    );
    // Two entries swapped: each under the other's key.
    const swapped = write(
      'swapped.json',
      file({ 'gelu_scale/1K/fp32': entry, 'gelu_scale/16M/fp32': { ...entry, shape: { label: '1K', dims: [1024] } } }),
    );
    expect(() => loadBaselineFile(swapped, known)).toThrow(
      /entries are not keyed .*'gelu_scale\/1K\/fp32' → 'gelu_scale\/16M\/fp32', 'gelu_scale\/16M\/fp32' → 'gelu_scale\/1K\/fp32'/,
    );
  });
});
