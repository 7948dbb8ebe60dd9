/**
 * The dashboard's table of a GPU's latest run: a row per case, shape and precision, with the speedup the
 * gate judged and its 95% interval, the fused kernel's median time, its share of the roofline ceiling it
 * is bound by (bandwidth × intensity or the matrix peak; copy bandwidth for a case without a flop model),
 * and the verdict; worst verdict first. Pure.
 */
import { ms, speedup } from '../base/format.ts';
import { gatedTiming } from '../gate/judged-timing.ts';
import { fusedShare } from '../report/charts/roofline.ts';
import type { CaseResult, ResultsFile } from '../results/results.ts';
import { caseVerdict, verdictRank } from '../results/verdict.ts';
import { type Html, html, name, note } from './html.ts';

/** How the table names each ceiling. */
const CEILING_NAMES = { bandwidth: 'the bandwidth ceiling', 'matrix peak': 'the matrix peak', copy: 'copy bandwidth' };

/** The fused kernel's share of its roofline ceiling (roofline.ts, as the roofline chart places it): "81% of the matrix peak". */
function ceilingShare(c: CaseResult, device: ResultsFile['device']): string {
  const s = fusedShare(c, device);
  if (!s) return '—';
  const pct = 100 * s.share;
  // Above 100% (a traffic model can count bytes the caches save), never rounded down to read as 100%.
  if (pct > 100)
    return `${pct.toFixed(Number(pct.toFixed(1)) > 100 ? 1 : 2)}% of ${CEILING_NAMES[s.ceiling]}, above it`;
  const shown = pct < 0.1 ? '<0.1' : pct.toFixed(pct < 10 ? 1 : 0);
  return `${shown}% of ${CEILING_NAMES[s.ceiling]}`;
}

function row(c: CaseResult, device: ResultsFile['device']): Html {
  const t = gatedTiming(c);
  const verdict = caseVerdict(c);
  return html`<tr class="verdict-${verdict.toLowerCase()}">
<td><span class="case-title">${name(c.title)}</span> <code>${name(c.case)}</code></td>
<td class="shape">${name(c.shape.label)}</td>
<td>${c.dtype}</td>
<td class="num">${t ? speedup(t.speedup) : '—'}</td>
<td class="num">${t ? ms(t.fused.median) : '—'}</td>
<td class="num">${ceilingShare(c, device)}</td>
<td><span class="verdict">${verdict.replace('_', ' ')}</span>${c.status !== 'measured' && c.reason ? html`<div class="reason">${note(c.reason)}</div>` : ''}</td>
</tr>`;
}

/** The table of a run, worst verdict first (then as the run measured them). */
export function resultsTable(run: ResultsFile): Html {
  const rows = run.cases
    .map((c, i) => ({ c, i }))
    .sort((a, b) => verdictRank(caseVerdict(a.c)) - verdictRank(caseVerdict(b.c)) || a.i - b.i)
    .map(({ c }) => row(c, run.device));
  return html`<table class="results">
<thead><tr><th>Case</th><th>Shape</th><th>Precision</th><th>Speedup [95% CI]</th><th>Fused time</th><th>Share of its roofline ceiling</th><th>Verdict</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>`;
}
