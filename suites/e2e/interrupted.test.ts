// A perf run interrupted (Ctrl-C, a CI runner's cancel) ends by its signal and says in one line what it leaves:
// during the measurement nothing was written, and the results already in --out-dir stay as they were.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');

describe.runIf(process.platform === 'linux')('a perf run interrupted while it measures', () => {
  test.each(['SIGINT', 'SIGTERM', 'SIGQUIT'] as const)(
    '%s: says that nothing was written, keeps the run before, ends by the signal',
    async (signal) => {
      const out = mkdtempSync(join(tmpdir(), 'fusebench-interrupted-'));
      writeFileSync(join(out, 'fusebench-results.json'), 'the run before');
      const child = spawn(
        process.execPath,
        [
          ...['--experimental-strip-types', '--no-warnings=ExperimentalWarning', 'src/cli/perf.ts'],
          ...['--backend', 'cpu', '--case', 'gelu_scale', '--dtype', 'fp32', '--budget-ms', '2000', '--out-dir', out],
        ],
        { cwd: ROOT, env: { ...process.env, GITHUB_ACTIONS: '', CI: '1' } },
      );
      child.stdout.resume();
      let stderr = '';
      let sent = false;
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
        // Once the first shape has its line: the measurement is under way, nothing written yet.
        if (!sent && stderr.includes('[1/4]')) {
          sent = true;
          child.kill(signal);
        }
      });
      const [code, ended] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
        child.on('close', (c, s) => resolve([c, s])),
      );
      expect(sent, stderr).toBe(true);
      expect(code === null ? ended : code).toBe(
        code === null ? signal : { SIGINT: 130, SIGTERM: 143, SIGQUIT: 131 }[signal],
      );
      expect(stderr).toContain(
        `fusebench: interrupted by ${signal}: nothing was written (${out} holds what it held before)`,
      );
      expect(readFileSync(join(out, 'fusebench-results.json'), 'utf8')).toBe('the run before');
      expect(readdirSync(out)).toEqual(['fusebench-results.json']);
      // The device's lock is gone with the run (suites/support/device-lock-dir.ts: this file's own folder).
      expect(readdirSync(process.env.FUSEBENCH_DEVICE_LOCK_DIR as string)).toEqual([]);
    },
    120_000,
  );
});
