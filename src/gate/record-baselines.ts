/**
 * `--update-baselines` on disk: under the baseline file's lock, re-reads the file (another run may have
 * written it since this run started), merges this run's results into it (update.ts) and writes it
 * atomically. Nothing is lost: entries of other runs stay, unknown fields stay, and an invalid or
 * foreign existing file, or a merged file the loader would refuse, stops the update with the file unchanged.
 */

import { existsSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { leftoverTempFiles, resolveLinks, writeFileAtomic } from '../base/atomic-write.ts';
import { formatJson } from '../base/json-format.ts';
import { logText } from '../base/log-text.ts';
import { shellWord } from '../base/shell-words.ts';
import { type ResultsFile, readJsonFile, validateFile } from '../results/results.ts';
import { baselineFileSchema, defaultBaselinesDir } from './baseline-file.ts';
import { type BaselineLockOptions, withBaselineLock } from './baseline-lock.ts';
import { type UpdateMode, updateBaselines } from './update.ts';

/** What an update did. */
export interface RecordOutcome {
  file: string;
  created: boolean;
  changes: string[];
  keptUnknown: string[];
  droppedUnknown: string[];
  /** Temporary files of killed writers that were removed. */
  removedTemp: string[];
}

/** Merges `results` into the baseline file `file` under its lock; `commit` is what was measured. */
export async function recordBaselines(
  file: string,
  results: ResultsFile,
  commit: string,
  lock: BaselineLockOptions = {},
  mode: UpdateMode = 'replace',
): Promise<RecordOutcome> {
  return withBaselineLock(
    file,
    () => {
      // Every writer of this file holds the lock, so a temporary file of it now is a killed writer's.
      const removedTemp = leftoverTempFiles(resolveLinks(file));
      for (const t of removedTemp) rmSync(t, { force: true });
      const existing = existsSync(file) ? readJsonFile(baselineFileSchema, file) : null;
      if (existing && existing.device.slug !== results.device.slug) {
        throw new Error(
          `${file} holds baselines of ${existing.device.name}, but this run measured ${results.device.name}; ` +
            "refusing to mix devices (drop --baseline-file to update this device's own file)",
        );
      }
      const update = updateBaselines(existing, results, commit, mode);
      if (!existing && Object.keys(update.file.entries).length === 0)
        throw new Error(`no shape was measured (every one was skipped or failed), so ${file} was not created`);
      // What the loader would refuse is refused here, with the file unchanged.
      validateFile(baselineFileSchema, update.file, `${file}, as this update would write it,`);
      writeFileAtomic(file, formatJson(update.file));
      return {
        file,
        created: !existing,
        changes: update.changes,
        keptUnknown: update.keptUnknown,
        droppedUnknown: update.droppedUnknown,
        removedTemp,
      };
    },
    lock,
  );
}

/**
 * The command that records this device's baselines on `backend`: into `baselinesDir` (a run's own
 * --baselines-dir; none named when it is fusebench's own folder). Never into a --baseline-file: that compares
 * with another device's file on purpose, and recording there would mix devices (refused).
 */
export function recordCommand(backend: string, baselinesDir = defaultBaselinesDir()): string {
  const where =
    resolve(baselinesDir) === resolve(defaultBaselinesDir()) ? '' : ` --baselines-dir ${shellWord(baselinesDir)}`;
  return `npm run perf -- --backend ${backend}${where} --update-baselines`;
}

/** The lines `npm run perf -- --update-baselines` prints about an update. */
export function outcomeLines(o: RecordOutcome): string[] {
  // Keys, field names and paths come from the baseline file and the command line: each through logText.
  const line = (indent: string, s: string) => `${indent}${logText(s)}`;
  return [
    `\nfusebench: ${o.created ? 'created' : 'updated'} ${logText(o.file)} (${o.changes.length} ${o.changes.length === 1 ? 'entry' : 'entries'} changed)`,
    ...o.changes.map((c) => line('  ', c)),
    ...(o.keptUnknown.length > 0
      ? ['  kept fields this fusebench does not know:', ...o.keptUnknown.map((k) => line('    ', k))]
      : []),
    ...(o.droppedUnknown.length > 0
      ? [
          '  not carried over (unknown fields of a replaced measurement):',
          ...o.droppedUnknown.map((k) => line('    ', k)),
        ]
      : []),
    ...(o.removedTemp.length > 0
      ? [line(`  removed ${o.removedTemp.length} temporary file(s) of interrupted writes: `, o.removedTemp.join(', '))]
      : []),
  ];
}
