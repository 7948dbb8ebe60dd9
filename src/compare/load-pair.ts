/**
 * Reads the two results files `npm run compare` is given and refuses a pair that cannot be compared,
 * naming the file and what differs: another results schema version, another device model, or no case
 * measured in both.
 */
import { readJson } from '../base/json-read.ts';
import { asMeasured } from '../results/judged-timing.ts';
import { entryKey, type ResultsFile, resultsFileSchema, validateFile } from '../results/results.ts';

/** A results file and the path it was read from. */
export interface NamedRun {
  file: string;
  results: ResultsFile;
}

/** A pair of results files that cannot be compared; the message names the file and what differs. */
class IncomparableError extends Error {}

const versionOf = (data: unknown): unknown =>
  typeof data === 'object' && data !== null ? (data as { schemaVersion?: unknown }).schemaVersion : undefined;

/**
 * Why two parsed results files cannot be compared, or undefined when they can: their schema versions
 * differ (checked before validation, so the message says which file has which), their device models
 * differ (device.slug), or no case/shape/dtype was measured in both.
 */
function incomparable(base: NamedRun, head: NamedRun): string | undefined {
  const bd = base.results.device;
  const hd = head.results.device;
  if (bd.slug !== hd.slug) {
    return `${head.file} was measured on ${hd.name} (device.slug ${hd.slug}) but ${base.file} on ${bd.name} (device.slug ${bd.slug}): compare two runs of the same device model`;
  }
  const measured = (r: ResultsFile) =>
    new Set(r.cases.filter((c) => asMeasured(c)).map((c) => entryKey(c.case, c.shape.label, c.dtype)));
  const b = measured(base.results);
  const h = measured(head.results);
  if (![...h].some((k) => b.has(k))) {
    const list = (s: Set<string>) =>
      s.size === 0 ? 'none' : [...s].slice(0, 5).join(', ') + (s.size > 5 ? ', …' : '');
    return `${base.file} and ${head.file} have no case/shape/dtype measured in both (${base.file}: ${list(b)}; ${head.file}: ${list(h)})`;
  }
  return undefined;
}

/** Reads base and head, refusing a pair that cannot be compared (IncomparableError) or a broken file (Error). */
export function loadPair(baseFile: string, headFile: string): { base: NamedRun; head: NamedRun } {
  const rawBase = readJson(baseFile);
  const rawHead = readJson(headFile);
  const vb = versionOf(rawBase);
  const vh = versionOf(rawHead);
  for (const [file, v] of [
    [baseFile, vb],
    [headFile, vh],
  ] as const) {
    // A history record, a baseline file or any other JSON: no older results file, so no advice to re-run it.
    if (v === undefined) {
      throw new Error(
        `${file} has no schemaVersion: it is not a fusebench results file (perf writes fusebench-results.json)`,
      );
    }
  }
  if (vb !== vh) {
    // String(), not JSON.stringify: a version of 1e999 is Infinity, which JSON would print as null.
    const shown = (v: unknown) => (typeof v === 'number' ? String(v) : JSON.stringify(v));
    throw new IncomparableError(
      `${headFile} has results schemaVersion ${shown(vh)} but ${baseFile} has ${shown(vb)}: compare files written by the same fusebench schema (re-run the older one with this fusebench)`,
    );
  }
  const base = { file: baseFile, results: validateFile(resultsFileSchema, rawBase, baseFile) };
  const head = { file: headFile, results: validateFile(resultsFileSchema, rawHead, headFile) };
  const why = incomparable(base, head);
  if (why) throw new IncomparableError(why);
  return { base, head };
}
