/**
 * The github-action-benchmark export of a run, `perf-out/benchmark-action.json`, for its
 * `tool: customSmallerIsBetter` (https://github.com/benchmark-action/github-action-benchmark, "Examples"
 * of custom benchmarks): a JSON array of `{ name, unit, value, range?, extra? }`, where `value` is a
 * number, `range` and `extra` free text shown in the chart's tooltip. A smaller-is-better series can
 * only carry times, so each entry is the fused kernel's median time of one call in ms for
 * `<case>/<shape>/<dtype>`; `range` is ± half its p10–p90 spread, and `extra` names the speedup with its
 * interval, the unfused median, the timing method and the verdict. The timing the gate judged (batched
 * when `gatedOn` says so). Measured cases only. Pure.
 */
import { asMeasured, judgedTiming, methodLabel } from '../results/judged-timing.ts';
import type { ResultsFile } from '../results/results.ts';
import { caseVerdict } from '../results/verdict.ts';

/** The file name of the export, beside fusebench-results.json. */
export const BENCHMARK_ACTION_JSON = 'benchmark-action.json';

/** One entry of github-action-benchmark's custom format. */
export interface BenchmarkActionEntry {
  name: string;
  unit: string;
  value: number;
  range?: string;
  extra?: string;
}

const sig = (x: number) => Number(x.toPrecision(6));

/** The customSmallerIsBetter entries of a run. */
export function renderBenchmarkActionJson(results: ResultsFile): BenchmarkActionEntry[] {
  return results.cases.flatMap((c) => {
    const m = asMeasured(c);
    if (!m) return [];
    const t = judgedTiming(m);
    const spread = t.method === 'batched' ? m.batched?.fused : m.timing.fused;
    const s = t.speedup;
    return [
      {
        name: c.key,
        unit: 'ms',
        value: sig(t.fused.median),
        ...(spread ? { range: `± ${sig((spread.p90 - spread.p10) / 2)}` } : {}),
        extra: [
          `speedup ${s.estimate.toFixed(3)}x [${s.lo.toFixed(3)}, ${s.hi.toFixed(3)}] (95% CI)`,
          `unfused median ${sig(t.unfused.median)} ms`,
          `timing: ${methodLabel(t)}, ${t.pairs} pairs; range: half the fused p10–p90 spread`,
          `verdict vs baseline: ${caseVerdict(c)}`,
        ].join('\n'),
      },
    ];
  });
}
