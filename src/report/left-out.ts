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

/** One quoted line a file: `> **Left out:** \`h100.json\` could not be read: …`, then a blank line. */
export function leftOutLines(files: readonly LeftOut[]): string[] {
  return files.map((u) => `${md`> **Left out:** ${codeSpan(u.file, 300)} ${note(u.why)}`}\n`);
}
