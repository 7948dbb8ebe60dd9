/**
 * Where a run's wall time went: each phase summed over its shapes (src/results/phases.ts), with the slowest
 * shape outside sampling, so a host that regenerates inputs or references shows at once. Pure.
 */

import { logText } from '../base/log-text.ts';
import { addPhases, PHASES, type Phases } from '../results/phases.ts';
import type { CaseResult, ResultsFile } from '../results/results.ts';
import { plain } from './escape.ts';

const seconds = (ms: number) => `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;

/** Milliseconds a shape spent outside its sampling phase. */
function outsideSampling(p: Phases): number {
  return PHASES.filter((x) => x !== 'sampling').reduce((s, x) => s + p[x], 0);
}

/** The shapes that recorded phases, with them. */
function timed(results: ResultsFile): (CaseResult & { phases: Phases })[] {
  return results.cases.filter((c): c is CaseResult & { phases: Phases } => c.phases !== undefined);
}

/**
 * "wall 62.4 s; shapes: inputs 1.20 s · runs 0.31 s · … · rest 0.80 s; outside sampling at most 0.41 s
 * (gelu_scale 16M fp32)", or undefined when no shape recorded phases (a results file from before them).
 * Names from the results are made plain and safe for a log (src/base/log-text.ts); the line is ours otherwise.
 */
export function phaseSplitLine(results: ResultsFile): string | undefined {
  const shapes = timed(results);
  if (shapes.length === 0) return undefined;
  const sum = addPhases(shapes.map((c) => c.phases));
  const split = PHASES.map((p) => `${p} ${seconds(sum[p])}`).join(' · ');
  const worst = shapes.reduce((a, b) => (outsideSampling(b.phases) > outsideSampling(a.phases) ? b : a));
  const wall = results.wallMs !== undefined ? `wall ${seconds(results.wallMs)}; ` : '';
  return (
    `${wall}${shapes.length} shape${shapes.length === 1 ? '' : 's'}: ${split}; outside sampling at most ${seconds(outsideSampling(worst.phases))} ` +
    `(${logText(`${plain(worst.case)} ${plain(worst.shape.label)} ${worst.dtype}`)})`
  );
}
