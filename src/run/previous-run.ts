/**
 * The results a perf run finds in its output folder are kept before it writes its own: moved (one rename,
 * atomic) to `<out-dir>/previous/fusebench-results.json`, over the run kept before them. One run back is
 * what a kernel edit is measured against while it is being made; `fusebench compare` takes the two files.
 * Only the results file is kept: every report is rendered from it (`fusebench merge`). perf checks before it
 * measures that the run before can be kept, and never writes over one it could not keep.
 */
import { lstatSync, mkdirSync, renameSync, type Stats } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { checkWritableDir } from '../base/atomic-write.ts';
import { readJson } from '../base/json-read.ts';
import { hasControlCharacters, logText } from '../base/log-text.ts';
import { PACKAGE_ROOT } from '../base/package-root.ts';
import { shellWord } from '../base/shell-words.ts';
import { RESULTS_JSON, type ResultsFile } from '../results/results.ts';

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
 * How a user in `cwd` runs fusebench: `npx fusebench` inside its checkout (npx finds its bin there); elsewhere
 * npx would look in the npm registry, so the path of its bin.
 */
export function fusebenchCommand(cwd: string = process.cwd()): string {
  const rel = relative(PACKAGE_ROOT, cwd);
  const inside = rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
  return inside ? 'npx fusebench' : `node ${pathWord(join(PACKAGE_ROOT, 'bin', 'fusebench.mjs'))}`;
}

/**
 * The line after "wrote …": where the run before is kept and, when this run's results were written beside
 * it, the command that compares the two (run as `fusebenchCommand`); a warning when it could not be kept.
 */
export function keptRunLine(
  kept: KeptRun,
  current: string,
  written: boolean,
  notComparable?: string,
  fusebenchCommand = 'npx fusebench',
): string | undefined {
  if (!kept) return undefined;
  if ('failure' in kept) return logText(`fusebench: warning: ${kept.failure}`);
  if (!written) return logText(`the run before is kept as ${kept.kept}; this run's results were not written`);
  // A command that would only exit 2 ("no case measured in both") is not offered.
  if (notComparable)
    return logText(`the run before is kept as ${kept.kept} (not comparable with this run: ${notComparable})`);
  // A control character is made visible in the line (logText), so a pasted command would name another path.
  if (hasControlCharacters(kept.kept) || hasControlCharacters(current))
    return logText(
      `the run before is kept as ${kept.kept}; compare the two with fusebench compare (their paths hold control characters, which no command to paste keeps)`,
    );
  return logText(
    `the run before is kept as ${kept.kept}: ${fusebenchCommand} compare ${pathWord(kept.kept)} ${pathWord(current)}`,
  );
}

/**
 * Why the kept run and this one cannot be compared, as `fusebench compare` would refuse them: not JSON, another
 * device model, or no shape measured in both (a `--case` run into a folder that held another case's run). Only
 * the fields that say so are read; compare itself checks the whole file.
 */
export function whyNotComparable(kept: KeptRun, current: ResultsFile): string | undefined {
  if (!kept || 'failure' in kept) return undefined;
  let before: { device?: { slug?: unknown; name?: unknown }; cases?: unknown };
  try {
    before = (readJson(kept.kept) ?? {}) as typeof before;
  } catch {
    return 'it cannot be read as a results file';
  }
  if (before.device?.slug !== current.device.slug)
    return `it measured ${String(before.device?.name ?? 'another device')}`;
  const measured = new Set(current.cases.filter((c) => c.status === 'measured').map((c) => c.key));
  const cases = Array.isArray(before.cases) ? (before.cases as { key?: unknown; status?: unknown }[]) : [];
  if (!cases.some((c) => c?.status === 'measured' && typeof c.key === 'string' && measured.has(c.key)))
    return 'no shape measured in both';
  return undefined;
}
