/**
 * The Bencher Metric Format (BMF) export of a run, `perf-out/bencher.json`, for `bencher run --adapter json
 * --file perf-out/bencher.json`. Spec: https://bencher.dev/docs/reference/bencher-metric-format/ — an object
 * keyed by benchmark name, each an object keyed by measure slug, each a metric `{ value, lower_value?,
 * upper_value? }`. Benchmarks are `<case>/<shape>/<dtype>`; two measures per benchmark:
 *   speedup  median(unfused) / median(fused), with its 95% bootstrap interval as lower/upper (a measure
 *            Bencher creates on first use; bigger is better, so give its threshold a lower boundary);
 *   latency  Bencher's built-in measure, in nanoseconds: the fused kernel's median time of one call (no
 *            lower/upper: fusebench records no interval for the median time).
 * Both come from the timing the gate judged (batched when `gatedOn` says so). Measured cases only. Pure.
 */
import { asMeasured, judgedTiming } from '../results/judged-timing.ts';
import type { ResultsFile } from '../results/results.ts';

/** The file name of the export, beside fusebench-results.json. */
export const BENCHER_JSON = 'bencher.json';

/** One BMF metric. */
interface BmfMetric {
  value: number;
  lower_value?: number;
  upper_value?: number;
}

/** A BMF document: benchmark name → measure slug → metric. */
export type Bmf = Record<string, Record<string, BmfMetric>>;

const sig = (x: number) => Number(x.toPrecision(6));

/** The BMF document of a run. */
export function renderBencherJson(results: ResultsFile): Bmf {
  const out: Bmf = {};
  for (const c of results.cases) {
    const m = asMeasured(c);
    if (!m) continue;
    const t = judgedTiming(m);
    out[c.key] = {
      speedup: { value: sig(t.speedup.estimate), lower_value: sig(t.speedup.lo), upper_value: sig(t.speedup.hi) },
      latency: { value: sig(t.fused.median * 1e6) },
    };
  }
  return out;
}
