/**
 * The line a merged report gives each results file it had to leave out (unreadable, failing its schema, or an
 * older run of a GPU another file holds), at its top: BENCHMARK_RESULTS.md and the PR comment alike, so a GPU
 * is never silently missing from either.
 */
import { codeSpan, md, note } from './escape.ts';

/** A results file left out, and why, as a phrase after its name ("could not be read: …"). */
export interface LeftOut {
  file: string;
  why: string;
}

/** How many left-out files are named one by one; past it, one line counts the rest. */
const SHOWN_LEFT_OUT = 10;

/**
 * One quoted line a file: `> **Left out:** \`h100.json\` could not be read: …`, then a blank line; past
 * SHOWN_LEFT_OUT, one line with how many more (400 broken files once filled a PR comment's whole budget,
 * and the comment said only that the results were too large).
 */
export function leftOutLines(files: readonly LeftOut[]): string[] {
  const shown = files
    .slice(0, SHOWN_LEFT_OUT)
    .map((u) => `${md`> **Left out:** ${codeSpan(u.file, 300)} ${note(u.why)}`}\n`);
  const more = files.length - SHOWN_LEFT_OUT;
  return more > 0 ? [...shown, `> **Left out:** ${more} more results files (the run's log names each).\n`] : shown;
}
