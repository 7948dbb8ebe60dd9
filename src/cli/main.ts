/**
 * `fusebench <command> [options]` (bin/fusebench.mjs): dispatches to a command's `main`. Each command is
 * loaded only when asked for, so `fusebench compare` never loads Vitest or the native addon.
 */
import { logText } from '../base/log-text.ts';
import { VERSION } from '../base/version.ts';
import { type CommandMain, EARLY_END_LINES, EXIT, type ExitCode, exitLine, runCommand } from './command-line.ts';

interface Command {
  summary: string;
  load: () => Promise<{ main: CommandMain }>;
}

/** Every command, in the order the help lists them. */
const COMMANDS: Record<string, Command> = {
  perf: {
    summary: "measure every case, fused against unfused, and gate it against this device's baselines",
    load: () => import('./perf.ts'),
  },
  compare: {
    summary: 'compare two results files of one device model, case by case',
    load: () => import('./compare.ts'),
  },
  comment: {
    summary: "write the pull-request comment of one GPU's run",
    load: () => import('./comment.ts'),
  },
  merge: {
    summary: "merge several GPUs' runs into one BENCHMARK_RESULTS.md and one comment",
    load: () => import('./merge.ts'),
  },
  history: {
    summary: "show a device's history of runs, or append runs to it",
    load: () => import('./history.ts'),
  },
  site: {
    summary: "build the dashboard: one self-contained HTML page of each GPU's latest run, roofline and history",
    load: () => import('./site.ts'),
  },
  schema: {
    summary: 'write (or --check) the JSON Schema of the results file',
    load: () => import('./schema.ts'),
  },
  'lint-workflows': {
    summary: 'check the GitHub workflows with actionlint and shellcheck',
    load: () => import('./lint-workflows.ts'),
  },
};

const NAMES = Object.keys(COMMANDS);

const HELP = [
  `fusebench ${VERSION}: a performance-regression suite for fused GPU kernels`,
  '',
  'Usage: fusebench <command> [options]',
  '       fusebench <command> --help',
  '',
  'Commands:',
  ...Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(16)}${c.summary}`),
  '',
  'Each command is also an npm script of this repository: `npm run <command> -- [options]`',
  '(lint-workflows is `npm run lint:workflows`).',
  '',
  'Exit codes (every command; its --help says what each means for it):',
  exitLine(EXIT.ok, 'nothing regressed'),
  exitLine(EXIT.regression, 'a regression or a failed check (SLOWER, FAILED numerics, ERRORED, a file not written)'),
  exitLine(EXIT.usage, 'a usage or input error: nothing was judged (a Node too old for fusebench too)'),
  ...EARLY_END_LINES,
].join('\n');

async function main(argv: string[]): Promise<ExitCode> {
  const [name, ...rest] = argv;
  const commandOf = (n: string) => (Object.hasOwn(COMMANDS, n) ? COMMANDS[n] : undefined);
  const unknown = (n: string): ExitCode => {
    console.error(`fusebench: unknown command '${logText(n)}'; valid commands: ${NAMES.join(', ')}`);
    console.error('Run `fusebench --help` for what each does.');
    return EXIT.usage;
  };
  if (name === '-h' || name === '--help' || name === 'help') {
    // `help perf`, `--help perf`: one command's help. A word more is a mistake, not something to ignore.
    if (rest.length > 1) return extraArguments(name, rest.slice(1), 'at most the command to help with');
    const asked = rest[0];
    if (asked === undefined || asked === '-h' || asked === '--help') {
      console.log(HELP);
      return EXIT.ok;
    }
    const about = commandOf(asked);
    return about ? (await about.load()).main(['--help']) : unknown(asked);
  }
  if (name === '--version' || name === '-V') {
    if (rest.length > 0) return extraArguments(name, rest, 'no arguments');
    console.log(VERSION);
    return EXIT.ok;
  }
  if (name === undefined) {
    console.error(HELP);
    return EXIT.usage;
  }
  const command = commandOf(name);
  return command ? (await command.load()).main(rest) : unknown(name);
}

/** A usage error for words `name` does not take (exit 2). */
function extraArguments(name: string, extra: string[], takes: string): ExitCode {
  console.error(`fusebench: ${name} takes ${takes}; got '${logText(extra.join(' '))}'`);
  return EXIT.usage;
}

runCommand(main, process.argv.slice(2));
