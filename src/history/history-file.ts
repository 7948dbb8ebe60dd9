/**
 * History files: JSON Lines, one record per run (history-record.ts), appended in run order. Reading
 * never gives up on a file: a line that is not JSON or not a record is named (file:line and why) and
 * skipped, and the rest is read. Appending never loses a line either: the file's bytes are kept as
 * they are, broken lines included, the new record goes after them, and the whole is written
 * atomically (a reader sees the file before or after the append, never half of it) under the file's
 * lock, so two appends at once both land. A record that is not valid is refused before the file is
 * touched, so that no reader skips what a run just wrote.
 */

import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { z } from 'zod';
import { leftoverTempFiles, resolveLinks, writeFileAtomic } from '../base/atomic-write.ts';
import { isPlainSlug } from '../base/device-slug.ts';
import { readFileBytes, readTextFile } from '../base/read-text.ts';
import { type BaselineLockOptions, withBaselineLock } from '../gate/baseline-lock.ts';
import { fieldPath } from '../results/results.ts';
import { type HistoryRecord, historyRecordSchema } from './history-record.ts';

/** A history file's readable records (with their line numbers) and a message per line that was skipped. */
export interface HistoryRead {
  records: { line: number; record: HistoryRecord }[];
  /**
   * "history/nvidia-h200.jsonl:7: not valid JSON (Unexpected end of JSON input); skipped": the first
   * SHOWN_PROBLEMS broken lines, then one line with how many more, so every reader (history, merge, site,
   * append) names a few and counts the rest instead of keeping and printing millions.
   */
  problems: string[];
  /** How many lines were broken in all. */
  broken: number;
}

/** How many broken lines of a history file are named one by one. */
export const SHOWN_PROBLEMS = 20;

/** The first three issues of a failed parse as a history record, each naming its field. */
function schemaIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((x) => `${fieldPath(x.path)}: ${x.message}`)
    .join('; ');
}

/**
 * Throws, naming `file` and the fields, when `record` is not a history record: a line its readers would
 * skip is refused before anything is appended.
 */
export function assertHistoryRecord(file: string, record: unknown): void {
  const checked = historyRecordSchema.safeParse(record);
  if (!checked.success) {
    throw new Error(
      `${file}: the record to append is not a history record (${schemaIssues(checked.error)}); nothing was appended`,
    );
  }
}

/** Parses history text; `file` only names the lines in messages. Empty lines are allowed. */
export function parseHistory(text: string, file: string): HistoryRead {
  const records: HistoryRead['records'] = [];
  const problems: string[] = [];
  let broken = 0;
  const skip = (problem: () => string) => {
    if (++broken <= SHOWN_PROBLEMS) problems.push(problem());
  };
  text.split('\n').forEach((raw, i) => {
    const line = i + 1;
    const content = raw.trim();
    if (content === '') return;
    let data: unknown;
    try {
      data = JSON.parse(content);
    } catch (e) {
      skip(() => `${file}:${line}: not valid JSON (${(e as Error).message}); skipped`);
      return;
    }
    const parsed = historyRecordSchema.safeParse(data);
    if (!parsed.success) {
      skip(() => `${file}:${line}: not a history record (${schemaIssues(parsed.error)}); skipped`);
      return;
    }
    records.push({ line, record: parsed.data });
  });
  if (broken > SHOWN_PROBLEMS) problems.push(`${file}: ${broken - SHOWN_PROBLEMS} more broken lines; skipped`);
  return { records, problems, broken };
}

/** Whether `text` is one JSON document with a results file's fields (given where a history was expected). */
function isResultsDocument(text: string): boolean {
  try {
    const data = JSON.parse(text) as unknown;
    return typeof data === 'object' && data !== null && 'schemaVersion' in data && 'cases' in data;
  } catch {
    return false;
  }
}

/**
 * Reads a history file; a missing file is an empty history, an unreadable one an error naming it, and so is
 * a results file given in its place (which would otherwise be a warning for every one of its lines).
 */
export function readHistory(file: string): HistoryRead {
  if (!existsSync(file)) return { records: [], problems: [], broken: 0 };
  const text = readTextFile(file);
  const read = parseHistory(text, file);
  if (read.records.length === 0 && read.problems.length > 0 && isResultsDocument(text)) {
    throw new Error(
      `${file} is a results file, not a history (JSON Lines, one record a line): add it to one with \`fusebench history append --dir <dir> ${file}\``,
    );
  }
  return read;
}

/** `text` with `record` appended as one line; a last line without its newline (a cut write) keeps its own line. */
function appendedBytes(bytes: Buffer, record: HistoryRecord): Buffer {
  const newline = bytes.length > 0 && bytes[bytes.length - 1] !== 0x0a ? '\n' : '';
  return Buffer.concat([bytes, Buffer.from(`${newline}${JSON.stringify(record)}\n`)]);
}

/** What an append did: the problems of the lines already there (kept as they are), and whether it added a line. */
export interface Appended {
  problems: string[];
  /** False when the file already holds this very record (the same run appended again: a re-run CI job). */
  appended: boolean;
}

/**
 * Appends one record to a history file (created with its folder when missing), atomically, under the
 * file's lock (`<file>.lock`, the baselines' discipline: baseline-lock.ts), so concurrent appends
 * serialize and none is lost; a record the file already holds, line for line, is not added again.
 */
export async function appendHistory(
  file: string,
  record: HistoryRecord,
  lock: BaselineLockOptions = {},
): Promise<Appended> {
  assertHistoryRecord(file, record);
  return withBaselineLock(
    file,
    () => {
      // Every appender holds the lock, so a temporary file of this one now is a killed writer's.
      for (const t of leftoverTempFiles(resolveLinks(file))) rmSync(t, { force: true });
      // The bytes as they are: a line that is not UTF-8 is a problem to name, and kept byte for byte.
      let bytes: Buffer = Buffer.alloc(0);
      if (existsSync(file)) {
        try {
          bytes = readFileBytes(file);
        } catch (e) {
          throw new Error(`${(e as Error).message} (to append to it)`);
        }
      }
      const text = bytes.toString('utf8');
      const { problems } = parseHistory(text, file);
      const line = JSON.stringify(record);
      if (text.split('\n').some((l) => l.trim() === line)) return { problems, appended: false };
      writeFileAtomic(file, appendedBytes(bytes, record));
      return { problems, appended: true };
    },
    lock,
  );
}

/** The history file of a device in `dir`: `<dir>/<slug>.jsonl`; a slug that is not a plain name is refused. */
export function historyFileFor(dir: string, slug: string): string {
  if (!isPlainSlug(slug)) {
    throw new Error(
      `device.slug ${JSON.stringify(slug)} is not a plain device slug (lower-case letters, digits, '.', '-'); refusing to use it as a file name`,
    );
  }
  return join(dir, `${slug}.jsonl`);
}
