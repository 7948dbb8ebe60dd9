/** The Actions job summary of one perf run: the same comparison Markdown as the PR comment, without a base run. */
import type { ResultsFile } from '../results/results.ts';
import { type ComparisonRow, compareRuns, mostThatFit, worstFirst } from './comparison.ts';
import { renderRunComparison } from './comparison-markdown.ts';
import { codeSpan, md, name } from './escape.ts';
import { perfCommand } from './regenerate.ts';

/** GitHub takes a step's summary up to 1 MiB and refuses a larger one: a margin under it. */
const SUMMARY_LIMIT = 1024 * 1024 - 16 * 1024;

/**
 * Renders the job summary (pure), at most `maxBytes` of UTF-8: every row while they fit, else the worst
 * rows first (the rest counted as left out), in the table's own order.
 */
export function renderJobSummary(results: ResultsFile, maxBytes = SUMMARY_LIMIT): string {
  const all = compareRuns(results, null);
  const reproduce = md`<sub>Reproduce: ${codeSpan(perfCommand(results))}. Full tables and the roofline: BENCHMARK_RESULTS.md and benchmark-charts/ in the run's artifacts.</sub>`;
  const page = (rows: ComparisonRow[]) => {
    const body = renderRunComparison(results, {
      level: 2,
      base: undefined,
      rows,
      omitted: all.length - rows.length,
      title: md`fusebench on ${name(results.device.name)}`,
    });
    return `${body}\n${reproduce.markdown}\n`;
  };
  const whole = page(all);
  if (Buffer.byteLength(whole) <= maxBytes) return whole;
  const ranked = [...all].sort(worstFirst);
  const first = (n: number) => {
    const kept = new Set(ranked.slice(0, n));
    return page(all.filter((r) => kept.has(r)));
  };
  return first(mostThatFit(ranked.length, (n) => Buffer.byteLength(first(n)) <= maxBytes));
}
