/**
 * The Markdown builder shared by the PR comment and the Actions job summary: for one GPU, the device,
 * the verdict counts, a table of speedups (base run, this run, Δ, baseline, verdict), the notes of
 * the rows that need a reviewer's eye and, collapsed, the three arms of the shapes with a graph twin. Pure.
 */

import { labelledChange, signedPct, speedup, times } from '../base/format.ts';
import type { CaseComparison } from '../compare/compare-runs.ts';
import type { ResultsFile } from '../results/results.ts';
import { countsLine, countVerdicts, notGatingNote, noVerdicts, verdictLabel } from '../results/verdict.ts';
import type { BaseRun, ComparisonRow } from './comparison.ts';
import { codeSpan, join, type Markdown, markdownTable, md, name, note, ours, trusted } from './escape.ts';
import { graphTwinDetails } from './graph-twin-table.ts';
import { wideDeltaSentence, wideDeltaShapes } from './wide-delta.ts';

/** How one GPU's comparison is drawn. */
export interface ComparisonOptions {
  /** Heading level of the GPU's title (2 = "##"). */
  level: number;
  /** The base run, or why there is none; undefined: no base columns and no remark (the job summary). */
  base: BaseRun | undefined;
  /** Rows to show (already chosen and ordered); the others are counted in a note. */
  rows: ComparisonRow[];
  /** Every row, shown or not, for the counts against the base run; default `rows`. */
  all?: readonly ComparisonRow[];
  /** How many rows were left out to fit a size limit. */
  omitted: number;
  /** The section's title (Markdown, its parts escaped by the caller); default the GPU's name. */
  title?: Markdown;
  /** Whether to add the three arms of the graph twins (collapsed), or a line that they were left out; default true. */
  arms?: boolean;
}

// NO_BASELINE rows are left out: the verdict column says it, and a new device would repeat it on every row.
const NOTE_VERDICTS = new Set(['FAILED', 'ERRORED', 'SLOWER', 'AMBIGUOUS', 'FASTER']);

/** "**NVIDIA H200** (cuda; driver 580.159.04; CUDA 13.0; compute capability 9.0)", every field escaped. */
function deviceLine(results: ResultsFile): Markdown {
  const f = results.device.fingerprint;
  const facts = [
    results.device.backend,
    f.driver && md`driver ${f.driver}`,
    f.cudaRuntime && md`CUDA ${f.cudaRuntime}`,
    f.computeCapability && md`compute capability ${f.computeCapability}`,
  ].filter((x) => !!x);
  return md`**${name(results.device.name)}** (${join(facts, '; ')})`;
}

/** " at `4bb25af0c1d2` (perf/decode-step)": the commit and branch a run measured, escaped; '' when unknown. */
function atCommit(results: ResultsFile): Markdown | string {
  if (!results.source) return ''; // a file written before runs named their commit
  const { commit, branch } = results.source;
  return md` at ${codeSpan(commit, 80)}${branch ? md` (${name(branch)})` : ''}`;
}

/** How many shapes of the base run this run has not, named (the first ten) under the counts. */
const SHOWN_MISSING = 10;

/**
 * Against the base run: "Against the base run at `1a2b3c4` (main), 2026-11-28: **1 slower** · 2 faster · 40
 * same", with the shapes of the base run this run lacks, so the answer to "did this make anything slower
 * than the base branch?" is at the top, whatever rows the table keeps.
 */
function versusBaseLines(results: ResultsFile, base: ResultsFile, rows: readonly ComparisonRow[]): string[] {
  const n = noVerdicts();
  for (const r of rows) if (r.vsBase) n[r.vsBase.verdict.toLowerCase() as 'slower' | 'faster' | 'same' | 'ambiguous']++;
  const compared = rows.filter((r) => r.vsBase).length;
  const counts = compared > 0 ? countsLine(n) : 'no shape measured in both';
  const lines = [
    md`Against the base run${atCommit(base)}, ${base.createdAt.slice(0, 10)}: ${trusted(counts)}.`.markdown,
  ];
  const keys = new Set(results.cases.map((c) => c.key));
  const gone = base.cases.filter((c) => !keys.has(c.key));
  if (gone.length > 0) {
    const named = gone.slice(0, SHOWN_MISSING).map((c) => md`${name(c.title)} ${name(c.shape.label)} ${name(c.dtype)}`);
    const more = gone.length > SHOWN_MISSING ? `, and ${gone.length - SHOWN_MISSING} more` : '';
    lines.push(
      '',
      md`> **Not in this run:** ${trusted(String(gone.length))} shape${trusted(gone.length === 1 ? '' : 's')} of the base run: ${join(named, ', ')}${trusted(more)}.`
        .markdown,
    );
  }
  return lines;
}

function baseCell(b: ComparisonRow['base']): string {
  if (b === 'absent') return 'new';
  return b === null ? '—' : times(b);
}

/**
 * The decision against the base run: its verdict and the speedup's change with its 99% interval, plus the
 * fused time's, labelled: "🔴 SLOWER speedup −20.4% [−21.4%, −19.5%], fused time +25.6% [+24.3%, +27.5%]".
 */
function versusBaseCell(c: CaseComparison): string {
  const sp = c.speedup;
  const ft = c.fusedTime;
  return `${verdictLabel(c.verdict)} ${labelledChange({ speedup: sp, fusedTime: ft })}${c.method === 'batched' ? ' (batched)' : ''}`;
}

function verdictCell(r: ComparisonRow): string {
  const label = `${verdictLabel(r.verdict)}${notGatingNote(r.gates)}`;
  return r.vsBaseline === undefined ? label : `${label} (${signedPct(r.vsBaseline)})`;
}

/** The speedup table; with `withBase`, base-run columns and the change from the base run. */
function comparisonTable(rows: ComparisonRow[], withBase: boolean): string {
  const header = withBase
    ? [
        'Case',
        'Shape',
        'Precision',
        'Base speedup',
        'PR speedup [95% CI]',
        'Δ vs base',
        'Baseline',
        'Verdict vs baseline',
      ]
    : ['Case', 'Shape', 'Precision', 'Speedup [95% CI]', 'Baseline', 'Verdict vs baseline'];
  const body = rows.map((r) => {
    const current = r.current ? speedup(r.current, r.current.batched) : '—';
    const baseline = r.baseline === undefined ? '—' : times(r.baseline);
    // Title and shape come from the results file (escaped by the table); the rest is our own formatting.
    if (!withBase) return [r.title, r.shape, r.dtype, ...ours([current, baseline, verdictCell(r)])];
    const delta = r.vsBase ? versusBaseCell(r.vsBase) : '—';
    return [r.title, r.shape, r.dtype, ...ours([baseCell(r.base), current, delta, baseline, verdictCell(r)])];
  });
  return markdownTable(ours(header), body);
}

/** One note line: "- **GELU + scale 2M** — FAILED: <the reason, escaped and cut>". */
function noteLine(r: ComparisonRow): Markdown {
  return md`- **${name(r.title)} ${name(r.shape)} ${name(r.dtype)}** — ${trusted(`${r.verdict}${notGatingNote(r.gates)}`)}: ${note(r.note ?? '')}`;
}

/** The notes under the table: one line per row a reviewer should read about (a failure, a regression, a change). */
function comparisonNotes(rows: ComparisonRow[]): string {
  return rows
    .filter((r) => NOTE_VERDICTS.has(r.verdict) && r.note)
    .map((r) => noteLine(r).markdown)
    .join('\n');
}

/** One GPU's section. */
export function renderRunComparison(results: ResultsFile, options: ComparisonOptions): string {
  const { level, base, rows, omitted } = options;
  const withBase = base?.results != null;
  const parts = [
    md`${trusted('#'.repeat(level))} ${options.title ?? name(results.device.name)}`.markdown,
    '',
    md`Measured on ${deviceLine(results)}, ${results.createdAt.slice(0, 10)}${atCommit(results)}, seed ${results.settings.seed}.`
      .markdown,
    '',
    `Against the stored baseline: ${countsLine(countVerdicts(results))}.`,
    '',
  ];
  if (base?.results) parts.push(...versusBaseLines(results, base.results, options.all ?? rows), '');
  if (base && !base.results) {
    parts.push(md`> **No base run:** ${note(base.why)} This compares with the stored baseline only.`.markdown, '');
  }
  if (rows.length > 0) parts.push(comparisonTable(rows, withBase), '');
  if (omitted > 0) {
    parts.push(
      `_${omitted} more row${omitted === 1 ? '' : 's'} left out to stay under the size limit; the mildest verdicts went first._`,
      '',
    );
  }
  const notes = comparisonNotes(rows);
  if (notes) parts.push(notes, '');
  const wide = wideDeltaShapes(results);
  if (wide.length > 0) {
    parts.push(md`> **Wide δ:** ${note(`${wideDeltaSentence(wide.length)}: ${wide.join(', ')}`)}`.markdown, '');
  }
  const arms = graphTwinDetails(results);
  if (options.arms ?? true) parts.push(...arms);
  else if (arms.length > 0) {
    parts.push('_The graph twins’ table is left out to stay under the size limit; BENCHMARK_RESULTS.md has it._', '');
  }
  return parts.join('\n');
}
