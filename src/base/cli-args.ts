/**
 * What every command line of fusebench shares: the error a bad argument raises, strict number arguments and
 * link arguments.
 */
import { resolve } from 'node:path';
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { logText } from './log-text.ts';

/** Thrown for a bad command line or input; the message says what was expected. Every command exits 2 on it. */
export class UsageError extends Error {}

// Plain decimal notation only: Number() would also take '', ' ', '0x1F', '0b1' and 'Infinity'.
const DECIMAL = /^(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$/i;
const DIGITS = /^\d+$/;

/** A command-line number in plain decimal notation ('0.05', '1e-3'); NaN for anything else ('', '0x1F'). */
export function decimalArg(raw: string): number {
  return DECIMAL.test(raw) ? Number(raw) : Number.NaN;
}

/** A command-line whole number written in digits only; NaN for anything else ('', '1e3', '0x1F', '-1'). */
export function digitsArg(raw: string): number {
  return DIGITS.test(raw) ? Number(raw) : Number.NaN;
}

/**
 * A positive number for `--flag` (undefined when the flag is absent); throws naming the flag, the range
 * and the value otherwise.
 */
export function positiveArg(
  flag: string,
  raw: string | undefined,
  integer: boolean,
  max = Number.MAX_VALUE,
): number | undefined {
  if (raw === undefined) return undefined;
  const v = integer ? digitsArg(raw) : decimalArg(raw);
  if (!Number.isFinite(v) || v <= 0 || v > max || (integer && !Number.isSafeInteger(v))) {
    const range = max < Number.MAX_VALUE ? ` up to ${max}` : '';
    throw new UsageError(
      `Expected a positive ${integer ? 'integer' : 'number'}${range} for --${flag} but received '${raw}'`,
    );
  }
  return v;
}

/**
 * The paths of a command line, each file once (by where it resolves): a file named twice (a glob and its file, a
 * path written two ways) is read once, and each naming of it after the first is a warning on stderr, not a problem
 * that fails the command.
 */
export function onceEach(paths: readonly string[]): string[] {
  const seen = new Set<string>();
  return paths.filter((p) => {
    const at = resolve(p);
    if (!seen.has(at)) {
      seen.add(at);
      return true;
    }
    console.warn(`fusebench: ${logText(p)} is given more than once; it is read once`);
    return false;
  });
}

/** δ from --delta: a fraction in (0, 1), 0.05 = ±5%; undefined without it. perf and compare both take it. */
export function deltaArg(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const v = decimalArg(raw);
  if (!Number.isFinite(v) || v <= 0 || v >= 1)
    throw new UsageError(`Expected a fraction between 0 and 1 for --delta (0.05 = ±5%) but received '${raw}'`);
  return v;
}

// http(s), a host, and no space, quote, angle bracket, backtick or backslash anywhere: a link that Markdown and
// HTML carry as given. Anything else would be dropped from the reports' links without a word.
const HTTP_URL = /^https?:\/\/[^\s/"'<>`\\]+(\/[^\s"'<>`\\]*)?$/;

/** The path given for `--flag` (undefined when absent); an empty one names no file or folder: refused. */
export function pathArg(flag: string, raw: string | undefined): string | undefined {
  if (raw === '') throw new UsageError(`Expected a path for --${flag} but received ''`);
  return raw;
}

/** The URL given for `--flag` (undefined when absent); throws naming the flag unless it is such a link. */
export function urlArg(flag: string, raw: string | undefined): string | undefined {
  if (raw === undefined || HTTP_URL.test(raw)) return raw;
  throw new UsageError(
    `Expected an http(s) URL without spaces, quotes or angle brackets for --${flag} but received '${logText(raw)}'`,
  );
}

/**
 * Throws naming the first option of one value (a string option without `multiple`) given more than once:
 * parseArgs keeps the last without a word, so `--results a.json --results b.json` would read only b.json.
 */
function refuseRepeated(
  tokens: readonly { kind: string; name?: string }[],
  options: Record<string, { type: string; multiple?: boolean }>,
): void {
  const seen = new Set<string>();
  for (const t of tokens) {
    if (t.kind !== 'option' || t.name === undefined) continue;
    const o = Object.hasOwn(options, t.name) ? options[t.name] : undefined;
    if (o?.type !== 'string' || o.multiple) continue;
    if (seen.has(t.name)) throw new Error(`Option '--${t.name}' given twice; it takes one value`);
    seen.add(t.name);
  }
}

/**
 * `--flag -1` reaches parseArgs as a flag followed by what looks like another option, which it rejects
 * as "ambiguous"; joined as `--flag=-1` (for a flag that takes a value), the value is checked like any
 * other and refused by name.
 */
function joinNegativeValues(argv: string[], takesValue: (flag: string) => boolean): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    // After `--` every argument is a positional one, as parseArgs reads it: none is joined.
    if (a === '--') return [...out, ...argv.slice(i)];
    const next = argv[i + 1];
    if (a.startsWith('--') && !a.includes('=') && takesValue(a.slice(2)) && next !== undefined && /^-\d/.test(next)) {
      out.push(`${a}=${next}`);
      i++;
    } else out.push(a);
  }
  return out;
}

/**
 * Runs a check that an output can be written (atomic-write.ts's checkWritableDir or checkWritableFile), before a
 * command's work: its failure is a usage error, `<what>: <why>`, where `what` names the flag and its value.
 */
export function checkOutput(what: string, check: () => void): void {
  try {
    check();
  } catch (e) {
    throw new UsageError(`${what}: ${(e as Error).message}`);
  }
}

/**
 * The message of parseArgs's error for a command line it refuses, in fusebench's words: an unknown option
 * named as one escaped line, and where the command takes arguments, how to pass one that starts with '-'
 * (Node's own advice leaves a quote open). Any other error's message as it is.
 */
function parseArgsMessage(e: unknown): string {
  const message = e instanceof Error ? e.message : String(e);
  if ((e as NodeJS.ErrnoException).code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return message;
  // Node ends the advice with the option as a JSON string (`as in '-- "--x"`); alone, the message ends with it.
  const advised = /as in '-- (".*")$/s.exec(message)?.[1];
  const option = advised ? (JSON.parse(advised) as string) : /^Unknown option '(.*)'$/s.exec(message)?.[1];
  if (option === undefined) return message;
  const named = `Unknown option ${JSON.stringify(option)}`;
  return advised ? `${named} (an argument that starts with '-' goes after '--')` : named;
}

/** parseArgs's options: each flag's type, and whether it repeats or has a short form. */
type FlagOptions = NonNullable<ParseArgsConfig['options']>;

/**
 * Parses `argv` strictly against `options` (every fusebench command and perf alike): a negative value joined to its
 * flag, a one-value flag given twice refused, and a malformed command line a UsageError ending with `help`.
 */
export function parseFlags<const O extends FlagOptions>(argv: string[], options: O, help: string, positionals = true) {
  try {
    const parsed = parseArgs({
      args: joinNegativeValues(argv, (flag) => Object.hasOwn(options, flag) && options[flag]?.type === 'string'),
      strict: true,
      allowPositionals: positionals,
      tokens: true,
      options,
    });
    refuseRepeated(parsed.tokens, options);
    // `--out=` or `--baselines-dir ""` (an unset variable in a script) named no file: it was taken as "not given".
    for (const t of parsed.tokens) {
      if (t.kind === 'option' && t.value === '' && t.name !== undefined)
        throw new Error(`Option '--${t.name}' needs a value; it was given an empty one`);
    }
    return parsed;
  } catch (e) {
    throw new UsageError(`${parseArgsMessage(e)}\n\n${help}`);
  }
}
