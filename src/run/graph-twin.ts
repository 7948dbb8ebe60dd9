/**
 * The graph twin of a shape: the unfused twin's launches recorded once into a CUDA graph and replayed,
 * timed in interleaved pairs against the fused variant, so a result separates what removing launch gaps
 * buys (unfused → graph) from what fusion buys (graph → fused). Where the GPU and the build have it, the
 * graph's launches of our kernels go with programmatic dependent launch; the result says whether they did,
 * with the graph's count of its programmatic edges. Reported beside the gated timing, never gated. Where no
 * graph can be recorded (the CPU backend, a launch that cannot be captured) the result says why instead.
 */
import type { GraphFacts } from '../addon/native.ts';
import { summarize } from '../base/stats.ts';
import type { CaseResult } from '../results/results.ts';
import { type MeasureSettings, measurePairs } from './measure.ts';

/** What the graph twin is timed with (a Workspace, or a fake in tests); milliseconds per call. */
export interface GraphTimed {
  time(variant: string): number;
  timeBatch(variant: string, calls: number): number;
  timeGraph(variant: string, calls: number): number;
  graphFacts(variant: string, calls: number): GraphFacts;
}

/** The series name of the graph twin inside the pair measurement. */
const GRAPH = 'unfused, from a CUDA graph';

/**
 * Checks what one replay of the recorded graph wrote (`replay` runs it on poisoned outputs): the failure,
 * or undefined when the outputs match the reference. A launch order that PDL broke shows here, not only
 * in the timing.
 */
export type GraphCheck = (replay: () => void) => string | undefined;

/**
 * Times the graph twin against the fused variant with `calls` calls per sample (1: one call, caches
 * flushed; more: the batched timing of launch-bound shapes, against the fused variant's batch). With
 * `check`, the graph's outputs are checked once before any timing; a graph that fails is not timed.
 */
export function measureGraphTwin(
  ws: GraphTimed,
  variants: { unfused: string; fused: string },
  calls: number,
  settings: MeasureSettings,
  previous?: CaseResult['graphTwin'],
  check?: GraphCheck,
): NonNullable<CaseResult['graphTwin']> {
  if (previous?.status === 'unavailable') return previous; // a second look never times what the first refused
  let facts: GraphFacts;
  try {
    ws.timeGraph(variants.unfused, calls); // records the graph, or says why it cannot
    facts = ws.graphFacts(variants.unfused, calls);
  } catch (e) {
    return { status: 'unavailable', reason: (e as Error).message };
  }
  const failure = previous === undefined ? check?.(() => ws.timeGraph(variants.unfused, calls)) : undefined;
  if (failure) return { status: 'unavailable', reason: `its outputs fail the numerics check: ${failure}` };
  const fused = (v: string) => (calls > 1 ? ws.timeBatch(v, calls) : ws.time(v));
  const m = measurePairs(
    { time: (v) => (v === GRAPH ? ws.timeGraph(variants.unfused, calls) : fused(v)) },
    { unfused: GRAPH, fused: variants.fused },
    {
      ...settings,
      previous:
        previous?.status === 'measured'
          ? { unfused: previous.samples.graph, fused: previous.samples.fused }
          : undefined,
    },
  );
  return {
    status: 'measured',
    callsPerSample: calls,
    graph: summarize(m.unfused),
    fused: summarize(m.fused),
    speedup: m.speedup,
    samples: { graph: m.unfused, fused: m.fused },
    pdl: facts.pdl,
    ...(facts.noPdlReason !== undefined ? { noPdlReason: facts.noPdlReason } : {}),
    kernelNodes: facts.kernelNodes,
    ...(facts.programmaticEdges !== undefined ? { programmaticEdges: facts.programmaticEdges } : {}),
  };
}
