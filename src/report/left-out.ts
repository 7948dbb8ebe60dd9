/**
 * The line a merged report gives each results file it had to leave out (unreadable, or failing its schema),
 * at its top: BENCHMARK_RESULTS.md and the PR comment alike, so a GPU is never silently missing from either.
 */
import { codeSpan, md, note } from './escape.ts';

/** A results file left out, and why. */
export interface LeftOut {
  file: string;
  why: string;
}

/** One quoted line a file: `> **Left out:** \`h100.json\` could not be read: …`, then a blank line. */
export function leftOutLines(files: readonly LeftOut[]): string[] {
  return files.map((u) => `${md`> **Left out:** ${codeSpan(u.file, 300)} could not be read: ${note(u.why)}`}\n`);
}
