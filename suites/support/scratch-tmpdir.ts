// Vitest's global setup for `npm test`: every test's temporary files (mkdtemp under os.tmpdir(), and those of the
// CLIs, perf runs and browsers the tests start) go into one folder made for the run, removed when it ends. Tests
// make hundreds of folders a run; left in /tmp, they filled a shared GPU runner's disk run after run (3.5 GB here).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const before = process.env.TMPDIR;
  const dir = mkdtempSync(join(tmpdir(), 'fusebench-test-run-'));
  // Set before Vitest starts its workers, which inherit it (os.tmpdir() reads TMPDIR on every call).
  process.env.TMPDIR = dir;
  return () => {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    } catch (e) {
      // A process a test left running may still write there: the run's result stands, and the folder is named.
      console.warn(`could not remove the test run's temporary folder ${dir}: ${(e as Error).message}`);
    }
  };
}
