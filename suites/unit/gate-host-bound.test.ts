// The gate on a shape whose unfused twin is bound by the host (gpt2_decode: 149 launches a call). Its
// speedup moves with the machine: an unchanged commit on a fresh H200 measured the bf16 speedup 2.55x
// against a two-run baseline of 3.56x / 3.26x while the fused step moved 0.3%. The case says so, and
// the gate judges the fused time alone; a slower fused kernel is still SLOWER.
import { describe, expect, test } from 'vitest';
import { loadCases } from '../../cases/registry.ts';
import type { DeviceDescription } from '../../src/addon/device.ts';
import { compareResults } from '../../src/compare/compare-runs.ts';
import { loadBaselineFile } from '../../src/gate/baseline-file.ts';
import { gateCase } from '../../src/gate/gate.ts';
import { entryDeltas } from '../../src/gate/tolerance.ts';
import { type CaseResult, readResults } from '../../src/results/results.ts';
import { resultSkeleton } from '../../src/run/run-case.ts';

const CASES = await loadCases();
const decode = CASES.find((c) => c.name === 'gpt2_decode' && c.dtype === 'bf16');
const declared = decode?.shapes('cuda').find((s) => s.label === '12x768@511')?.ungatedSpeedup;
const baselines = loadBaselineFile(
  'suites/fixtures/h200-gpt2-decode-baseline.json',
  CASES.map((c) => c.name),
);
const run = readResults('suites/fixtures/h200-gpt2-decode-run.json');
const settings = { updateCommand: 'npm run perf -- --backend cuda --update-baselines' };

/** The run's cases, marked as the current case declaration marks them (null: unmarked), the fused samples times `slow`. */
function cases(slow = 1, reason: string | null | undefined = declared): CaseResult[] {
  return run.cases.map((c) => {
    const t = c.timing as NonNullable<CaseResult['timing']>;
    const fused = t.samples.fused.map((x) => x * slow);
    return { ...c, timing: { ...t, samples: { ...t.samples, fused } }, ...(reason ? { ungatedSpeedup: reason } : {}) };
  });
}
const verdicts = (cs: CaseResult[], device: DeviceDescription = run.device) =>
  Object.fromEntries(cs.map((c) => [c.key, gateCase(c, baselines, device, settings)]));

describe('the gate on a host-bound unfused twin', () => {
  test('gpt2_decode declares its speedup ungated, with the reason, and its results carry it', () => {
    expect(declared).toMatch(/host/);
    const shape = decode?.shapes('cuda').find((s) => s.label === '12x768@511');
    if (!decode || !shape) throw new Error('gpt2_decode bf16 at 12x768@511 is not declared');
    expect(resultSkeleton(decode, shape).ungatedSpeedup).toBe(declared);
    // Once: the result's shape is the results schema's (label, description, dims), not the descriptor's.
    expect(Object.keys(resultSkeleton(decode, shape).shape).sort()).toEqual(['description', 'dims', 'label']);
    const other = CASES.find((c) => c.name === 'gelu_scale')?.shapes('cuda')[0];
    if (!other) throw new Error('gelu_scale has no CUDA shape');
    expect(
      resultSkeleton(CASES.find((c) => c.name === 'gelu_scale') as NonNullable<typeof decode>, other),
    ).not.toHaveProperty('ungatedSpeedup');
  });

  test('judged on the speedup, the unchanged H200 run is SLOWER in bf16', () => {
    const v = verdicts(cases(1, null));
    expect(v['gpt2_decode/12x768@511/bf16']?.status).toBe('SLOWER');
    expect(v['gpt2_decode/12x768@511/bf16']?.fusedTime?.verdict).toBe('SAME');
  });

  test('judged on the fused time, it is SAME in every precision, and the message says why', () => {
    for (const [key, g] of Object.entries(verdicts(cases()))) {
      expect(g.status, key).toBe('SAME');
      expect(g.message, key).toContain(`The speedup is reported, not gated: ${declared}.`);
    }
    expect(verdicts(cases())['gpt2_decode/12x768@511/bf16']?.speedup?.verdict).toBe('SLOWER');
  });

  test('a fused step 6% slower is SLOWER', () => {
    for (const [key, g] of Object.entries(verdicts(cases(1.06)))) expect(g.status, key).toBe('SLOWER');
  });

  test('against another device model (no fused-time decision) the speedup still decides', () => {
    const other = { ...run.device, name: 'NVIDIA H100 80GB HBM3', slug: 'nvidia-h100-80gb-hbm3' };
    const g = verdicts(cases(), other)['gpt2_decode/12x768@511/bf16'];
    expect(g?.fusedTime).toBeUndefined();
    expect(g?.status).toBe('SLOWER');
    expect(g?.message).not.toContain('not gated');
  });
});

describe('compare and δ agree with the gate', () => {
  /** The run with the eager twin 25% faster (the speedup down, the fused step unchanged), marked or not. */
  const faster = (reason: string | null | undefined) => ({
    ...run,
    cases: cases(1, reason).map((c) => {
      const t = c.timing as NonNullable<CaseResult['timing']>;
      return { ...c, timing: { ...t, samples: { ...t.samples, unfused: t.samples.unfused.map((x) => x * 0.75) } } };
    }),
  });
  const base = { ...run, cases: cases(1, null) };

  test('compare judges the fused time alone for a marked shape, and says so', () => {
    for (const c of compareResults(base, faster(declared)).compared) {
      expect(c.speedup.verdict, c.key).toBe('SLOWER');
      expect(c.verdict, c.key).toBe('SAME');
      expect(c.methodNote, c.key).toContain('The speedup is reported, not gated');
    }
    for (const c of compareResults(base, faster(null)).compared) expect(c.verdict, c.key).toBe('SLOWER');
  });

  test("a marked entry's speedup spread stays out of the other entries' speedup δ; its fused-time spread does not", () => {
    const entries = baselines.data.entries;
    const marked = Object.fromEntries(
      Object.entries(entries).map(([k, e]) => [
        k,
        k.startsWith('gpt2_decode/') ? { ...e, ungatedSpeedup: 'host-bound' } : e,
      ]),
    );
    const without = Object.fromEntries(Object.entries(entries).filter(([k]) => !k.startsWith('gpt2_decode/')));
    const key = 'gemm/16384x768x3072/fp32';
    const e = entries[key];
    if (!e) throw new Error(`${key} is not in the fixture`);
    const before = entryDeltas(e, entries);
    const after = entryDeltas(e, marked);
    expect(after.speedup).toBeCloseTo(entryDeltas(e, without).speedup, 12);
    expect(after.speedup).toBeLessThan(before.speedup);
    expect(after.fusedTime).toBeCloseTo(before.fusedTime, 12);
  });
});
