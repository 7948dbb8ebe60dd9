/**
 * What `npm run compare` prints and writes: a table of the cases measured in both runs (speedup and
 * fused time, base → head, each change with its 99% interval as the gate prints it, and the verdict),
 * the keys only one run has, and the verdict counts. The console text and the Markdown are drawn from
 * the same cells; in the Markdown every string from a results file is escaped (escape.ts). Pure.
 */

import { decisionChange, ms, times } from '../base/format.ts';
import { logText } from '../base/log-text.ts';
import {
  type CaseComparison,
  COMPARE_DEFAULT_DELTA,
  comparisonCounts,
  type RunComparison,
} from '../compare/compare-runs.ts';
import type { NamedRun } from '../compare/load-pair.ts';
import { methodLabel } from '../results/judged-timing.ts';
import { VERDICTS } from '../results/verdict-rule.ts';
import { padTable, paintVerdict } from './color.ts';
import { codeSpan, type Inline, join, type Markdown, markdownTable, md, name, note, ours, trusted } from './escape.ts';

/** Column headers of the comparison table. */
const COMPARE_HEADER = [
  'case',
  'shape',
  'dtype',
  'speedup base → head',
  'speedup change [99% CI]',
  'fused time base → head',
  'fused time change [99% CI]',
  'δ',
  'verdict',
];

/** "±1.5%", or "±5.4% / ±18.1%" when the speedup's and the fused time's δ differ. */
function deltaCell(c: CaseComparison): string {
  const pct = (d: number) => `±${(100 * d).toFixed(1)}%`;
  const ft = c.fusedTime;
  return ft && ft.delta !== c.speedup.delta ? `${pct(c.speedup.delta)} / ${pct(ft.delta)}` : pct(c.speedup.delta);
}

/** The cells of one compared case (our own number formats, plus the case name and shape label). */
function cells(c: CaseComparison): string[] {
  const sp = c.speedup;
  const ft = c.fusedTime;
  return [
    c.case,
    c.shape,
    c.dtype,
    `${times(sp.baseline)} → ${times(sp.current)}`,
    decisionChange(sp),
    ft ? `${ms(ft.baseline)} → ${ms(ft.current)}` : '—',
    ft ? decisionChange(ft) : '—',
    deltaCell(c),
    c.method === 'batched' ? `${c.verdict} (batched)` : c.verdict,
  ];
}

/** "SLOWER 1 · FASTER 0 · SAME 6 · AMBIGUOUS 0". */
function compareCountsLine(cmp: RunComparison): string {
  const n = comparisonCounts(cmp);
  return VERDICTS.map((v) => `${v} ${n[v]}`).join(' · ');
}

/** One line describing a run: its file, commit and date. */
function runLine(r: NamedRun): string {
  const commit = r.results.source?.commit;
  return `${r.file} (${commit ? `commit ${commit}, ` : ''}${r.results.createdAt.slice(0, 16).replace('T', ' ')})`;
}

/** Notes under the table: the timing compared when not per call, and why per call when batched was wanted. */
function methodNotes(cmp: RunComparison): { key: string; text: string }[] {
  return cmp.compared.flatMap((c) => [
    ...(c.method === 'batched' ? [{ key: c.key, text: `compared ${methodLabel(c)} (what the gate judged)` }] : []),
    ...(c.methodNote ? [{ key: c.key, text: c.methodNote }] : []),
  ]);
}

const deltaLine = (cmp: RunComparison) =>
  `${cmp.delta === undefined ? `δ per case (column δ): the head run's gate δ on this GPU, which carries its baselines' shift between runs, or ±${(100 * COMPARE_DEFAULT_DELTA).toFixed(1)}% without a measured baseline (the gate's δ for one run: it knows nothing of this GPU's shifts between machines, which reach 10% at the launch-bound shapes; a fused time's never below its floor, 11% at 2 µs)` : `δ ±${(100 * cmp.delta).toFixed(1)}% for every case (--delta)`}. SAME when the whole 99% interval of the change lies inside ±δ, SLOWER or FASTER when it lies wholly beyond, AMBIGUOUS otherwise.`;

/** The comparison as console text; verdicts coloured when `color`. */
export function renderCompareConsole(cmp: RunComparison, base: NamedRun, head: NamedRun, color: boolean): string {
  const rows = [COMPARE_HEADER, ...cmp.compared.map(cells)];
  const verdictColumn = COMPARE_HEADER.length - 1;
  const table = padTable(rows, (r, c, s) =>
    r > 0 && c === verdictColumn ? paintVerdict(s, cmp.compared[r - 1]?.verdict ?? 'SAME', color) : s,
  );
  const rule = table[0] ? '-'.repeat(Math.min(160, table[0].length)) : '';
  const list = (what: string, keys: string[]) =>
    keys.length > 0 ? [`${what}: ${keys.map((k) => logText(k)).join(', ')}`] : [];
  return [
    `fusebench compare on ${logText(cmp.device.name)}`,
    `  base ${logText(runLine(base))}`,
    `  head ${logText(runLine(head))}`,
    '',
    table[0] ?? '',
    rule,
    ...table.slice(1),
    '',
    ...methodNotes(cmp).map((n) => logText(`${n.key}: ${n.text}`)),
    ...list('only in head (added)', cmp.added),
    ...list('only in base (removed)', cmp.removed),
    ...list(
      'in both, not measured in both',
      cmp.notCompared.map((n) => `${logText(n.key)} (base ${n.base}, head ${n.head})`),
    ),
    deltaLine(cmp),
    compareCountsLine(cmp),
  ].join('\n');
}

/** The comparison as Markdown: the same content as the console text, every string from a file escaped. */
export function renderCompareMarkdown(cmp: RunComparison, base: NamedRun, head: NamedRun): string {
  const body: Inline[][] = cmp.compared.map((c) => {
    const [, , , ...ours_] = cells(c);
    return [c.case, c.shape, c.dtype, ...ours(ours_)];
  });
  const keyList = (what: string, keys: string[]): string[] =>
    keys.length > 0
      ? [
          md`**${trusted(what)}:** ${join(
            keys.map((k) => codeSpan(k, 200)),
            ', ',
          )}`.markdown,
        ]
      : [];
  const run = (label: string, r: NamedRun): Markdown =>
    md`- **${trusted(label)}:** ${codeSpan(r.file, 300)}${r.results.source?.commit ? md` at commit ${codeSpan(r.results.source.commit, 80)}` : ''}, ${r.results.createdAt.slice(0, 16).replace('T', ' ')}, ${codeSpan(r.results.command)}`;
  const notes = methodNotes(cmp).map((n) => md`- ${codeSpan(n.key, 200)}: ${note(n.text)}`.markdown);
  return [
    md`## fusebench compare on ${name(cmp.device.name)}`.markdown,
    '',
    run('base', base).markdown,
    run('head', head).markdown,
    '',
    markdownTable(ours(COMPARE_HEADER), body),
    '',
    ...(notes.length > 0 ? [...notes, ''] : []),
    ...keyList('Only in head (added)', cmp.added),
    ...keyList('Only in base (removed)', cmp.removed),
    ...keyList(
      'In both, not measured in both',
      cmp.notCompared.map((n) => `${n.key} (base ${n.base}, head ${n.head})`),
    ),
    '',
    note(deltaLine(cmp)).markdown,
    '',
    `**${compareCountsLine(cmp)}**`,
    '',
  ].join('\n');
}
