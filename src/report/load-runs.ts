/**
 * Reads the runs a comment compares: this run's results (a broken file is an error naming the file
 * and the field) and the base branch's (a missing or unreadable base is not an error: the comment
 * says there is no base run and compares with the stored baseline only).
 */
import { existsSync } from 'node:fs';
import { type ResultsFile, readResults } from '../results/results.ts';
import type { BaseRun } from './comparison.ts';
import type { GpuRun } from './pr-comment.ts';

/** A base results file, or why there is none. */
export function loadBaseRun(file: string | undefined): BaseRun {
  if (!file) return { results: null, why: 'the base branch has no perf results to compare with.' };
  if (!existsSync(file)) return { results: null, why: `the base branch's results file \`${file}\` does not exist.` };
  try {
    return { results: readResults(file) };
  } catch (e) {
    const first = (e as Error).message.split('\n').slice(0, 2).join(' ').replace(/\s+/g, ' ');
    return { results: null, why: `the base branch's results could not be read (${first}).` };
  }
}

/** Pairs each GPU's results with the base run of the same device (by device slug). */
export function pairWithBases(runs: ResultsFile[], bases: BaseRun[]): GpuRun[] {
  return runs.map((results) => {
    const match = bases.find((b) => b.results?.device.slug === results.device.slug);
    const reasons = bases.filter((b) => !b.results).map((b) => b.why);
    const only = bases.length === 1 ? bases[0] : undefined;
    const why =
      bases.length === 0
        ? `the base branch has no perf results for ${results.device.name}.`
        : only && !only.results
          ? only.why
          : `the base branch's perf results include none of ${results.device.name}${reasons.length > 0 ? ` (${reasons.join(' ')})` : ''}.`;
    return { results, base: match ?? { results: null, why } };
  });
}

/** Several GPUs' results as read: the runs (by device name), and a message per file left out. */
interface GpuResultsRead {
  runs: ResultsFile[];
  /** Why a file was left out: not readable, not valid (file and fields named), or a second run of a device. */
  problems: string[];
}

/**
 * Reads several GPUs' results, leaving out (and naming) each file that cannot be read or is not valid, and
 * the second file of a device (its sections would collide with the first's).
 */
export function loadGpuResults(files: string[]): GpuResultsRead {
  const problems: string[] = [];
  const seen = new Map<string, string>();
  const runs: ResultsFile[] = [];
  for (const file of files) {
    let results: ResultsFile;
    try {
      results = readResults(file);
    } catch (e) {
      problems.push((e as Error).message);
      continue;
    }
    const other = seen.get(results.device.slug);
    if (other) {
      problems.push(`${other} and ${file} are both results of ${results.device.name}; pass one per GPU`);
      continue;
    }
    seen.set(results.device.slug, file);
    runs.push(results);
  }
  return { runs: runs.sort((a, b) => a.device.name.localeCompare(b.device.name)), problems };
}

/** Reads several GPUs' results; a file that cannot be read or is not valid, or two files of the same device, is an error. */
export function readGpuResults(files: string[]): ResultsFile[] {
  const { runs, problems } = loadGpuResults(files);
  if (problems[0] !== undefined) throw new Error(problems[0]);
  return runs;
}
