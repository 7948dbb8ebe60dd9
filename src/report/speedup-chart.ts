/**
 * A chart GitHub renders inside Markdown: a Mermaid `xychart-beta` of each case's speedup by shape,
 * bars for this run and a line for the stored baseline where every shape has one (the chart has no
 * gaps for missing points). Pure. Syntax: https://mermaid.js.org/syntax/xyChart.html
 */
import type { CaseResult, ResultsFile } from '../results.ts';
import { codeBlock, join, md, mermaidLabel, name, trusted } from './escape.ts';

/** A quoted Mermaid string; labels from the results file keep only characters Mermaid reads as text. */
const quote = (s: string) => `"${mermaidLabel(s)}"`;
const num = (v: number) => Number(v.toFixed(3)).toString();

/** One chart per case with at least one measured shape; empty when nothing was measured. */
export function renderSpeedupCharts(results: ResultsFile): string {
  const byCase = new Map<string, CaseResult[]>();
  for (const c of results.cases) {
    if (c.status !== 'measured' || !c.speedup) continue;
    byCase.set(c.case, [...(byCase.get(c.case) ?? []), c]);
  }
  return [...byCase.values()]
    .map((cases) => {
      const first = cases[0] as CaseResult;
      const current = cases.map((c) => c.speedup?.estimate ?? 0);
      const baselines = cases.map((c) => c.gate?.speedup?.baseline);
      const known = baselines.filter((b): b is number => b !== undefined);
      const top = Math.ceil(Math.max(...current, ...known, first.traffic.theoreticalSpeedup) * 1.15 * 2) / 2;
      const lines = [
        'xychart-beta',
        `    title "${mermaidLabel(first.title)} on ${mermaidLabel(results.device.name)}: speedup by shape"`,
        `    x-axis [${cases.map((c) => quote(c.shape.label)).join(', ')}]`,
        `    y-axis "Speedup (x)" 0 --> ${top}`,
        `    bar [${current.map(num).join(', ')}]`,
      ];
      const all = known.length === cases.length;
      if (all) lines.push(`    line [${known.map(num).join(', ')}]`);
      const missing = cases.filter((c) => c.gate?.speedup === undefined).map((c) => name(c.shape.label));
      const legend = all
        ? trusted('Bars: this run. Line: the stored baseline.')
        : known.length > 0
          ? md`Bars: this run. No baseline line: ${join(missing, ', ')} ${missing.length === 1 ? 'has' : 'have'} no baseline.`
          : trusted('Bars: this run (no stored baseline for this device).');
      const theoretical = first.traffic.theoreticalSpeedup.toFixed(2);
      return `${codeBlock(lines.join('\n'), 'mermaid', Number.POSITIVE_INFINITY)}\n\n${md`_${legend} Theoretical speedup from memory traffic: ${theoretical}x._`}\n`;
    })
    .join('\n');
}
