/** The Actions job summary of one perf run: the same comparison Markdown as the PR comment, without a base run. */
import type { ResultsFile } from '../results/results.ts';
import { compareRuns } from './comparison.ts';
import { renderRunComparison } from './comparison-markdown.ts';
import { codeSpan, md, name } from './escape.ts';
import { perfCommand } from './regenerate.ts';

/** Renders the job summary (pure). */
export function renderJobSummary(results: ResultsFile): string {
  const body = renderRunComparison(results, {
    level: 2,
    base: undefined,
    rows: compareRuns(results, null),
    omitted: 0,
    title: md`fusebench on ${name(results.device.name)}`,
  });
  const reproduce = md`<sub>Reproduce: ${codeSpan(perfCommand(results))}. Full tables and the roofline: BENCHMARK_RESULTS.md and benchmark-charts/ in the run's artifacts.</sub>`;
  return `${body}\n${reproduce.markdown}\n`;
}
