/**
 * The shapes a run's gate is nearly blind to: those it judged with a δ above WIDE_DELTA (src/gate/gate.ts), where
 * a slower fused kernel within δ passes as SAME. The console and the Markdown reports both list them. Pure.
 */
import { judgedDelta, WIDE_DELTA } from '../gate/gate.ts';
import type { CaseResult, ResultsFile } from '../results/results.ts';
import { shapeName } from './escape.ts';

/** The shapes judged with a δ above WIDE_DELTA, widest first, each with its δ ("gelu_scale 1K fp32 ±14.4%"). */
export function wideDeltaShapes(results: ResultsFile): string[] {
  return results.cases
    .map((c) => ({ c, d: judgedDelta(c) }))
    .filter((x): x is { c: CaseResult; d: number } => x.d !== undefined && x.d > WIDE_DELTA)
    .sort((a, b) => b.d - a.d)
    .map(({ c, d }) => `${shapeName(c)} ±${(100 * d).toFixed(1)}%`);
}

/** What `count` such shapes mean, in one sentence without its list. */
export function wideDeltaSentence(count: number): string {
  const shapes = `${count} shape${count === 1 ? '' : 's'}`;
  return `${shapes} judged with δ above ±${100 * WIDE_DELTA}%, so a slower fused kernel within it passes as SAME (δ comes from the shifts between the machines their baselines were recorded on; runs on more machines, --add-baseline-run, narrow it)`;
}
