/**
 * What a perf run writes into its --out-dir, and the check before it measures that each can be written there:
 * a report's file that is a folder, or the charts' folder that is a file, would fail its write only once
 * everything is measured.
 */
import { lstatSync, type Stats, statSync } from 'node:fs';
import { join } from 'node:path';
import { BENCHER_JSON } from '../export/bencher.ts';
import { BENCHMARK_ACTION_JSON } from '../export/benchmark-action.ts';
import { CHARTS_DIR } from '../report/report-files.ts';
import { RESULTS_JSON, RESULTS_MARKDOWN } from '../results/results.ts';

/**
 * The report files a run writes into its --out-dir, in the order it writes them (src/run/perf-reporter.ts), and
 * the roofline charts into CHARTS_DIR there.
 */
export const REPORT_FILES = [RESULTS_JSON, RESULTS_MARKDOWN, BENCHER_JSON, BENCHMARK_ACTION_JSON] as const;
export type ReportFile = (typeof REPORT_FILES)[number];

/** What is at `path` (`follow`: through a link), or undefined when nothing (or a link to nothing) is. */
function statIfAny(path: string, follow: boolean): Stats | undefined {
  try {
    return follow ? statSync(path) : lstatSync(path);
  } catch {
    return undefined;
  }
}

/** Why `outDir` cannot take a run's reports (a report's file is a folder, the charts' folder is not); undefined when it can. */
export function reportPathProblem(outDir: string): string | undefined {
  for (const [name, folder] of [...REPORT_FILES.map((f) => [f, false] as const), [CHARTS_DIR, true] as const]) {
    const path = join(outDir, name);
    // A report file is replaced, a link in its place too (atomic-write.ts); the charts are written through a link.
    const found = statIfAny(path, folder);
    if (found && found.isDirectory() !== folder) return `${path} is ${folder ? 'not a folder' : 'a folder'}`;
  }
  return undefined;
}
