/**
 * The results a perf run finds in its output folder are kept before it writes its own: moved (one rename,
 * atomic) to `<out-dir>/previous/fusebench-results.json`, over the run kept before them. One run back is
 * what a kernel edit is measured against while it is being made; `fusebench compare` takes the two files.
 * Only the results file is kept: every report is rendered from it (`fusebench merge`). perf checks before it
 * measures that the run before can be kept, and never writes over one it could not keep.
 */
import { lstatSync, mkdirSync, renameSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { checkWritableDir } from '../base/atomic-write.ts';
import { logText } from '../base/log-text.ts';
import { shellWord } from '../base/shell-words.ts';
import { RESULTS_JSON } from '../results/results.ts';

/** Where the run before is kept, inside the output folder. */
const PREVIOUS_DIR = 'previous';

/** What keeping the run before did: the file it is now, or why it could not be kept (the run goes on). */
export type KeptRun = { kept: string } | { failure: string } | undefined;

/**
 * Whether `<outDir>/fusebench-results.json` holds a run to keep: a file, or a link (moved as a link, so its
 * target is never written over by this run); a folder is not ours to move.
 */
function hasRunBefore(current: string): boolean {
  const s = lstatIfAny(current);
  return s !== undefined && !s.isDirectory();
}

/**
 * The lock a perf run holds in its --out-dir while it runs, so that a second run into the same folder is refused
 * instead of moving the first one's "run before" aside and losing it.
 */
export const OUT_DIR_LOCK = '.fusebench-perf.lock';

/**
 * Throws naming the paths when `<outDir>` holds a run that could not be kept (`previous/` or its results file
 * a folder, or not writable): checked before anything is measured.
 */
export function checkPreviousRunKeepable(outDir: string): void {
  const current = join(outDir, RESULTS_JSON);
  if (!hasRunBefore(current)) return;
  const kept = join(outDir, PREVIOUS_DIR, RESULTS_JSON);
  // What the rename needs, and no more: previous/ a folder files can be made in, and no folder at `kept` (a link
  // there is replaced, never followed). A previous/ not there yet is not made now (a run refused or stopped
  // before its end would leave it empty): the folder it would be made in is checked instead.
  const previous = join(outDir, PREVIOUS_DIR);
  try {
    if (lstatIfAny(kept)?.isDirectory()) throw new Error(`${kept} is a folder`);
    checkWritableDir(lstatIfAny(previous) ? previous : outDir);
  } catch (e) {
    throw new Error(`the run ${current} holds could not be kept as ${kept}: ${(e as Error).message}`);
  }
}

function lstatIfAny(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

/**
 * Moves `<outDir>/fusebench-results.json`, a file or a link (hasRunBefore), to `<outDir>/previous/`; nothing when
 * there is none.
 */
export function keepPreviousRun(outDir: string): KeptRun {
  const current = join(outDir, RESULTS_JSON);
  if (!hasRunBefore(current)) return undefined;
  const kept = join(outDir, PREVIOUS_DIR, RESULTS_JSON);
  try {
    mkdirSync(join(outDir, PREVIOUS_DIR), { recursive: true });
    renameSync(current, kept);
    return { kept };
  } catch (e) {
    return { failure: `${current} could not be kept as ${kept}: ${(e as Error).message}` };
  }
}

/** A path as one shell word that no command reads as a flag: quoted unless plain, `./` before a leading `-`. */
const pathWord = (path: string) => shellWord(path.startsWith('-') ? `./${path}` : path);

/**
 * The line after "wrote …": where the run before is kept and, when this run's results were written beside
 * it, the command that compares the two; a warning when it could not be kept.
 */
export function keptRunLine(kept: KeptRun, current: string, written: boolean): string | undefined {
  if (!kept) return undefined;
  if ('failure' in kept) return logText(`fusebench: warning: ${kept.failure}`);
  if (!written) return logText(`the run before is kept as ${kept.kept}; this run's results were not written`);
  return logText(
    `the run before is kept as ${kept.kept}: npx fusebench compare ${pathWord(kept.kept)} ${pathWord(current)}`,
  );
}
