// Vitest's setup for each test file of `npm test`: the perf runs a file starts take their device lock
// (src/run/device-lock.ts) in a folder of that file's own, so that files running at once on this host's CPU
// do not refuse each other's runs. A test of the lock itself points two runs at one folder.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

process.env.FUSEBENCH_DEVICE_LOCK_DIR = mkdtempSync(join(tmpdir(), 'fusebench-device-lock-'));
