/**
 * The graph twin's arm as the console and BENCHMARK_RESULTS.md name it: "graph (PDL)" where the graph's
 * launches of our kernels went with programmatic dependent launch, "graph" otherwise (and in files written
 * before that was recorded); and what the recorded graph holds, by the CUDA runtime's own count. Pure; the
 * reason a graph went without PDL is a string from the file, so the callers escape it themselves.
 */
import type { CaseResult } from '../results/results.ts';

type MeasuredTwin = Extract<NonNullable<CaseResult['graphTwin']>, { status: 'measured' }>;

/** "graph (PDL)" or "graph". */
export function graphArm(g: MeasuredTwin): string {
  return g.pdl ? 'graph (PDL)' : 'graph';
}

/** "99 programmatic edges, 149 kernel nodes" where the file has the counts (either), else undefined. */
export function graphCounts(g: MeasuredTwin): string | undefined {
  const parts = [
    g.programmaticEdges !== undefined ? `${g.programmaticEdges} programmatic edges` : undefined,
    g.kernelNodes !== undefined ? `${g.kernelNodes} kernel nodes` : undefined,
  ].filter((p) => p !== undefined);
  return parts.length > 0 ? parts.join(', ') : undefined;
}
