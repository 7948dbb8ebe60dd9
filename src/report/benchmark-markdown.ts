/**
 * BENCHMARK_RESULTS.md: hardware configuration and fingerprint, one table per case and shape in the
 * style of the V100 report, a speedup chart, summary statistics, and the command that reproduces it;
 * for several GPUs, one document with a section per GPU. Pure functions of the results.
 */

import { DTYPES, type Dtype } from '../base/dtype.ts';
import { flopRateOfPeak, gbs, ms, pct, speedup, times } from '../base/format.ts';
import type { CaseResult, MeasuredCase, ResultsFile } from '../results/results.ts';
import { caseVerdict, verdictLabel } from '../results/verdict.ts';
import { renderCaseSection } from './case-section.ts';
import {
  codeBlock,
  codeSpan,
  type Inline,
  join,
  type Markdown,
  markdownTable,
  md,
  name,
  note,
  ours,
  text,
  trusted,
} from './escape.ts';
import { phaseSplitLine } from './phase-split.ts';
import { renderSpeedupCharts } from './speedup-chart.ts';

type Measured = MeasuredCase;

const measured = (r: ResultsFile) =>
  r.cases.filter((c): c is Measured => c.status === 'measured' && !!c.timing && !!c.speedup);
/** A heading: our `#`s, then the title (a string from a file is escaped). */
const h = (level: number, title: Inline) => md`${trusted('#'.repeat(level))} ${title}`.markdown;

function hardware(results: ResultsFile): string {
  const d = results.device;
  const f = d.fingerprint;
  const fingerprint = [
    f.driver && md`driver ${f.driver}`,
    f.cudaRuntime && md`CUDA runtime ${f.cudaRuntime}`,
    f.cudaDriverApi && md`driver API ${f.cudaDriverApi}`,
    f.computeCapability && md`compute capability ${f.computeCapability}`,
    f.maxSmClockMHz && f.maxMemClockMHz && md`max clocks ${f.maxSmClockMHz} / ${f.maxMemClockMHz} MHz`,
    f.uuid && md`UUID ${f.uuid}`,
  ].filter((x): x is Markdown => !!x);
  return [
    ...Object.entries(d.details).map(([k, v]) => md`- **${k}:** ${note(v)}`.markdown),
    `- **Measured copy bandwidth:** ${gbs(d.copyBandwidthGBs)} (device-to-device, bytes read + written)`,
    md`- **Fingerprint** (what baselines are checked against): ${fingerprint.length > 0 ? join(fingerprint, ' · ') : 'none (CPU backend)'}`
      .markdown,
  ].join('\n');
}

function method(results: ResultsFile): string {
  const s = results.settings;
  const d = results.device;
  return (
    `Each case checks its unfused twin and its fused kernel on one set of seeded random inputs (seed ${s.seed}; timing then runs on them) ` +
    'against a float64 reference, with every output poisoned with NaN first (at GPU sizes the reference covers a spread sample of rows, ' +
    'and every element is checked for NaN). Timing: device time of one call per sample ' +
    `(${d.backend === 'cuda' ? 'CUDA events' : 'a steady clock'}), the last-level cache flushed before every sample, ` +
    `warm-up excluded, unfused and fused samples interleaved in pairs. At least ${s.minPairs} pairs, then more until the ` +
    `speedup's 95% interval half-width is at most ${pct(s.targetHalfWidth)} or the ${(s.budgetMs / 1000).toFixed(1)} s budget per shape is spent. ` +
    'Speedup = median(unfused) / median(fused), with a seeded paired-bootstrap 95% interval. ' +
    'Verdicts compare with the stored baseline of this device (`baselines/<device>.json`), noise-aware: SAME inside ±δ, ' +
    'AMBIGUOUS when the interval straddles the band after one remeasurement.'
  );
}

function summary(results: ResultsFile): string {
  const ms_ = measured(results);
  const rows = ms_.map((c) => [
    c.title,
    c.shape.label,
    ...ours([
      c.dtype,
      speedup(c.speedup),
      ms(c.timing.unfused.median - c.timing.fused.median),
      `${pct(c.efficiency ?? 0)} of ${times(c.traffic.theoreticalSpeedup)}`,
      c.tflops ? flopRateOfPeak(c) : `${(c.fusedPctOfCopy ?? 0).toFixed(0)}% of copy`,
      c.gate?.speedup
        ? `${verdictLabel(caseVerdict(c))} vs ${times(c.gate.speedup.baseline)}`
        : verdictLabel(caseVerdict(c)),
    ]),
  ]);
  const table = markdownTable(
    ours([
      'Case',
      'Shape',
      'Precision',
      'Speedup [95% CI]',
      'Absolute time saved',
      'Efficiency vs theoretical',
      'Fused throughput',
      'Verdict vs baseline',
    ]),
    rows,
  );
  if (ms_.length === 0) return `${table}\n\nNo shape was measured.`;
  // Over positive speedups only: a results file may hold a negative or zero one, whose log is no number.
  const positive = ms_.filter((c) => c.speedup.estimate > 0);
  const geo = Math.exp(positive.reduce((a, c) => a + Math.log(c.speedup.estimate), 0) / positive.length);
  const saved = ms_.reduce((a, c) => a + c.timing.unfused.median - c.timing.fused.median, 0);
  const eff = ms_.reduce((a, c) => a + (c.efficiency ?? 0), 0) / ms_.length;
  return (
    `${table}\n\nOver ${ms_.length} measured shape${ms_.length === 1 ? '' : 's'}: geometric-mean speedup **${times(geo)}**, ` +
    `${ms(saved)} saved over one call of each shape, mean efficiency ${pct(eff)} of the theoretical speedup.`
  );
}

/** "Wall time: …" of the run and its split over the phases, when the results recorded them. */
function timeLine(results: ResultsFile): string[] {
  const split = phaseSplitLine(results);
  return split ? [md`Run time: ${text(split, 1000)}.`.markdown] : [];
}

/** The run's cases grouped by precision, in DTYPES order (each group in run order). */
function byPrecision(results: ResultsFile): [Dtype, CaseResult[]][] {
  return DTYPES.map((t) => [t, results.cases.filter((c) => c.dtype === t)] as [Dtype, CaseResult[]]).filter(
    ([, cases]) => cases.length > 0,
  );
}

/** One GPU's body, its top headings at `level`; `history` is its rendered history section (history-markdown.ts). */
function gpuBody(results: ResultsFile, level: number, history?: string): string {
  const notRun = results.cases.filter((c) => c.status !== 'measured');
  const charts = renderSpeedupCharts(results);
  return [
    md`Produced by ${codeSpan(results.command)} on ${results.createdAt.slice(0, 10)} with fusebench ${results.tool.version}.`
      .markdown,
    md`Backend: **${results.device.backend}** (${note(results.backendReason)}).`.markdown,
    ...timeLine(results),
    '',
    h(level, 'Hardware configuration'),
    '',
    hardware(results),
    '',
    h(level, 'Method'),
    '',
    method(results),
    '',
    h(level, 'Results'),
    '',
    ...byPrecision(results).flatMap(([dtype, cases]) => [
      h(level + 1, trusted(dtype)),
      '',
      ...cases.map((c) => renderCaseSection(c, level + 2, { minPairs: results.settings.minPairs })),
    ]),
    ...(charts ? [h(level, 'Speedup by shape'), '', charts] : []),
    ...(history ? [h(level, 'History'), '', history] : []),
    h(level, 'Summary'),
    '',
    summary(results),
    '',
    notRun.length > 0
      ? `${md`Not measured: ${join(
          notRun.map((c) => md`${name(c.key)} (${c.status}: ${note(c.reason ?? '')})`),
          '; ',
        )}`}.\n`
      : '',
    h(level, 'Reproduce'),
    '',
    // The command comes from the results file: its fence is longer than any backtick run in it.
    codeBlock(`npm ci\n${results.command}`, 'bash').markdown,
    '',
  ].join('\n');
}

/** Renders BENCHMARK_RESULTS.md of one GPU, with its history section when given. */
export function renderBenchmarkMarkdown(results: ResultsFile, history?: string): string {
  return ['# fusebench results', '', gpuBody(results, 2, history)].join('\n');
}

function acrossGpus(runs: ResultsFile[]): string {
  const keys = [...new Set(runs.flatMap((r) => r.cases.map((c) => c.key)))];
  const rows = keys.map((key) => {
    const any = runs.flatMap((r) => r.cases).find((c) => c.key === key) as CaseResult;
    const cells = runs.map((r) => {
      const c = r.cases.find((x) => x.key === key);
      if (!c) return '—';
      return c.status === 'measured' && c.speedup ? times(c.speedup.estimate) : c.status;
    });
    return [any.title, any.shape.label, trusted(any.dtype), ...cells];
  });
  return markdownTable(['Case', 'Shape', 'Precision', ...runs.map((r) => md`${name(r.device.name)} speedup`)], rows);
}

/**
 * Renders one BENCHMARK_RESULTS.md for several GPUs' results: an overview, then a section per GPU, each
 * with its history section when `history` (device slug → rendered section) has one.
 */
export function renderMultiGpuMarkdown(runs: ResultsFile[], history: ReadonlyMap<string, string> = new Map()): string {
  const [only] = runs;
  if (runs.length === 1 && only) return renderBenchmarkMarkdown(only, history.get(only.device.slug));
  return [
    '# fusebench results',
    '',
    md`Results of ${runs.length} GPUs: ${join(
      runs.map((r) => name(r.device.name)),
      ', ',
    )}. Each GPU is gated against its own baseline.`.markdown,
    '',
    '## Across GPUs',
    '',
    acrossGpus(runs),
    '',
    ...runs.flatMap((r) => [h(2, name(r.device.name)), '', gpuBody(r, 3, history.get(r.device.slug))]),
  ].join('\n');
}
