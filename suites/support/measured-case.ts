// A measured gelu_scale CaseResult built from given samples, and a results file of one such shape on a
// test CPU, for the gate, update-flow and baseline-lock tests.

import { speedupInterval, summarize } from '../../src/base/stats.ts';
import type { CaseResult, MeasuredCase, ResultsFile } from '../../src/results/results.ts';

/** A measured gelu_scale result at shape `label` whose timing, summaries and speedup come from the samples. */
export function measuredCase(label: string, unfused: number[], fused: number[]): CaseResult {
  return {
    key: `gelu_scale/${label}/fp32`,
    case: 'gelu_scale',
    title: 'GELU + scale',
    shape: { label, dims: [1], description: '' },
    dtype: 'fp32',
    sources: [],
    status: 'measured',
    traffic: { unfused: { bytes: 4, launches: 2 }, fused: { bytes: 2, launches: 1 }, theoreticalSpeedup: 2 },
    timing: {
      unfused: summarize(unfused),
      fused: summarize(fused),
      pairsTaken: unfused.length,
      droppedThrottled: 0,
      stopReason: 'converged',
      wallMs: 1,
      budgetMs: 1,
      samples: { unfused, fused },
    },
    speedup: speedupInterval(unfused, fused, { resamples: 200 }),
  };
}

/** A results file of one smooth 40-pair gelu_scale shape `label` (speedup about 2x) on a test CPU. */
export function oneShapeResults(label: string, command: string, createdAt = new Date().toISOString()): ResultsFile {
  return {
    schemaVersion: 1,
    tool: { name: 'fusebench', version: '0.1.0' },
    createdAt,
    command,
    backendReason: 'test',
    settings: { budgetMs: 1000, minPairs: 30, targetHalfWidth: 0.01, seed: 1 },
    device: {
      backend: 'cpu',
      name: 'Test CPU',
      slug: 'test-cpu',
      details: {},
      fingerprint: {},
      copyBandwidthGBs: 10,
      freeMemoryBytes: 1e9,
    },
    cases: [
      measuredCase(
        label,
        Array.from({ length: 40 }, (_, i) => 2 + 0.01 * Math.sin(i)),
        Array.from({ length: 40 }, (_, i) => 1 + 0.01 * Math.cos(i)),
      ),
    ],
  };
}

/**
 * A measured case whose samples a test has changed, with everything a run derives from them derived again
 * (summaries, speedup, rates) and its gate dropped, as a run that measured those samples would have written it
 * before judging them: a results file must agree with its own samples (src/results/results-consistency.ts).
 */
export function rederived(c: MeasuredCase, copyBandwidthGBs: number): MeasuredCase {
  const { unfused, fused } = c.timing.samples;
  const speedup = speedupInterval(unfused, fused, { resamples: 200 });
  const t = {
    ...c.timing,
    unfused: summarize(unfused),
    fused: summarize(fused),
    pairsTaken: unfused.length + c.timing.droppedThrottled,
  };
  const fusedGBs = c.traffic.fused.bytes / (t.fused.median / 1e3) / 1e9;
  const flops = c.flops;
  const { gate: _, ...rest } = c;
  return {
    ...rest,
    timing: t,
    speedup,
    efficiency: speedup.estimate / c.traffic.theoreticalSpeedup,
    fusedGBs,
    fusedPctOfCopy: (100 * fusedGBs) / copyBandwidthGBs,
    ...(flops && c.tflops
      ? { tflops: { unfused: flops / (t.unfused.median / 1e3) / 1e12, fused: flops / (t.fused.median / 1e3) / 1e12 } }
      : {}),
  };
}
