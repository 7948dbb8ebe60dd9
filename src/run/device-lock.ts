/**
 * The lock a perf run holds on the device it measures, so that two runs on one GPU (or one host's CPU) never
 * time each other's kernels, whatever folders they write into: a file in the system's temporary folder, or in
 * FUSEBENCH_DEVICE_LOCK_DIR (the tests give each file its own), named after the GPU's UUID, or "cpu".
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BackendName } from '../addon/device.ts';
import { cudaDeviceInfo } from '../addon/native.ts';
import { isPlainSlug } from '../base/device-slug.ts';

export function deviceLock(backend: BackendName, env: NodeJS.ProcessEnv = process.env): { lock: string; what: string } {
  const dir = env.FUSEBENCH_DEVICE_LOCK_DIR || tmpdir();
  if (backend === 'cpu') return { lock: join(dir, 'fusebench-device-cpu.lock'), what: "this host's CPU" };
  const gpu = cudaDeviceInfo();
  const id = gpu.uuid.toLowerCase();
  // A UUID is letters, digits and dashes; anything else (a driver's odd answer) names no file outside `dir`.
  const key = isPlainSlug(id) ? id : 'gpu';
  return { lock: join(dir, `fusebench-device-${key}.lock`), what: `the GPU ${gpu.name} (${gpu.uuid})` };
}
