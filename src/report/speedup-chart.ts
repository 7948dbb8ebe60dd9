/**
 * A chart GitHub renders inside Markdown: a Mermaid `xychart-beta` of each case's speedup by shape,
 * bars for this run and a line for the stored baseline where every shape has one (the chart has no
 * gaps for missing points). The y axis runs from 0 to a little above the largest measured or baseline
 * speedup: a case's theoretical speedup (17x for attention) is named in the legend, not drawn, or a 2.9x
 * bar would sit low on a 0–20 axis. Pure. Syntax: https://mermaid.js.org/syntax/xyChart.html
 */
import type { CaseResult, ResultsFile } from '../results/results.ts';
import { codeBlock, join, md, mermaidLabel, name, trusted } from './escape.ts';

/** A quoted Mermaid string; labels from the results file keep only characters Mermaid reads as text. */
const quote = (s: string) => `"${mermaidLabel(s)}"`;
const num = (v: number) => Number(v.toFixed(3)).toString();

// A line through one point draws nothing, so a case with one shape gets two empty categories around
// it and a flat baseline line across all three. Zero-width spaces: distinct (Mermaid's band axis would
// merge two equal labels) yet invisible, and Mermaid trims ordinary spaces to the same empty label.
const PAD_LEFT = '"\u200b"';
const PAD_RIGHT = '"\u200b\u200b"';

/** One chart per case and precision with at least one measured shape; empty when nothing was measured. */
export function renderSpeedupCharts(results: ResultsFile): string {
  const byCase = new Map<string, CaseResult[]>();
  for (const c of results.cases) {
    if (c.status !== 'measured' || !c.speedup) continue;
    const key = `${c.case}/${c.dtype}`;
    byCase.set(key, [...(byCase.get(key) ?? []), c]);
  }
  return [...byCase.values()]
    .map((cases) => {
      const first = cases[0] as CaseResult;
      const current = cases.map((c) => c.speedup?.estimate ?? 0);
      const baselines = cases.map((c) => c.gate?.speedup?.baseline);
      const known = baselines.filter((b): b is number => b !== undefined);
      const top = Math.ceil(Math.max(...current, ...known) * 1.15 * 2) / 2;
      const all = known.length === cases.length;
      const [only] = known;
      const single = cases.length === 1 && only !== undefined;
      const labels = cases.map((c) => quote(c.shape.label));
      const lines = [
        'xychart-beta',
        `    title "${mermaidLabel(first.title)} (${first.dtype}) on ${mermaidLabel(results.device.name)}: speedup by shape"`,
        `    x-axis [${(single ? [PAD_LEFT, ...labels, PAD_RIGHT] : labels).join(', ')}]`,
        `    y-axis "Speedup (x)" 0 --> ${top}`,
        `    bar [${(single ? [0, ...current, 0] : current).map(num).join(', ')}]`,
      ];
      if (single) lines.push(`    line [${[only, only, only].map(num).join(', ')}]`);
      else if (all) lines.push(`    line [${known.map(num).join(', ')}]`);
      const missing = cases.filter((c) => c.gate?.speedup === undefined).map((c) => name(c.shape.label));
      const legend = single
        ? trusted(`Bar: this run. Line: the stored baseline, ${num(only)}x.`)
        : all
          ? trusted('Bars: this run. Line: the stored baseline.')
          : known.length > 0
            ? md`Bars: this run. No baseline line: ${join(missing, ', ')} ${missing.length === 1 ? 'has' : 'have'} no baseline.`
            : trusted('Bars: this run (no stored baseline for this device).');
      const theoretical = first.traffic.theoreticalSpeedup.toFixed(2);
      return `${codeBlock(lines.join('\n'), 'mermaid', Number.POSITIVE_INFINITY)}\n\n${md`_${legend} Theoretical speedup from memory traffic: ${theoretical}x._`}\n`;
    })
    .join('\n');
}
