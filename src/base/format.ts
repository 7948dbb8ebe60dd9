/** Number formatting shared by the gate's messages, the console table, the Markdown report and the PR comment. */

/** Milliseconds with four significant digits: "0.1752 ms", "12.34 ms". */
export function ms(v: number): string {
  return `${v < 1000 ? v.toPrecision(4) : v.toFixed(0)} ms`;
}

/** A speedup: "1.91x". */
export function times(v: number): string {
  // A value that is no speedup (a file's negative or zero one, a mean over none) prints as what it is.
  if (!Number.isFinite(v)) return 'n/a';
  if (v <= 0) return `${v.toFixed(2)}x (not a speedup)`;
  return `${v.toFixed(2)}x`;
}

/** A speedup with its interval: "1.91x [1.90, 1.92]", "(batched)" after it when of batched timing. */
export function speedup(iv: { estimate: number; lo: number; hi: number }, batched = false): string {
  return `${times(iv.estimate)} [${iv.lo.toFixed(2)}, ${iv.hi.toFixed(2)}]${batched ? ' (batched)' : ''}`;
}

/** A fraction as a percentage: "96%". */
export function pct(v: number, digits = 0): string {
  return `${(100 * v).toFixed(digits)}%`;
}

/** Bytes in MB (10^6), the unit bandwidth is quoted in. */
export function mb(bytes: number): string {
  return bytes >= 1e6 ? `${(bytes / 1e6).toFixed(1)} MB` : `${(bytes / 1e3).toFixed(1)} KB`;
}

/** An error magnitude: "6.70e-4". */
export function sci(v: number): string {
  return Number.isFinite(v) ? v.toExponential(2) : String(v);
}

/** GB/s with no decimals above 100. */
export function gbs(v: number): string {
  return `${v >= 100 ? v.toFixed(0) : v.toFixed(1)} GB/s`;
}

/** A rate given in TFLOP/s: "43.6 TFLOP/s", or GFLOP/s below one TFLOP/s (the CPU backend). */
export function flopRate(tflops: number): string {
  return tflops >= 1 ? `${tflops.toFixed(1)} TFLOP/s` : `${(1000 * tflops).toFixed(1)} GFLOP/s`;
}

/** "612.3 TFLOP/s (84% of matrix peak)", or the rate alone where no peak was measured. */
export function flopRateOfPeak(c: { tflops?: { fused: number }; fusedPctOfMatrixPeak?: number }): string {
  const rate = flopRate(c.tflops?.fused ?? 0);
  return c.fusedPctOfMatrixPeak === undefined ? rate : `${rate} (${c.fusedPctOfMatrixPeak.toFixed(0)}% of matrix peak)`;
}

/** Throughput of a measured case: TFLOP/s for compute-bound cases, else GB/s and % of copy bandwidth. */
export function throughput(c: {
  fusedGBs?: number;
  fusedPctOfCopy?: number;
  tflops?: { unfused: number; fused: number };
  fusedPctOfMatrixPeak?: number;
}) {
  if (c.tflops) return `${flopRateOfPeak(c)}; unfused ${flopRate(c.tflops.unfused)}`;
  return `${gbs(c.fusedGBs ?? 0)} (${(c.fusedPctOfCopy ?? 0).toFixed(0)}% of copy)`;
}

/** A relative change from a ratio: 1.123 → "+12.3%", 0.796 → "−20.4%" (a true minus sign). */
export function signedPct(ratio: number): string {
  const v = 100 * (ratio - 1);
  const s = Math.abs(v).toFixed(1);
  return s === '0.0' ? '±0.0%' : `${v > 0 ? '+' : '−'}${s}%`;
}

/**
 * The change a gate decision measured, of the metric itself, with its interval: for the speedup
 * exp(D) − 1, for the fused time current/baseline − 1 (D is log(baseline/current) there, so it is
 * negated and the interval reordered): "−20.4% [−21.4%, −19.5%]".
 */
type Decided = { metric: 'speedup' | 'fusedTime'; diff: { estimate: number; lo: number; hi: number } };

/** The ratio current/baseline of the metric itself for a log-difference D of the decision (see decisionChange). */
function metricRatio(d: Decided, diff: number): number {
  return Math.exp((d.metric === 'speedup' ? 1 : -1) * diff);
}

export function decisionChange(d: Decided): string {
  const [a, b] = [metricRatio(d, d.diff.lo), metricRatio(d, d.diff.hi)].sort((x, y) => x - y);
  return `${signedPct(metricRatio(d, d.diff.estimate))} [${signedPct(a ?? 1)}, ${signedPct(b ?? 1)}]`;
}

/**
 * The change of a gate decision in the one convention every report uses, labelled: the speedup's change
 * and the fused time's, each as the metric itself moved (a slower fused kernel reads "speedup −20.4%,
 * fused time +25.6%"), with 99% intervals unless `intervals` is false.
 */
export function labelledChange(d: { speedup?: Decided; fusedTime?: Decided }, intervals = true): string {
  const one = (x: Decided) => (intervals ? decisionChange(x) : signedPct(metricRatio(x, x.diff.estimate)));
  return [d.speedup && `speedup ${one(d.speedup)}`, d.fusedTime && `fused time ${one(d.fusedTime)}`]
    .filter(Boolean)
    .join(', ');
}

/** An injected regression as reports show it: "asked 3%, measured 3.1%" or "4 extra read passes". */
export function injectionLabel(
  inj: { kind: 'passes'; passes: number } | { kind: 'percent'; askedPct: number; measuredPct: number },
): string {
  if (inj.kind === 'passes') return `${inj.passes} extra read pass${inj.passes === 1 ? '' : 'es'}`;
  return `asked ${Number(inj.askedPct.toFixed(2))}%, measured ${inj.measuredPct.toFixed(1)}%`;
}
