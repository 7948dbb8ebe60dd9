/**
 * The pull-request comment: for each GPU, this run's speedups against the base branch's latest run
 * and the stored baseline, worst verdict first. It starts with a hidden marker so the workflow can
 * find and update one comment in place, and it stays under GitHub's comment size limit by leaving
 * out the mildest rows first (see renderPrComment). Pure.
 */
import { COMPARE_DEFAULT_DELTA } from '../compare/compare-runs.ts';
import type { ResultsFile } from '../results/results.ts';
import { type BaseRun, type ComparisonRow, compareRuns, mostThatFit, worstFirst } from './comparison.ts';
import { renderRunComparison } from './comparison-markdown.ts';
import { join, link, md, name } from './escape.ts';
import { type LeftOut, leftOutLines } from './left-out.ts';

/** The hidden first line by which the workflow finds its own comment. */
export const PR_COMMENT_MARKER = '<!-- fusebench:pr-comment -->';
/** GitHub refuses comment bodies longer than this many characters. */
export const GITHUB_COMMENT_LIMIT = 65_536;

/** One GPU's results and the base branch's run for the same GPU. */
export interface GpuRun {
  results: ResultsFile;
  base: BaseRun;
}

/** Knobs of the comment. */
export interface PrCommentOptions {
  /** Size limit in UTF-16 code units (never fewer than GitHub counts); default a margin under GitHub's limit. */
  maxChars?: number;
  /** Link to the workflow run that measured this. */
  runUrl?: string;
  /** Results files merge had to leave out: named at the top, so a GPU is never silently missing. */
  leftOut?: readonly LeftOut[];
}

/** The footer; it explains Δ vs base only when a table has that column (some GPU has a base run). */
function footer(withBase: boolean): string {
  const versusBase = withBase
    ? 'Δ vs base is the gate’s decision of this run against the base branch’s latest perf run on the same GPU ' +
      `(the change in speedup with its 99% bootstrap interval; δ is the case’s gate δ on this GPU, from its baselines’ between-run noise, or ±${(100 * COMPARE_DEFAULT_DELTA).toFixed(1)}% without one, as \`npm run compare\` decides it); `
    : '';
  return (
    '<sub>Speedup = median(unfused) / median(fused) time, with a paired-bootstrap 95% interval. ' +
    `${versusBase}the verdict compares with the stored baseline (\`baselines/<gpu>.json\`), noise-aware.</sub>`
  );
}

interface Ranked {
  gpu: number;
  row: ComparisonRow;
}

/** The one line that stands in for a GPU section too large for the comment even without rows. */
function notice(run: GpuRun): string {
  return md`_**${name(run.results.device.name)}:** this GPU's section does not fit in a comment even without its table; see BENCHMARK_RESULTS.md in the workflow run's artifacts._\n`
    .markdown;
}

/**
 * The comment with the rows in `keep`, and the graph twins' tables when `arms`; GPUs not in `whole` get their
 * one-line notice instead of a section.
 */
function render(
  runs: GpuRun[],
  rows: ComparisonRow[][],
  keep: Set<ComparisonRow>,
  whole: boolean[],
  arms: boolean,
  options: PrCommentOptions,
): string {
  const sections = runs.map((run, i) => {
    if (!whole[i]) return notice(run);
    const all = rows[i] ?? [];
    const shown = all.filter((r) => keep.has(r));
    return renderRunComparison(run.results, {
      level: 3,
      base: run.base,
      rows: shown,
      all,
      omitted: all.length - shown.length,
      arms,
    });
  });
  const gpus = join(
    runs.map((r) => name(r.results.device.name)),
    ', ',
  );
  const what = runs.every((r) => r.results.device.backend === 'cuda') ? 'GPU' : 'device';
  const count = runs.length === 1 ? what.replace(/^d/, 'D') : `${runs.length} ${what}s`;
  return [
    PR_COMMENT_MARKER,
    '## fusebench: fused-kernel speedups',
    '',
    md`${count}: ${gpus}.${options.runUrl ? md` ${link('Workflow run', options.runUrl)}.` : ''}`.markdown,
    '',
    ...leftOutLines(options.leftOut ?? []),
    ...sections,
    footer(runs.some((r, i) => whole[i] && r.base.results !== null)),
    '',
  ].join('\n');
}

/**
 * Renders the comment for one or more GPUs, under `maxChars`. Every field from a results file is
 * already cut (escape.ts), so no single row or name can be large. The graph twins' tables stay only
 * when every row fits with them. When even the sections without rows do not fit, the GPU whose
 * section is largest gives way to a one-line notice, then the next, so one GPU's oversized data never
 * empties another GPU's section. Then rows are left out mildest first across all GPUs (worst verdict,
 * then largest loss vs the baseline, kept longest).
 */
export function renderPrComment(runs: GpuRun[], options: PrCommentOptions = {}): string {
  const maxChars = options.maxChars ?? GITHUB_COMMENT_LIMIT - 1_536;
  const rows = runs.map((r) => compareRuns(r.results, r.base.results));
  const whole = runs.map(() => true);
  const everything = render(runs, rows, new Set(rows.flat()), whole, true, options);
  if (everything.length <= maxChars) return everything;
  const none = new Set<ComparisonRow>();
  const sectionSize = (i: number) => {
    const run = runs[i] as GpuRun;
    return renderRunComparison(run.results, { level: 3, base: run.base, rows: [], omitted: 0, arms: false }).length;
  };
  while (render(runs, rows, none, whole, false, options).length > maxChars && whole.some(Boolean)) {
    const largest = whole
      .map((w, i) => ({ i, size: w ? sectionSize(i) : -1 }))
      .reduce((a, b) => (b.size > a.size ? b : a));
    whole[largest.i] = false;
  }
  if (render(runs, rows, none, whole, false, options).length > maxChars) {
    return `${PR_COMMENT_MARKER}\n## fusebench: fused-kernel speedups\n\nThe results are too large for a comment; see the workflow run's artifacts.\n`;
  }
  // The rows of the GPUs shown, in one list, worst first, so truncation drops the mildest rows of any GPU.
  const ranked: Ranked[] = rows.flatMap((rs, gpu) => (whole[gpu] ? rs.map((row) => ({ gpu, row })) : []));
  ranked.sort((a, b) => worstFirst(a.row, b.row) || a.gpu - b.gpu);
  const withFirst = (n: number) =>
    render(runs, rows, new Set(ranked.slice(0, n).map((r) => r.row)), whole, false, options);
  return withFirst(mostThatFit(ranked.length, (n) => withFirst(n).length <= maxChars));
}
