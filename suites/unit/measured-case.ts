// A measured gelu_scale CaseResult built from given samples, for the gate and update-flow tests.
import type { CaseResult } from '../../src/results.ts';
import { speedupInterval, summarize } from '../../src/stats.ts';

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
