/**
 * The three arms of the shapes that declare a graph twin, side by side: the unfused twin as launched, the
 * same launches replayed from a CUDA graph, and the fused kernel. The unfused → graph step is what removing
 * launches buys; graph → fused is what fusion buys beyond it. One table in the console (under the main one),
 * one section of BENCHMARK_RESULTS.md (under the summary), and a collapsed block in the job summary and the PR
 * comment (under the speedups). The unfused and fused medians are those of the timing the graph twin was
 * paired with (batched calls on the launch-bound shapes, as the gate judges them), the graph's median comes
 * from its own pairs against the fused kernel; each speedup is from its own pairs. Pure; every string from
 * the file goes through plain/logText (console) or the Markdown helpers.
 */
import { ms, speedup, times } from '../base/format.ts';
import { logText } from '../base/log-text.ts';
import { asMeasured, timingOf } from '../results/judged-timing.ts';
import type { ResultsFile } from '../results/results.ts';
import { ruledTable } from './color.ts';
import {
  collapsed,
  type Inline,
  join,
  markdownTable,
  md,
  NOTE_CHARS,
  name,
  note,
  ours,
  plain,
  shapeName,
  trusted,
} from './escape.ts';

/** One shape's three arms on one GPU. */
interface ArmsRow {
  gpu: string;
  /** The shape as the console names it (escape.ts `shapeName`). */
  consoleName: string;
  case: string;
  title: string;
  shape: string;
  dtype: string;
  unfused: number;
  graph: number;
  fused: number;
  fusedVsUnfused: { estimate: number; lo: number; hi: number };
  fusedVsGraph: { estimate: number; lo: number; hi: number };
  /**
   * Whether the graph's launches went with PDL (its programmatic edges when counted), why not, or unknown (a
   * file from before it was recorded).
   */
  pdl: { went: true; edges: number | undefined } | { went: false; reason: string } | undefined;
  batched: boolean;
}

/** The rows of every measured graph twin in `runs`, in the runs' order. */
function armsRows(runs: ResultsFile[]): ArmsRow[] {
  return runs.flatMap((r) =>
    r.cases.flatMap((c) => {
      const m = asMeasured(c);
      const g = c.graphTwin;
      if (!m || g?.status !== 'measured') return [];
      // The timing the graph twin was paired with: batched calls when its samples were batches.
      const t = timingOf(m, g.callsPerSample > 1 ? 'batched' : 'per-call');
      return [
        {
          gpu: r.device.name,
          consoleName: shapeName(c),
          case: c.case,
          title: c.title,
          shape: c.shape.label,
          dtype: c.dtype,
          unfused: t.unfused.median,
          graph: g.graph.median,
          fused: t.fused.median,
          fusedVsUnfused: t.speedup,
          fusedVsGraph: g.speedup,
          pdl:
            g.pdl === undefined
              ? undefined
              : g.pdl
                ? { went: true, edges: g.programmaticEdges }
                : { went: false, reason: g.noPdlReason ?? 'no reason recorded' },
          batched: t.method === 'batched',
        },
      ];
    }),
  );
}

/** "49 edges", "yes" (no count recorded), "no", or "—" for a file from before PDL was recorded. */
function pdlCell(row: ArmsRow): string {
  if (!row.pdl) return '—';
  if (!row.pdl.went) return 'no';
  return row.pdl.edges !== undefined ? `${row.pdl.edges} edges` : 'yes';
}

/** The rows whose graph went without PDL, by reason, in the order the reasons first appear. */
function noPdlGroups(rows: ArmsRow[]): [string, ArmsRow[]][] {
  type Without = ArmsRow & { pdl: { went: false; reason: string } };
  const without = rows.filter((r): r is Without => r.pdl?.went === false);
  return [...Map.groupBy(without, (r) => r.pdl.reason)];
}

/**
 * The console's table of the three arms, with one line per reason a graph went without PDL; no lines when
 * no shape measured a graph twin.
 */
export function graphTwinConsoleLines(results: ResultsFile): string[] {
  const rows = armsRows([results]);
  if (rows.length === 0) return [];
  const header = ['case', 'size', 'dtype', 'unfused', 'graph', 'fused', 'vs unfused', 'vs graph [95% CI]', 'PDL'];
  const cells = rows.map((r) => [
    r.case,
    r.shape,
    r.dtype,
    ms(r.unfused),
    ms(r.graph),
    ms(r.fused),
    `${times(r.fusedVsUnfused.estimate)}${r.batched ? ' (b)' : ''}`,
    speedup(r.fusedVsGraph),
    pdlCell(r),
  ]);
  return [
    'graph twin (the unfused launches replayed from a CUDA graph), per call; each speedup from its own pairs; (b): batched',
    ...ruledTable([header, ...cells]),
    ...noPdlGroups(rows).map(([reason, of]) =>
      logText(`no PDL in ${of.map((r) => r.consoleName).join(', ')}: ${plain(reason, NOTE_CHARS)}`),
    ),
  ];
}

/** The Markdown table of the three arms (a GPU column with several runs); a line per reason a graph had no PDL. */
function armsMarkdown(rows: ArmsRow[], several: boolean): string[] {
  const header: Inline[] = ours([
    'Case',
    'Shape',
    'Precision',
    ...(several ? ['GPU'] : []),
    'Unfused',
    'Unfused from a CUDA graph',
    'Fused',
    'Fused vs unfused',
    'Fused vs graph [95% CI]',
    'PDL in the graph',
  ]);
  const body = rows.map((r): Inline[] => [
    r.title,
    r.shape,
    trusted(r.dtype),
    ...(several ? [name(r.gpu)] : []),
    trusted(ms(r.unfused)),
    trusted(ms(r.graph)),
    trusted(ms(r.fused)),
    trusted(speedup(r.fusedVsUnfused, r.batched)),
    trusted(speedup(r.fusedVsGraph)),
    trusted(pdlCell(r)),
  ]);
  const shapeOf = (r: ArmsRow) => md`${r.title} ${r.shape} ${trusted(r.dtype)}${several ? md` on ${name(r.gpu)}` : ''}`;
  return [
    markdownTable(header, body),
    '',
    ...noPdlGroups(rows).flatMap(([reason, of]) => [
      md`No PDL in ${join(of.map(shapeOf), ', ')}: ${note(reason)}.`.markdown,
      '',
    ]),
  ];
}

const ARMS_INTRO =
  'Unfused → graph is what removing launches buys, graph → fused what fusion buys beyond it. Times are per call, ' +
  'in the timing the graph twin was paired with (batched calls on launch-bound shapes); each speedup comes from its own pairs. ' +
  'Reported, not gated.';

/** BENCHMARK_RESULTS.md's section of the three arms, or nothing when no run measured a graph twin. */
export function graphTwinSection(runs: ResultsFile[]): string[] {
  const rows = armsRows(runs);
  if (rows.length === 0) return [];
  return [
    '## Launches or fusion',
    '',
    `Shapes that declare a graph twin: their unfused launches recorded once into a CUDA graph and replayed. ${ARMS_INTRO}`,
    '',
    ...armsMarkdown(rows, runs.length > 1),
  ];
}

/**
 * The three arms of one run, collapsed, for the job summary and the PR comment (under the speedup table), or
 * nothing when it measured no graph twin.
 */
export function graphTwinDetails(results: ResultsFile): string[] {
  const rows = armsRows([results]);
  if (rows.length === 0) return [];
  const shapes = `${rows.length} shape${rows.length === 1 ? '' : 's'}`;
  const summary = trusted(`Launches or fusion: the unfused twin replayed from a CUDA graph, ${shapes}`);
  return [collapsed(summary, [ARMS_INTRO, '', ...armsMarkdown(rows, false)].join('\n'))];
}
