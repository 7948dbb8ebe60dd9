// A child process for the baseline-lock tests: records one measured gelu_scale shape into a baseline
// file through the real update path (lock, re-read, merge, atomic write), as `--update-baselines`
// would, and prints the outcome.
//
//   node --experimental-strip-types suites/unit/baseline-writer.ts <file> <label> [<ready> <go>]
//
// With <ready> and <go>, the write stops inside the atomic write, after the temporary file is written
// and before it is flushed and renamed: the child creates <ready> and waits, synchronously, until <go>
// exists. That is where a kill or a second writer meets it.
import fs, { existsSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { outcomeLines, recordBaselines } from '../../src/gate/record-baselines.ts';
import type { ResultsFile } from '../../src/results.ts';
import { measuredCase } from './measured-case.ts';

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

const n = 40;
const results: ResultsFile = {
  schemaVersion: 1,
  tool: { name: 'fusebench', version: '0.1.0' },
  createdAt: new Date().toISOString(),
  command: `baseline-writer ${label}`,
  backendReason: 'test',
  settings: { budgetMs: 1000, minPairs: 30, targetHalfWidth: 0.01, seed: 1 },
  device: {
    backend: 'cpu',
    name: 'Test CPU',
    slug: 'test-cpu',
    details: {},
    fingerprint: {},
    copyBandwidthGBs: 10,
    freeMemoryBytes: 1e9,
  },
  cases: [
    measuredCase(
      label,
      Array.from({ length: n }, (_, i) => 2 + 0.01 * Math.sin(i)),
      Array.from({ length: n }, (_, i) => 1 + 0.01 * Math.cos(i)),
    ),
  ],
};

const outcome = await recordBaselines(file, results, `commit-${label}`, {
  command: `baseline-writer ${label}`,
  waitMs: Number(process.env.LOCK_WAIT_MS ?? 60_000),
  pollMs: 20,
  warn: (m) => console.error(m),
});
for (const line of outcomeLines(outcome)) console.log(line);
