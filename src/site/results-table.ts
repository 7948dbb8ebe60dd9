/**
 * The dashboard's table of a GPU's latest run: a row per case, shape and precision, with the speedup the
 * gate judged and its 95% interval, the fused kernel's median time, its share of the roofline ceiling it
 * is bound by (copy bandwidth or matrix peak), and the verdict; worst verdict first. Pure.
 */
import { ms, speedup } from '../base/format.ts';
import { asMeasured, gatedTiming } from '../gate/judged-timing.ts';
import type { CaseResult, ResultsFile } from '../results/results.ts';
import { caseVerdict, verdictRank } from '../results/verdict.ts';
import { type Html, html } from './html.ts';

/** The fused kernel's share of its ceiling: the matrix peak for compute-bound cases, else the copy bandwidth. */
function ceilingShare(c: CaseResult): string {
  if (!asMeasured(c)) return '—';
  if (c.fusedPctOfMatrixPeak !== undefined) return `${c.fusedPctOfMatrixPeak.toFixed(0)}% of matrix peak`;
  if (c.tflops) return 'no matrix peak measured';
  if (c.fusedPctOfCopy !== undefined) return `${c.fusedPctOfCopy.toFixed(0)}% of copy bandwidth`;
  return '—';
}

function row(c: CaseResult): Html {
  const t = gatedTiming(c);
  const verdict = caseVerdict(c);
  return html`<tr class="verdict-${verdict.toLowerCase()}">
<td><span class="case-title">${c.title}</span> <code>${c.case}</code></td>
<td>${c.shape.label}</td>
<td>${c.dtype}</td>
<td class="num">${t ? speedup(t.speedup) : '—'}</td>
<td class="num">${t ? ms(t.fused.median) : '—'}</td>
<td class="num">${ceilingShare(c)}</td>
<td><span class="verdict">${verdict.replace('_', ' ')}</span>${c.status !== 'measured' && c.reason ? html`<div class="reason">${c.reason}</div>` : ''}</td>
</tr>`;
}

/** The table of a run, worst verdict first (then as the run measured them). */
export function resultsTable(run: ResultsFile): Html {
  const rows = run.cases
    .map((c, i) => ({ c, i }))
    .sort((a, b) => verdictRank(caseVerdict(a.c)) - verdictRank(caseVerdict(b.c)) || a.i - b.i)
    .map(({ c }) => row(c));
  return html`<table class="results">
<thead><tr><th>Case</th><th>Shape</th><th>Precision</th><th>Speedup [95% CI]</th><th>Fused time</th><th>Share of its roofline ceiling</th><th>Verdict</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>`;
}
