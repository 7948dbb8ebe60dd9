/**
 * The dashboard's table of a GPU's latest run: a row per case, shape and precision, with the speedup the
 * gate judged and its 95% interval, the fused speedup over the unfused twin replayed from a CUDA graph
 * where the shape has that graph twin, the fused kernel's median time, its share of the roofline ceiling it
 * is bound by (bandwidth × intensity or the matrix peak; copy bandwidth for a case without a flop model),
 * and the verdict; worst verdict first. Pure.
 */
import { ms, speedup } from '../base/format.ts';
import { fusedShare } from '../report/charts/roofline.ts';
import { shareLabel } from '../report/share-label.ts';
import { gatedTiming } from '../results/judged-timing.ts';
import type { CaseResult, ResultsFile } from '../results/results.ts';
import { caseVerdict, notGatingNote, verdictGates, verdictRank } from '../results/verdict.ts';
import { type Html, html, name, note } from './html.ts';

function row(c: CaseResult, device: ResultsFile['device']): Html {
  const t = gatedTiming(c);
  const g = c.graphTwin?.status === 'measured' ? c.graphTwin : undefined;
  const verdict = caseVerdict(c);
  return html`<tr class="verdict-${verdict.toLowerCase()}">
<td><span class="case-title">${name(c.title)}</span> <code>${name(c.case)}</code></td>
<td class="shape">${name(c.shape.label)}</td>
<td>${c.dtype}</td>
<td class="num">${t ? speedup(t.speedup, t.method === 'batched') : '—'}</td>
<td class="num">${g ? speedup(g.speedup) : '—'}</td>
<td class="num">${t ? ms(t.fused.median) : '—'}</td>
<td class="num">${shareLabel(fusedShare(c, device), c.dtype)}</td>
<td><span class="verdict">${verdict.replace('_', ' ')}${notGatingNote(verdictGates(c))}</span>${c.status !== 'measured' && c.reason ? html`<div class="reason">${note(c.reason)}</div>` : ''}</td>
</tr>`;
}

/** The table of a run, worst verdict first (then as the run measured them). */
export function resultsTable(run: ResultsFile): Html {
  const rows = run.cases
    .map((c, i) => ({ c, i }))
    .sort((a, b) => verdictRank(caseVerdict(a.c)) - verdictRank(caseVerdict(b.c)) || a.i - b.i)
    .map(({ c }) => row(c, run.device));
  return html`<table class="results">
<thead><tr><th>Case</th><th>Shape</th><th>Precision</th><th>Speedup [95% CI]</th><th>Over its CUDA graph</th><th>Fused time</th><th>Share of its roofline ceiling</th><th>Verdict</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>`;
}
