// Runs `npm run perf`'s entry point in a child process, as a user would, and collects what it left.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

/** The repository root. */
const ROOT = join(import.meta.dirname, '..', '..');

/**
 * Runs src/cli/perf.ts with `args` (killed after `timeoutMs` when given; `env` added to the environment);
 * returns its exit status and output.
 */
export function runPerf(
  args: string[],
  timeoutMs?: number,
  env: NodeJS.ProcessEnv = {},
): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(
    process.execPath,
    ['--experimental-strip-types', '--no-warnings=ExperimentalWarning', 'src/cli/perf.ts', ...args],
    {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, GITHUB_ACTIONS: '', ...env },
      timeout: timeoutMs,
      killSignal: 'SIGKILL',
    },
  );
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A perf run of one small shape on the CPU backend: gelu_scale 1K in fp32. */
export const ONE_SMALL_CPU_SHAPE = [
  '--backend',
  'cpu',
  '--case',
  'gelu_scale',
  '--dtype',
  'fp32',
  '--max-elements',
  '1024',
];
