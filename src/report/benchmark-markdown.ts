/**
 * BENCHMARK_RESULTS.md, summary first: the commit, date and GPUs; one table of every case, shape and
 * precision per GPU (speedup with its interval, the fused kernel's share of its roofline ceiling, verdict);
 * the graph twins' three arms (graph-twin-table.ts); the commands that regenerate the file from a clean
 * clone; the roofline of each GPU and precision (SVG files beside the Markdown: report-files.ts); the
 * history charts when given; then the details, collapsed: each GPU's hardware, fingerprint and method, and
 * each case's tables per shape (case-section.ts). One document for one GPU or several. Every string from a
 * results file is escaped (escape.ts). Pure.
 */

import { gbs, pct } from '../base/format.ts';
import type { CaseResult, ResultsFile } from '../results/results.ts';
import { caseVerdict, caseVerdictLabel, verdictGates, verdictRank } from '../results/verdict.ts';
import { renderCaseSection } from './case-section.ts';
import {
  codeBlock,
  codeSpan,
  collapsed,
  htmlText,
  join,
  type Markdown,
  md,
  name,
  note,
  text,
  trusted,
} from './escape.ts';
import { graphTwinSection } from './graph-twin-table.ts';
import { type LeftOut, leftOutLines } from './left-out.ts';
import { phaseSplitLine } from './phase-split.ts';
import { regenerateLines, runAsCommand } from './regenerate.ts';
import { rooflineCharts } from './report-files.ts';
import { summaryTable } from './summary-table.ts';

/** What the report shows beyond the runs themselves. */
export interface BenchmarkMarkdownOptions {
  /** Each GPU's history section (history-markdown.ts), by device slug. */
  history?: ReadonlyMap<string, string>;
  /** Results files left out because they could not be read, with why: named at the top. */
  leftOut?: LeftOut[];
}

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

/** The first lines: the commit(s), branch, date(s) and GPUs measured. */
function heading(runs: ResultsFile[]): string {
  const commits = [...new Set(runs.map((r) => r.source?.commit ?? ''))];
  const branches = [...new Set(runs.map((r) => r.source?.branch).filter((b): b is string => !!b))];
  const [commit] = commits;
  const onBranch = branches.length === 1 && branches[0] ? md` on ${name(branches[0])}` : trusted('');
  const commitPart =
    commits.length === 1
      ? commit
        ? md`**Commit** ${codeSpan(commit, 60)}${onBranch}`
        : md`**Commit** not recorded`
      : md`**Commits** ${join(
          runs.map(
            (r) => md`${name(r.device.name)} ${r.source?.commit ? codeSpan(r.source.commit, 60) : 'not recorded'}`,
          ),
          ', ',
        )}`;
  const dates = [...new Set(runs.map((r) => r.createdAt.slice(0, 10)))].sort();
  const datePart = md`**Measured** ${text(dates.length > 1 ? `${dates[0]} to ${dates.at(-1)}` : (dates[0] ?? ''), 40)}`;
  const gpus = md`**GPU${runs.length === 1 ? '' : 's'}** ${join(
    runs.map((r) => name(r.device.name)),
    ', ',
  )}`;
  const tools = [...new Set(runs.map((r) => r.tool.version))];
  return md`${commitPart} · ${datePart} · ${gpus} · fusebench ${join(tools, ', ')}`.markdown;
}

/** The regenerate section: the shell lines in a block no file's text can close. */
function regenerate(runs: ResultsFile[]): string {
  const [single] = runs;
  const where =
    runs.length > 1
      ? "In a clean clone of this repository, on each GPU of the same models (each run is gated against its GPU's own baseline):"
      : single?.device.backend === 'cpu'
        ? 'In a clean clone of this repository, on a machine with the same CPU (a run on another one is gated against its own baseline):'
        : 'In a clean clone of this repository, on a GPU of the same model (a run on another one is gated against its own baseline):';
  return [where, '', codeBlock(regenerateLines(runs).join('\n'), 'bash', 4000).markdown].join('\n');
}

/** The roofline images, one per GPU and precision, or nothing when nothing was measured. */
function roofline(runs: ResultsFile[]): string[] {
  const charts = rooflineCharts(runs);
  if (charts.length === 0) return [];
  return [
    '## Roofline',
    '',
    'Where each fused kernel (filled) and its unfused twin (hollow) sit against the GPU’s measured ceilings: ' +
      'arithmetic intensity is the case’s useful flops over the bytes its traffic model says the variant moves, ' +
      'throughput those flops over the median time of one call. Cases without a flop model are shown by achieved ' +
      'bandwidth under the copy ceiling instead.',
    '',
    ...charts.flatMap(({ panel, path }) => [
      // The path is ours (report-files.ts keeps it to safe characters); the alt text is escaped.
      `![${md`Roofline of ${name(panel.device.name)}, ${panel.dtype}`.markdown}](${encodeURI(path)})`,
      '',
    ]),
  ];
}

/** "4 shapes, 1 🔴 SLOWER, 3 ⚪ SAME", worst first; a verdict that does not gate apart ("1 🔴 SLOWER (not gating)"). */
function verdictCounts(cases: CaseResult[]): string {
  // Each label's count and rank: its verdict's, a verdict that does not gate just after the one that does.
  const n = new Map<string, { count: number; rank: number }>();
  for (const c of cases) {
    const label = caseVerdictLabel(c);
    const seen = n.get(label) ?? { count: 0, rank: verdictRank(caseVerdict(c)) + (verdictGates(c) ? 0 : 0.5) };
    n.set(label, { ...seen, count: seen.count + 1 });
  }
  const parts = [...n].sort(([, a], [, b]) => a.rank - b.rank).map(([label, { count }]) => `${count} ${label}`);
  return `${cases.length} shape${cases.length === 1 ? '' : 's'}, ${parts.join(', ')}`;
}

/** One GPU's details: hardware and method, then each case and precision, collapsed. */
function details(results: ResultsFile, several: boolean): string[] {
  const groups = Map.groupBy(results.cases, (c) => `${c.case}\u0000${c.dtype}`);
  const split = phaseSplitLine(results);
  const about = [
    md`Run as ${codeSpan(runAsCommand(results))} (its output folder left out) on ${text(results.createdAt.slice(0, 10), 20)} with fusebench ${results.tool.version}. Backend: **${results.device.backend}** (${note(results.backendReason)}).`
      .markdown,
    ...(split ? ['', md`Run time: ${text(split, 1000)}.`.markdown] : []),
    '',
    '**Hardware configuration**',
    '',
    hardware(results),
    '',
    '**Method**',
    '',
    method(results),
  ].join('\n');
  const gpu = several ? md` · ${htmlText(results.device.name)}` : trusted('');
  return [
    ...(several ? [md`### ${name(results.device.name)}`.markdown, ''] : []),
    collapsed(md`Hardware, fingerprint and method${gpu}`, about),
    ...[...groups.values()].map((cases) => {
      const first = cases[0] as CaseResult;
      return collapsed(
        md`${htmlText(first.title)} · ${trusted(first.dtype)}${gpu}: ${trusted(verdictCounts(cases))}`,
        cases.map((c) => renderCaseSection(c, 4, { minPairs: results.settings.minPairs })).join('\n'),
      );
    }),
  ];
}

/** Renders BENCHMARK_RESULTS.md of one or several GPUs' runs (in the order given). */
export function renderBenchmarkMarkdown(runs: ResultsFile[], options: BenchmarkMarkdownOptions = {}): string {
  const history = runs.flatMap((r) => {
    const section = options.history?.get(r.device.slug);
    if (!section) return [];
    return [...(runs.length > 1 ? [md`### ${name(r.device.name)}`.markdown, ''] : []), section, ''];
  });
  const leftOut = options.leftOut ?? [];
  return [
    '# fusebench results',
    '',
    heading(runs),
    '',
    ...leftOutLines(leftOut),
    summaryTable(runs),
    '',
    ...graphTwinSection(runs),
    '## Regenerate',
    '',
    regenerate(runs),
    '',
    ...roofline(runs),
    ...(history.length > 0 ? ['## History', '', ...history] : []),
    '## Details',
    '',
    ...runs.flatMap((r) => details(r, runs.length > 1)),
  ].join('\n');
}
