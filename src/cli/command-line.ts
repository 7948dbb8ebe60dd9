/**
 * What fusebench's commands share: the exit-code scheme, the shape of a command's --help, strict parsing
 * of its arguments, and how a command ends the process. Only `runCommand` sets the exit code.
 */
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ParseArgsConfig } from 'node:util';
import { parseFlags } from '../base/cli-args.ts';
import { logLines } from '../base/log-text.ts';
import { CLOSED_OUTPUT, endOnClosedOutput } from '../base/signal-cleanup.ts';

/**
 * The one exit-code scheme of every fusebench command (docs/cli.md has the table per command):
 * 0 nothing regressed; 1 a regression or a failed check (a SLOWER case, FAILED numerics, an ERRORED
 * case, a results file that could not be written, a stale schema); 2 a usage or input error (a bad
 * flag, a file that cannot be read or is not valid, two runs that cannot be compared): nothing judged.
 */
export const EXIT = { ok: 0, regression: 1, usage: 2 } as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** A command: its arguments in, its exit code out; a thrown error is printed and exits EXIT.usage. */
export type CommandMain = (argv: string[]) => Promise<ExitCode>;

/** What a command's --help says: synopsis and options, examples, and what each exit code means for it. */
interface HelpText {
  /** `Usage: fusebench <command> ...` and the options, one per line. */
  usage: string;
  examples: string[];
  /** Per code of EXIT, what it means for this command; a code the command never uses is left out. */
  exits: { ok: string; regression?: string; usage: string };
}

/** The help text of a command: usage and options, then Examples and Exit codes (from EXIT). */
export function renderHelp(help: HelpText): string {
  const exits = (Object.keys(EXIT) as (keyof typeof EXIT)[]).flatMap((k) => {
    const what = help.exits[k];
    return what ? [exitLine(EXIT[k], what)] : [];
  });
  return [
    help.usage,
    '',
    'Examples:',
    ...help.examples.map((e) => `  ${e}`),
    '',
    'Exit codes:',
    ...exits,
    ...EARLY_END_LINES,
  ].join('\n');
}

/** Not fusebench's choice but the shell's, for every command: the code of a process ended by SIGINT. */
export const INTERRUPTED = 130;

/** The exit codes of a command ended before its end, whatever the command: the last lines of every list. */
export const EARLY_END_LINES = [
  exitLine(INTERRUPTED, "interrupted (Ctrl-C; 128 + the signal's number for another signal)"),
  exitLine(CLOSED_OUTPUT, 'a write after its reader has gone (`| head`), ended as SIGPIPE would end it'),
];

/** One line of an exit-code list, the codes in one column: `  2    what it means`. */
export function exitLine(code: number, what: string): string {
  return `  ${String(code).padEnd(3)}  ${what}`;
}

/** Whether a command line asks for help: `-h` or `--help` before any `--`. */
export function asksForHelp(argv: string[]): boolean {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).some((a) => a === '-h' || a === '--help');
}

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * Parses `argv` strictly against `options` plus -h/--help. A malformed command line is a UsageError ending
 * with `help`; with -h or --help the help is printed and the result is undefined (nothing more to do).
 */
export function parseCommandLine<const O extends Options>(argv: string[], options: O, help: string) {
  const parsed = parseFlags(
    argv,
    { ...options, help: { type: 'boolean', short: 'h' } } as O & { help: { type: 'boolean' } },
    help,
  );
  if ((parsed.values as { help?: boolean }).help) {
    console.log(help);
    return undefined;
  }
  return parsed;
}

/**
 * Runs a command with `argv` and ends with its exit code; a thrown error is printed as
 * "fusebench: <message>" and exits EXIT.usage (nothing was judged). A code already set by a library
 * (Vitest sets 1 for a failed test, 130 when interrupted) is never lowered. Output closed under it (a
 * reader that has gone: `| head`) ends it as SIGPIPE would (signal-cleanup.ts).
 */
export function runCommand(main: CommandMain, argv: string[]): void {
  // An output that cannot be written (a full disk) fails as a file not written does.
  endOnClosedOutput(EXIT.regression);
  main(argv).then(
    (code) => {
      if (code !== EXIT.ok) process.exitCode = Number(process.exitCode ?? 0) || code;
    },
    (e: unknown) => {
      // A message may quote a file's strings: each line through logLines (no workflow command, no escape).
      console.error(`fusebench: ${logLines(e instanceof Error ? e.message : String(e))}`);
      process.exitCode = EXIT.usage;
    },
  );
}

/**
 * Runs `main` on the process's arguments when the module at `moduleUrl` is the script Node was started
 * with (`node src/cli/compare.ts ...`, as older scripts and tests do); imported by the dispatcher, nothing.
 */
export function runIfEntry(moduleUrl: string, main: CommandMain): void {
  const script = process.argv[1];
  if (!script) return;
  let url: string;
  try {
    url = pathToFileURL(realpathSync(resolve(script))).href;
  } catch {
    return;
  }
  if (url === moduleUrl) runCommand(main, process.argv.slice(2));
}
