/**
 * Reads the runs a comment compares: this run's results (a broken file is an error naming the file
 * and the field) and the base branch's (a missing or unreadable base is not an error: the comment
 * says there is no base run and compares with the stored baseline only).
 */
import { existsSync } from 'node:fs';
import { type BaselineFile, baselineFileSchema, baselinePath } from '../gate/baseline-file.ts';
import { type ResultsFile, readJsonFile, readResults } from '../results/results.ts';
import type { BaseRun } from './comparison.ts';
import type { LeftOut } from './left-out.ts';
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

/**
 * Reads several GPUs' results: each file that cannot be read or fails the schema is left out with why, and so is
 * each older run of a GPU another file holds a newer run of (by `createdAt`; of two alike, the later given), since
 * their sections would collide. The runs come sorted by device name.
 */
export function readGpuResults(files: string[]): { runs: ResultsFile[]; leftOut: LeftOut[] } {
  const newest = new Map<string, { file: string; results: ResultsFile }>();
  const leftOut: LeftOut[] = [];
  for (const file of files) {
    let results: ResultsFile;
    try {
      results = readResults(file);
    } catch (e) {
      const message = (e as Error).message;
      // The message starts with the file's name; the reason is the rest.
      const why = message.startsWith(file) ? message.slice(file.length).replace(/^[\s:]+/, '') : message;
      leftOut.push({ file, why: `could not be read: ${why}` });
      continue;
    }
    const slug = results.device.slug;
    const other = newest.get(slug);
    if (other && Date.parse(results.createdAt) < Date.parse(other.results.createdAt)) {
      leftOut.push({ file, why: olderRun(results, other.file) });
      continue;
    }
    if (other) leftOut.push({ file: other.file, why: olderRun(other.results, file) });
    newest.set(slug, { file, results });
  }
  const runs = [...newest.values()].map((r) => r.results).sort((a, b) => a.device.name.localeCompare(b.device.name));
  return { runs, leftOut };
}

/** Why a run of a GPU was left out for another file's run of it. */
function olderRun(run: ResultsFile, newer: string): string {
  return `is another run of ${run.device.name} (made ${run.createdAt}), not newer than ${newer}: one run a GPU is kept`;
}

/**
 * A device's baseline file in `dir` (`<dir>/<slug>.json`), for the history charts' baseline band: undefined
 * when there is none, and the problem, naming the file and field, when it cannot be read or is not valid.
 */
export function readDeviceBaselines(
  dir: string,
  slug: string,
): { baselines?: { file: string; data: BaselineFile }; problem?: string } {
  try {
    const file = baselinePath(dir, slug);
    if (!existsSync(file)) return {};
    return { baselines: { file, data: readJsonFile(baselineFileSchema, file) } };
  } catch (e) {
    return { problem: (e as Error).message };
  }
}
