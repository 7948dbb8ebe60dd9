/**
 * What the small command-line tools (comment, compare, history, merge) share: strict parsing of their
 * arguments, --help, and how a failure ends the process. Only `runCommand` sets the exit code.
 */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { UsageError } from '../base/cli-args.ts';
import { logLines } from '../base/log-text.ts';

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * Parses `argv` strictly against `options` plus --help. A malformed command line is a UsageError ending
 * with `help`; with --help the help is printed and the result is undefined (nothing more to do).
 */
export function parseCommandLine<const O extends Options>(argv: string[], options: O, help: string) {
  let parsed: ReturnType<typeof parseWith<O>>;
  try {
    parsed = parseWith(argv, options);
  } catch (e) {
    throw new UsageError(`${(e as Error).message}\n\n${help}`);
  }
  if ((parsed.values as { help?: boolean }).help) {
    console.log(help);
    return undefined;
  }
  return parsed;
}

function parseWith<const O extends Options>(argv: string[], options: O) {
  return parseArgs({
    args: argv,
    strict: true,
    allowPositionals: true,
    options: { ...options, help: { type: 'boolean' } } as O & { help: { type: 'boolean' } },
  });
}

/**
 * Runs a tool's main: an error is printed as "fusebench: <message>" and exits with `failureCode(e)`
 * (by default 2 for a usage error, 1 otherwise).
 */
export function runCommand(
  main: () => Promise<void>,
  failureCode: (e: unknown) => number = (e) => (e instanceof UsageError ? 2 : 1),
): void {
  main().catch((e: unknown) => {
    // A message may quote a file's strings: each line through logLines (no workflow command, no escape).
    console.error(`fusebench: ${logLines(e instanceof Error ? e.message : String(e))}`);
    process.exitCode = failureCode(e);
  });
}
