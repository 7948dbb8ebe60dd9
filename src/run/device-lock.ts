/**
 * The lock a perf run holds on the device it measures, so that two runs on one GPU (or one host's CPU) never
 * time each other's kernels, whatever folders they write into: `fusebench-device-<GPU UUID, or cpu>.lock` in
 * /tmp, which every user and job of a host shares whatever its TMPDIR (os.tmpdir() where there is no /tmp), or
 * in FUSEBENCH_DEVICE_LOCK_DIR (the tests give each file its own). Processes of another container or host
 * that share the GPU do not see it.
 *
 * It is a guard, not what keeps files whole: a lock this user cannot take (a dead run of another user left it
 * in a sticky /tmp, which only its owner may delete, or a folder that cannot be written) is warned of, and
 * the run measures without it; only a live holder refuses the run.
 */
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BackendName } from '../addon/device.ts';
import { cudaDeviceInfo } from '../addon/native.ts';
import { isPlainSlug } from '../base/device-slug.ts';
import { holdRunLock } from '../gate/baseline-lock.ts';

/** Where the lock of `backend`'s device is, and how to name the device. */
export function deviceLock(backend: BackendName, env: NodeJS.ProcessEnv = process.env): { lock: string; what: string } {
  const dir = env.FUSEBENCH_DEVICE_LOCK_DIR || (process.platform !== 'win32' && existsSync('/tmp') ? '/tmp' : tmpdir());
  if (backend === 'cpu') return { lock: join(dir, 'fusebench-device-cpu.lock'), what: "this host's CPU" };
  const gpu = cudaDeviceInfo();
  const id = gpu.uuid.toLowerCase();
  // A UUID is letters, digits and dashes; anything else (a driver's odd answer) names no file outside `dir`.
  const key = isPlainSlug(id) ? id : 'gpu';
  return { lock: join(dir, `fusebench-device-${key}.lock`), what: `the GPU ${gpu.name} (${gpu.uuid})` };
}

/**
 * Holds the device's lock for this run; throws naming the holder while another live run holds it. A lock that
 * cannot be taken for a file system's reason is warned of (`warn`), and nothing is held.
 */
export function holdDeviceLock(
  backend: BackendName,
  command: string,
  warn: (m: string) => void = (m) => console.warn(m),
  env: NodeJS.ProcessEnv = process.env,
): () => void {
  const { lock, what } = deviceLock(backend, env);
  try {
    return holdRunLock(lock, what, { command, warn });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === undefined) throw e; // held by a live run, or a takeover that did not finish: said by holdRunLock
    warn(
      `fusebench: warning: measuring without the lock on ${what}, which keeps a second run off the device: ${lock} could not be taken (${code}: ${(e as Error).message}); a lock a finished run of another user left can be deleted by that user or root`,
    );
    return () => {};
  }
}
