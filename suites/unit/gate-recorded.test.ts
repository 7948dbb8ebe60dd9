// The gate on samples recorded on an NVIDIA H200: an unchanged run against the baseline recorded
// just before it is never SLOWER; a run with gelu_scale's fused kernel slowed by the injection
// switch is SLOWER for gelu_scale, and only for it.
import { describe, expect, test } from 'vitest';
import { loadCases } from '../../cases/registry.ts';
import { loadBaselineFile } from '../../src/gate/baseline-file.ts';
import { gateCase } from '../../src/gate/gate.ts';
import { readResults } from '../../src/results/results.ts';

const CASES = await loadCases();

const baselines = loadBaselineFile(
  'suites/fixtures/h200-baseline.json',
  CASES.map((c) => c.name),
);
const settings = { updateCommand: 'npm run perf -- --backend cuda --update-baselines' };

function verdicts(file: string): Record<string, string> {
  const run = readResults(file);
  return Object.fromEntries(run.cases.map((c) => [c.key, gateCase(c, baselines, run.device, settings).status]));
}

describe('the gate on recorded H200 samples', () => {
  test('an unchanged run is never SLOWER, and SAME for every shape big enough to fill the GPU', () => {
    const v = verdicts('suites/fixtures/h200-gate-run.json');
    expect(Object.keys(v)).toHaveLength(7);
    expect(Object.values(v)).not.toContain('SLOWER');
    // The 1K and 1M runs took ~14,000 and ~2,700 pairs; cut to 500 for the fixture their intervals
    // widen, so they may come out AMBIGUOUS here (on the device, with every pair, both were SAME).
    for (const [key, status] of Object.entries(v)) if (!/\/(1K|1M)\//.test(key)) expect(status, key).toBe('SAME');
  });

  test('the injected run is SLOWER for gelu_scale at every shape and SAME for every other case', () => {
    const v = verdicts('suites/fixtures/h200-gate-inject.json');
    for (const [key, status] of Object.entries(v))
      expect(status, key).toBe(key.startsWith('gelu_scale/') ? 'SLOWER' : 'SAME');
  });
});
