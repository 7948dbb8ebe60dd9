// A child process for the baseline-lock tests: records one measured gelu_scale shape into a baseline
// file through the real update path (lock, re-read, merge, atomic write), as `--update-baselines`
// would, and prints the outcome.
//
//   node --experimental-strip-types suites/support/baseline-writer.ts <file> <label> [<ready> <go>]
//
// With <ready> and <go>, the write stops inside the atomic write, after the temporary file is written
// and before it is flushed and renamed: the child creates <ready> and waits, synchronously, until <go>
// exists. That is where a kill or a second writer meets it.
import fs, { existsSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { outcomeLines, recordBaselines } from '../../src/gate/record-baselines.ts';
import { oneShapeResults } from './measured-case.ts';

const [file, label, ready, go] = process.argv.slice(2);
if (!file || !label) throw new Error('usage: baseline-writer.ts <file> <label> [<ready> <go>]');

if (ready && go) {
  const fsync = fs.fsyncSync;
  let first = true;
  // Linux: /proc/self/fd names the file behind a descriptor; only the temporary file's flush waits.
  const isTemp = (fd: number) => fs.readlinkSync(`/proc/self/fd/${fd}`).endsWith('.tmp');
  fs.fsyncSync = (fd: number) => {
    if (first && isTemp(fd)) {
      first = false;
      writeFileSync(ready, String(process.pid));
      const nap = new Int32Array(new SharedArrayBuffer(4));
      while (!existsSync(go)) Atomics.wait(nap, 0, 0, 10);
    }
    fsync(fd);
  };
  // The ESM named exports of node:fs (which atomic-write.ts imports) follow the patched function.
  syncBuiltinESMExports();
}

const results = oneShapeResults(label, `baseline-writer ${label}`);

const outcome = await recordBaselines(file, results, `commit-${label}`, {
  command: `baseline-writer ${label}`,
  waitMs: Number(process.env.LOCK_WAIT_MS ?? 60_000),
  pollMs: 20,
  warn: (m) => console.error(m),
});
for (const line of outcomeLines(outcome)) console.log(line);
