// The gate on a shape whose unfused twin is bound by the host (gpt2_decode: 149 launches a call). Its
// speedup moves with the machine: an unchanged commit on a fresh H200 measured the bf16 speedup 2.55x
// against a two-run baseline of 3.56x / 3.26x while the fused step moved 0.3%. The case says so, and
// the gate judges the fused time alone; a slower fused kernel is still SLOWER.
import { describe, expect, test } from 'vitest';
import { loadCases } from '../../cases/registry.ts';
import type { DeviceDescription } from '../../src/addon/device.ts';
import { loadBaselineFile } from '../../src/gate/baseline-file.ts';
import { gateCase } from '../../src/gate/gate.ts';
import { type CaseResult, readResults } from '../../src/results/results.ts';

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
  test('gpt2_decode declares its speedup ungated, with the reason', () => {
    expect(declared).toMatch(/host/);
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
