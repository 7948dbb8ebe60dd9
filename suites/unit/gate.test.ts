import { describe, expect, test } from 'vitest';
import { loadCases } from '../../cases/registry.ts';
import { type DeviceDescription, deviceSlug } from '../../src/addon/device.ts';
import { normal, uniform } from '../../src/base/rng.ts';
import { type BaselineEntry, baselinePath, loadBaselineFile } from '../../src/gate/baseline-file.ts';
import { decide } from '../../src/gate/decision.ts';
import { fingerprintNotes, gateCase } from '../../src/gate/gate.ts';
import { updateBaselines } from '../../src/gate/update.ts';
import type { CaseResult, ResultsFile } from '../../src/results/results.ts';
import { classify, MIN_DECISION_PAIRS, worst } from '../../src/results/verdict-rule.ts';
import { batchCalls } from '../../src/run/run-case.ts';
import { measuredCase } from '../support/measured-case.ts';

const CASES = await loadCases();

const settings = { updateCommand: 'npm run perf -- --backend cuda --update-baselines' };

function device(name: string): DeviceDescription {
  return {
    backend: 'cuda',
    name,
    slug: deviceSlug(name),
    details: {},
    fingerprint: { driver: '580.159.04', cudaRuntime: '13.0', maxSmClockMHz: 1980 },
    copyBandwidthGBs: 800,
    freeMemoryBytes: 32e9,
  };
}

/** A measured gelu_scale result whose 60 pairs scatter ±2% around the given medians. */
function result(label: string, unfusedMs: number, fusedMs: number, seed: number): CaseResult {
  const z = normal(uniform(seed));
  const u = Array.from({ length: 60 }, () => unfusedMs * Math.exp(0.02 * z()));
  const f = Array.from({ length: 60 }, () => fusedMs * Math.exp(0.02 * z()));
  return measuredCase(label, u, f);
}

describe('the decision rule', () => {
  const d = 0.05;
  test.each([
    [-0.2, -0.1, 'SLOWER'],
    [0.08, 0.2, 'FASTER'],
    [-0.03, 0.04, 'SAME'],
    [-0.1, 0.01, 'AMBIGUOUS'],
    [-0.01, 0.1, 'AMBIGUOUS'],
    // Symmetric in log: FASTER needs D above −log(0.95) = 0.0513, not log(1.05) = 0.0488.
    [0.05, 0.1, 'AMBIGUOUS'],
    [0.052, 0.1, 'FASTER'],
    [-0.1, Math.log(0.95) - 1e-9, 'SLOWER'],
  ])('an interval [%d, %d] of D gives %s', (lo, hi, verdict) => {
    expect(classify(lo, hi, d)).toBe(verdict);
  });

  test("a baseline without samples spreads by its interval's own confidence, whatever it is", () => {
    const u = Array.from({ length: 60 }, (_, i) => 0.08 * (1 + 0.001 * (i % 7)));
    const f = Array.from({ length: 60 }, (_, i) => 0.04 * (1 + 0.001 * (i % 5)));
    const entry = (confidence: number) =>
      ({
        case: 'gelu_scale',
        shape: { label: '1M', dims: [1] },
        dtype: 'fp32',
        speedup: { estimate: 2, lo: 1.9, hi: 2.1, confidence },
        sampleCount: 0,
        tolerance: 0.05,
        gating: true,
        provenance: { kind: 'reported', source: 'test', approximate: false },
      }) as BaselineEntry;
    const width = (c: number) => {
      const [d] = decide({ unfused: u, fused: f }, entry(c), { delta: 0.05 });
      return (d?.diff.hi ?? 0) - (d?.diff.lo ?? 0);
    };
    // The same [1.9, 2.1] at 80% implies a wider spread than at 95% (it was taken as 95% before).
    expect(width(0.8) / width(0.95)).toBeGreaterThan(1.3);
    expect(width(0.99) / width(0.95)).toBeLessThan(0.85);
  });

  test('the worst verdict wins', () => {
    expect(worst(['SAME', 'FASTER', 'SLOWER'])).toBe('SLOWER');
    expect(worst(['SAME', 'AMBIGUOUS', 'FASTER'])).toBe('AMBIGUOUS');
    expect(worst(['SAME', 'FASTER'])).toBe('FASTER');
  });
});

describe('gating on a V100, named explicitly', () => {
  const v100 = device('Tesla V100-SXM2-32GB');
  const baselines = loadBaselineFile(
    baselinePath('baselines', v100.slug),
    CASES.map((c) => c.name),
  );

  test('the device name maps to the V100 baseline file', () => {
    expect(v100.slug).toBe('tesla-v100-sxm2-32gb');
    expect(baselines.data.device.name).toBe('Tesla V100-SXM2-32GB');
  });

  test('samples matching the tutorial at 16M are SAME on both metrics', () => {
    const g = gateCase(result('16M', 0.3351, 0.1752, 1), baselines, v100, settings);
    expect(g).toMatchObject({ status: 'SAME', gating: true, baselineSource: 'reported' });
    expect(g.speedup?.verdict).toBe('SAME');
    expect(g.fusedTime?.verdict).toBe('SAME');
  });

  test('a fused kernel 15% slower than the tutorial at 1M is SLOWER, with the numbers in the message', () => {
    const g = gateCase(result('1M', 0.0217, 0.0136 * 1.15, 2), baselines, v100, settings);
    expect(g.status).toBe('SLOWER');
    expect(g.message).toMatch(
      /gelu_scale\/1M\/fp32 SLOWER: speedup 1\.\d\dx vs baseline 1\.59x: −1\d\.\d% \[−\d+\.\d%, −\d+\.\d%\] \(99% CI\)/,
    );
    // The fused time rose by about 15%: the message says so, with the sign of the time itself.
    expect(g.message).toMatch(/fused time 0\.01\d+ ms vs baseline 0\.01360 ms: \+1\d\.\d% \[\+/);
  });

  test('fewer than MIN_DECISION_PAIRS pairs are AMBIGUOUS, however far they lie, and the message says why', () => {
    const slow = result('1M', 0.0217, 0.0136 * 1.15, 2);
    const few = (n: number) => {
      const t = slow.status === 'measured' ? slow.timing : undefined;
      if (!t) throw new Error('measured');
      return measuredCase('1M', t.samples.unfused.slice(0, n), t.samples.fused.slice(0, n));
    };
    const g = gateCase(few(MIN_DECISION_PAIRS - 1), baselines, v100, settings);
    expect(g.status).toBe('AMBIGUOUS');
    expect(g.speedup?.verdict).toBe('AMBIGUOUS');
    expect(g.message).toMatch(/Only 9 pairs: at least 10 are needed to decide\.$/);
    expect(gateCase(few(MIN_DECISION_PAIRS), baselines, v100, settings).status).toBe('SLOWER');
    // A baseline entry that keeps fewer (an older file's): loaded, and named as the reason.
    const entry = baselines.data.entries['gelu_scale/1M/fp32'];
    if (!entry) throw new Error('fixture: no gelu_scale 1M entry');
    const shortBaseline = structuredClone(baselines);
    shortBaseline.data.entries['gelu_scale/1M/fp32'] = {
      ...entry,
      samples: { unfused: Array(8).fill(0.0217), fused: Array(8).fill(0.0136) },
    };
    const short = gateCase(slow, shortBaseline, v100, settings);
    expect(short.status).toBe('AMBIGUOUS');
    expect(short.message).toMatch(
      /Its baseline keeps only 8 pairs: at least 10 are needed to decide \(record it again\)\.$/,
    );
  });

  test('the approximate GPT-2-shape figure does not gate', () => {
    const g = gateCase(result('32x512x768', 0.12, 0.07 * 1.5, 3), baselines, v100, settings);
    expect(g).toMatchObject({ status: 'SLOWER', gating: false });
    expect(g.message).toMatch(/ \(not gating\): /);
  });

  test('another GPU model is compared on speedup only, never on absolute time', () => {
    const g = gateCase(result('16M', 0.3351, 0.1752, 4), baselines, device('NVIDIA H200'), settings);
    expect(g.fusedTime).toBeUndefined();
    expect(g.speedup?.verdict).toBe('SAME');
  });
});

describe('no baseline and fingerprints', () => {
  test('without a baseline the gate reports only and prints the command that records one', () => {
    const g = gateCase(result('16M', 0.08, 0.04, 5), null, device('NVIDIA H200'), settings);
    expect(g.status).toBe('NO_BASELINE');
    expect(g.gating).toBe(false);
    expect(g.message).toContain('npm run perf -- --backend cuda --update-baselines');
  });

  test('a different driver and clock are noted', () => {
    const entry = {
      case: 'gelu_scale',
      shape: { label: '16M', dims: [1] },
      dtype: 'fp32' as const,
      speedup: { estimate: 2 },
      sampleCount: 0,
      tolerance: 0.05,
      gating: true,
      provenance: {
        kind: 'measured' as const,
        date: '2026-11-21T22:27:45Z',
        commit: '',
        driver: '570.1',
        maxSmClockMHz: 1755,
      },
    };
    expect(fingerprintNotes(device('NVIDIA H200'), entry)).toEqual([
      'driver: baseline 570.1, now 580.159.04',
      'max SM clock (MHz): baseline 1755, now 1980',
    ]);
  });
});

/** An empty results file of `d` (cases added by the caller). */
function resultsOf(d: DeviceDescription): ResultsFile {
  return {
    schemaVersion: 1,
    tool: { name: 'fusebench', version: '0.1.0' },
    createdAt: '2026-11-23T00:00:00.000Z',
    command: 'npm run perf',
    backendReason: 'test',
    settings: { budgetMs: 3000, minPairs: 30, targetHalfWidth: 0.01, seed: 1 },
    device: d,
    cases: [],
  };
}

describe('batched timing', () => {
  const h200 = device('NVIDIA H200');
  const perCall = result('1K', 0.0065, 0.0038, 11);
  /** The same case gated on batched samples: 64 calls per sample, faster per call than one call alone. */
  function batchedResult(unfusedMs: number, fusedMs: number, seed: number): CaseResult {
    const b = result('1K', unfusedMs, fusedMs, seed);
    const timing = b.timing as NonNullable<CaseResult['timing']>;
    return {
      ...perCall,
      gatedOn: 'batched',
      batched: {
        callsPerSample: 64,
        unfused: timing.unfused,
        fused: timing.fused,
        speedup: b.speedup as NonNullable<CaseResult['speedup']>,
        samples: timing.samples,
      },
    };
  }
  const entryFrom = (r: CaseResult, method: 'per-call' | 'batched') => {
    const file = updateBaselines(null, { ...resultsOf(h200), cases: [r] }, 'abc').file;
    const entry = file.entries['gelu_scale/1K/fp32'] as NonNullable<(typeof file.entries)[string]>;
    expect(entry.method).toBe(method);
    return { file: 'nvidia-h200.json', data: file, warnings: [] };
  };

  test('a shape gated on batched timing is judged on its batched samples against a batched baseline', () => {
    const baselines = entryFrom(batchedResult(0.0036, 0.0024, 12), 'batched');
    expect(gateCase(batchedResult(0.0036, 0.0024, 13), baselines, h200, settings).status).toBe('SAME');
    expect(gateCase(batchedResult(0.0036, 0.003, 14), baselines, h200, settings).status).toBe('SLOWER');
  });

  test('a per-call baseline does not judge batched timing (launch gaps differ): no baseline, and why', () => {
    const g = gateCase(batchedResult(0.0036, 0.0024, 15), entryFrom(perCall, 'per-call'), h200, settings);
    expect(g.status).toBe('NO_BASELINE');
    expect(g.gating).toBe(false);
    expect(g.message).toMatch(/was measured per-call, this shape is gated on batched timing; re-record it/);
  });

  test('calls per batch: a power of two that lasts 0.2 ms, from 8 to 256', () => {
    expect(batchCalls(0.0038)).toBe(64);
    expect(batchCalls(0.1)).toBe(8);
    expect(batchCalls(1e-5)).toBe(256);
  });
});
