// δ for entries with few runs (src/gate/tolerance.ts): derived from the between-run spread of comparable
// entries in the same baseline file, pooled with the entry's own runs, on the H100 file as it was at
// 2547f23 (suites/fixtures/h100-baseline-2547f23.json: 21 of 53 entries from one run, the state issue 24
// describes) and on small files built here; the verdict names where δ came from, and --update-baselines stores the same δ.
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { loadCases } from '../../cases/registry.ts';
import { type DeviceDescription, deviceSlug } from '../../src/addon/device.ts';
import { type BaselineEntry, loadBaselineFile } from '../../src/gate/baseline-file.ts';
import { gateCase } from '../../src/gate/gate.ts';
import {
  type BaselineRun,
  BETWEEN_RUN_SIGMAS,
  DEFAULT_DELTA,
  DELTA_FLOOR,
  deltaFactor,
  entryDeltas,
  FUSED_TIME_FLOOR,
  fusedTimeFloorOf,
  LAUNCH_JITTER_MS,
  runNoise,
  studentTQuantile,
} from '../../src/gate/tolerance.ts';
import { updateBaselines } from '../../src/gate/update.ts';
import type { CaseResult, ResultsFile } from '../../src/results/results.ts';
import { measuredCase } from '../support/measured-case.ts';

const CASES = await loadCases();
const h100Name = 'NVIDIA H100 80GB HBM3';
const h100 = loadBaselineFile(
  join(import.meta.dirname, '..', 'fixtures', 'h100-baseline-2547f23.json'),
  CASES.map((c) => c.name),
);
const entries = h100.data.entries;
const at = (key: string) => entries[key] as BaselineEntry;

/** An entry of `runs` speedups (fused times follow at 1/speedup ms), gated on `method`. */
function entry(
  caseName: string,
  label: string,
  dtype: 'fp32' | 'bf16',
  speedups: number[],
  method: 'per-call' | 'batched' = 'batched',
  machine = 'GPU',
) {
  const runs: BaselineRun[] = speedups.map((s, i) => ({
    date: '2026-11-25T00:00:00Z',
    commit: 'x',
    speedup: s,
    fusedMedianMs: 1 / s,
    halfWidth: 0.003,
    deviceUuid: `${machine}-${i}`,
  }));
  return {
    case: caseName,
    shape: { label, dims: [1] },
    dtype,
    speedup: { estimate: speedups[speedups.length - 1] as number },
    fusedMedianMs: 1 / (speedups[speedups.length - 1] as number),
    sampleCount: 100,
    tolerance: DEFAULT_DELTA,
    method,
    runs,
    noise: runNoise(runs),
    gating: true,
    provenance: { kind: 'measured', date: '2026-11-25T00:00:00Z', commit: 'x' },
  } satisfies BaselineEntry;
}

describe("Student's t and δ's factor", () => {
  test.each([
    [0.975, 1, 12.706],
    [0.975, 2, 4.303],
    [0.975, 10, 2.228],
    [0.995, 5, 4.032],
    [0.995, 30, 2.75],
  ])('the %d quantile at %i degrees of freedom is %d (tables)', (p, nu, t) => {
    expect(studentTQuantile(p, nu)).toBeCloseTo(t, 2);
  });

  test('the factor shrinks with the degrees of freedom toward √2 · z(0.995)', () => {
    expect(deltaFactor(2)).toBeGreaterThan(deltaFactor(5));
    expect(deltaFactor(5)).toBeGreaterThan(deltaFactor(30));
    expect(deltaFactor(1000)).toBeCloseTo(Math.SQRT2 * 2.5758, 1);
  });
});

describe('δ of the H100 entries at 2547f23', () => {
  test('gelu_scale 1K bf16, recorded once, gates with the spread of the batched entries measured twice, not 5%', () => {
    const d = entryDeltas(at('gelu_scale/1K/bf16'), entries);
    expect(d.source).toBe('comparable');
    expect(d.basis?.comparable).toEqual(['gelu_scale/1K/fp32', 'gelu_scale/1M/fp32']);
    // The pooled variance of the two entries (one degree of freedom each), times the factor at 2: a bound on
    // the log shift, taken as the fraction whose SLOWER edge log(1 − δ) it is.
    const pooled = (m: 'speedup' | 'fusedTime') =>
      Math.sqrt(
        ['gelu_scale/1K/fp32', 'gelu_scale/1M/fp32']
          .map((k) => (at(k).noise?.betweenRuns?.[m] as number) ** 2)
          .reduce((a, b) => a + b) / 2,
      );
    expect(d.speedup).toBeCloseTo(1 - Math.exp(-deltaFactor(2) * pooled('speedup')), 6);
    expect(d.fusedTime).toBeCloseTo(1 - Math.exp(-deltaFactor(2) * pooled('fusedTime')), 6);
    expect(Math.log(1 - d.speedup)).toBeCloseTo(-deltaFactor(2) * pooled('speedup'), 9);
    // It moved 5.6–7.3% in speedup between H100 machines: the band must hold that.
    expect(d.speedup).toBeGreaterThan(0.073);
  });

  test('a per-call entry recorded once gets the per-call entries’ spread: the floors, as the large shapes move under 1%', () => {
    const d = entryDeltas(at('bias_gelu/16384x3072/bf16'), entries);
    expect(d.source).toBe('comparable');
    expect(d.basis?.method).toBe('per-call');
    expect(d.basis?.comparable[0]).toBe('bias_gelu/16384x3072/fp32'); // the same shape comes first
    expect(d).toMatchObject({ speedup: DELTA_FLOOR, fusedTime: FUSED_TIME_FLOOR });
  });
});

describe('pooling an entry’s own runs with comparable entries', () => {
  const noisy = [
    entry('a', '1K', 'fp32', [1.9, 1.83]),
    entry('b', '1K', 'fp32', [1.8, 1.86]),
    entry('c', '1K', 'fp32', [2.0, 1.95]),
  ];
  const file = (...es: BaselineEntry[]) =>
    Object.fromEntries(es.map((e) => [`${e.case}/${e.shape.label}/${e.dtype}`, e]));

  test('two runs that happen to agree do not shrink δ to the floor where comparable entries move by percents', () => {
    const lucky = entry('d', '1K', 'fp32', [1.9, 1.9005]);
    expect(entryDeltas(lucky, file(lucky)).speedup).toBe(DELTA_FLOOR); // alone: the rule before
    const d = entryDeltas(lucky, file(lucky, ...noisy));
    expect(d.source).toBe('comparable');
    // Three comparable entries, one degree of freedom each, but all recorded on the same two machines: 2.
    expect(d.basis).toMatchObject({ priorDf: 2, machines: 2 });
    expect(d.speedup).toBeGreaterThan(0.05);
  });

  test('a noisy entry is never narrower than its own runs say (3s), however quiet the pool', () => {
    // Each quiet entry on machines of its own, so that the pool keeps its 8 degrees of freedom.
    const quiet = [1, 2, 3, 4, 5, 6, 7, 8].map((i) => entry(`q${i}`, '1K', 'fp32', [1.9, 1.901], 'batched', `Q${i}`));
    const loud = entry('d', '1K', 'fp32', [1.7, 1.9, 2.1]);
    const d = entryDeltas(loud, file(loud, ...quiet));
    const own = BETWEEN_RUN_SIGMAS * (loud.noise.betweenRuns?.speedup as number);
    expect(d.speedup).toBeCloseTo(1 - Math.exp(-own), 9);
  });

  test('the same shape in other precisions is the prior alone once it holds 3 degrees of freedom', () => {
    const sibling = entry('a', '1K', 'fp32', [1.9, 1.91, 1.9, 1.905]);
    const one = entry('a', '1K', 'bf16', [1.9]);
    const d = entryDeltas(one, file(one, sibling, ...noisy.slice(1)));
    expect(d.basis).toMatchObject({ scope: 'shape', comparable: ['a/1K/fp32'], priorDf: 3 });
  });

  test('only entries of the same timing method are comparable; with none, one measured run gates at the default', () => {
    const perCall = [1, 2, 3].map((i) => entry(`p${i}`, '16M', 'fp32', [2, 2.001], 'per-call'));
    const one = entry('d', '1K', 'bf16', [1.9]);
    expect(entryDeltas(one, file(one, ...perCall))).toEqual({
      speedup: DEFAULT_DELTA,
      fusedTime: DEFAULT_DELTA,
      source: 'default',
    });
  });

  test('a measured entry’s stored δ is not read: edited to ±90% without "hand", it still gates at the default', () => {
    const edited = { ...entry('d', '1K', 'bf16', [1.9]), tolerance: 0.9, fusedTimeTolerance: 0.9 };
    for (const source of [undefined, 'default', 'noise', 'comparable'] as const) {
      const e = source ? { ...edited, toleranceSource: source } : edited;
      expect(entryDeltas(e, file(e))).toEqual({ speedup: DEFAULT_DELTA, fusedTime: DEFAULT_DELTA, source: 'default' });
    }
    // A reported entry (a claim with no run behind it) keeps the δ it states.
    const reported = {
      ...edited,
      runs: undefined,
      noise: undefined,
      provenance: { kind: 'reported' as const, source: 'the tutorial', approximate: true },
    };
    expect(entryDeltas(reported, file(reported)).speedup).toBe(0.9);
  });

  test('runs repeated on one machine add no degree of freedom: a second run on the same GPU does not narrow δ', () => {
    const onOne = (e: ReturnType<typeof entry>, ids = e.runs.map(() => 'GPU-A')) => {
      const runs = e.runs.map((r, i) => ({ ...r, deviceUuid: ids[i] as string }));
      return { ...e, runs, noise: runNoise(runs) };
    };
    const twice = onOne(entry('a', '1K', 'fp32', [2, 2.002]));
    const other = onOne(entry('b', '1K', 'fp32', [3, 3.003]));
    // Alone, and beside an entry recorded the same way: the default, as one run gets.
    expect(entryDeltas(twice, file(twice))).toEqual({
      speedup: DEFAULT_DELTA,
      fusedTime: DEFAULT_DELTA,
      source: 'default',
    });
    expect(entryDeltas(twice, file(twice, other))).toMatchObject({ speedup: DEFAULT_DELTA, fusedTime: DEFAULT_DELTA });
    // Runs on one machine that disagree still widen it: their own 3s is a floor.
    const apart = onOne(entry('a', '1K', 'fp32', [2, 2.4]));
    const own = BETWEEN_RUN_SIGMAS * (apart.noise.betweenRuns?.speedup as number);
    expect(entryDeltas(apart, file(apart)).speedup).toBeCloseTo(1 - Math.exp(-own), 9);
    expect(entryDeltas(apart, file(apart, ...noisy)).speedup).toBeGreaterThanOrEqual(1 - Math.exp(-own) - 1e-12);
    // Three runs on two machines gate as they did when every run was a machine of its own, less one degree of
    // freedom: never narrower than the spread of all three runs says (3s).
    const mixed = onOne(entry('a', '1K', 'fp32', [2, 2.2, 2.1]), ['GPU-A', 'GPU-A', 'GPU-B']);
    const all = BETWEEN_RUN_SIGMAS * (mixed.noise.betweenRuns?.speedup as number);
    expect(entryDeltas(mixed, file(mixed)).speedup).toBeCloseTo(1 - Math.exp(-all), 9);
  });

  test('one run of a launch-bound kernel gates its fused time at no less than its floor', () => {
    const short = { ...entry('d', '1K', 'bf16', [1.9]), fusedMedianMs: 0.002 };
    const d = entryDeltas(short, file(short));
    expect(d.fusedTime).toBeCloseTo(fusedTimeFloorOf(0.002), 12); // 11.1%: what two agreeing runs get, not 5%
    expect(d.fusedTime).toBeGreaterThan(DEFAULT_DELTA);
    expect(d.speedup).toBe(DEFAULT_DELTA);
  });

  test('an edited noise does not widen the gate: an entry that keeps its runs is judged by them', () => {
    const quiet = entry('d', '1K', 'fp32', [1.9, 1.9005]);
    const edited = { ...quiet, noise: { ...quiet.noise, betweenRuns: { speedup: 0.3, fusedTime: 0.3 } } };
    expect(entryDeltas(edited, file(edited))).toEqual(entryDeltas(quiet, file(quiet)));
    expect(entryDeltas(edited, file(edited, ...noisy))).toEqual(entryDeltas(quiet, file(quiet, ...noisy)));
  });

  test('a δ set by hand is kept', () => {
    const hand = { ...entry('d', '1K', 'fp32', [1.9]), tolerance: 0.08, toleranceSource: 'hand' as const };
    expect(entryDeltas(hand, file(hand, ...noisy))).toEqual({ speedup: 0.08, fusedTime: 0.08, source: 'hand' });
  });
});

describe('the verdict says where δ came from, and the update stores the same δ', () => {
  const device: DeviceDescription = {
    backend: 'cuda',
    name: h100Name,
    slug: deviceSlug(h100Name),
    details: {},
    fingerprint: {},
    copyBandwidthGBs: 3000,
    freeMemoryBytes: 80e9,
  };
  const base = at('gelu_scale/1K/bf16');
  /** gelu_scale 1K bf16 gated on batched samples at the baseline's medians times `slow` for the fused kernel. */
  function run(slow: number): CaseResult {
    const s = base.samples as { unfused: number[]; fused: number[] };
    const r = measuredCase(
      '1K',
      s.unfused,
      s.fused.map((t) => t * slow),
    );
    return {
      ...r,
      key: 'gelu_scale/1K/bf16',
      dtype: 'bf16',
      gatedOn: 'batched',
      batched: {
        callsPerSample: 64,
        unfused: (r.timing as NonNullable<CaseResult['timing']>).unfused,
        fused: (r.timing as NonNullable<CaseResult['timing']>).fused,
        speedup: r.speedup as NonNullable<CaseResult['speedup']>,
        samples: { unfused: s.unfused, fused: s.fused.map((t) => t * slow) },
      },
    };
  }
  const settings = { updateCommand: 'npm run perf -- --backend cuda --update-baselines' };

  test('a 7% slower speedup at 1K, as between two H100 machines, is not SLOWER; the message names the comparable entries', () => {
    const g = gateCase(run(1.07), h100, device, settings);
    expect(g.status).not.toBe('SLOWER');
    expect(g.message).toContain(
      'δ from the spread of 2 comparable batched entries (gelu_scale/1K/fp32, gelu_scale/1M/fp32) on 3 machines, one run recorded',
    );
    expect(g.speedup?.delta).toBeCloseTo(entryDeltas(base, entries).speedup, 9);
  });

  test('--delta still overrides it', () => {
    const g = gateCase(run(1.07), h100, device, { ...settings, delta: 0.05 });
    expect(g.status).toBe('SLOWER');
    expect(g.message).toContain('δ from --delta');
  });

  test('--update-baselines stores the δ the gate derives, and lists entries whose δ the new run moved', () => {
    const results: ResultsFile = {
      schemaVersion: 1,
      tool: { name: 'fusebench', version: '0.1.0' },
      createdAt: '2026-11-25T00:00:00.000Z',
      command: 'npm run perf',
      backendReason: 'test',
      settings: { budgetMs: 3000, minPairs: 30, targetHalfWidth: 0.01, seed: 1 },
      device: { ...device, fingerprint: { uuid: 'GPU-new' } },
      cases: [run(1.07)],
    };
    const update = updateBaselines(h100.data, results, 'abc', 'add-run');
    const stored = update.file.entries;
    for (const [key, e] of Object.entries(stored)) {
      const d = entryDeltas(e, stored);
      expect(e.tolerance, key).toBe(d.speedup);
      expect(e.fusedTimeTolerance, key).toBe(d.fusedTime);
    }
    // gelu_scale 1K bf16 now has two runs, and pools them with the other batched entries.
    expect(stored['gelu_scale/1K/bf16']).toMatchObject({ toleranceSource: 'comparable', noise: { runs: 2 } });
    expect(update.changes[0]).toMatch(/^gelu_scale\/1K\/bf16: 2\.\d+x.* → .*2 runs, δ ±\d+\.\d%.*\(comparable\)/);
    // Its new runs change the prior of the other batched entries: their new δ is listed.
    expect(
      update.changes.some((c) =>
        /^gelu_scale\/1M\/bf16: δ ±5\.0% \(default\) → ±\d+\.\d%.*comparable entries$/.test(c),
      ),
    ).toBe(true);
  });
});

test('the fused time’s floor in absolute time: the δ at which a time 0.25 µs longer is SLOWER, for the shortest kernels only', () => {
  expect(LAUNCH_JITTER_MS).toBe(0.00025);
  expect(fusedTimeFloorOf(0.002)).toBeCloseTo(0.25 / 2.25, 12); // gelu_scale 1K's 2 µs: 11.1%
  expect(fusedTimeFloorOf(0.003)).toBeCloseTo(0.25 / 3.25, 12); // 1M: 7.7%
  expect(fusedTimeFloorOf(0.0098)).toBe(FUSED_TIME_FLOOR); // from 9.75 µs on, the relative floor is more
  expect(fusedTimeFloorOf(0.25)).toBe(FUSED_TIME_FLOOR);
  expect(fusedTimeFloorOf(undefined)).toBe(FUSED_TIME_FLOOR); // a file without the time
  // A time longer by exactly the jitter sits on SLOWER's edge: log(1 − δ) = −log(t + j) + log(t).
  const t = 0.002;
  expect(Math.log(1 - fusedTimeFloorOf(t))).toBeCloseTo(Math.log(t / (t + LAUNCH_JITTER_MS)), 12);
});
