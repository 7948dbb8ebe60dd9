/**
 * Where fusebench itself lives (this package's root), for the files it ships and reads wherever it is run
 * from: its perf suites' Vitest config, its cases, its per-GPU baselines.
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PACKAGE_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * A file of the package as a path to show and open: relative (`baselines`) when run from the package's
 * root, as every report has always named it; absolute from anywhere else.
 */
export function packagePath(relativePath: string): string {
  return resolve(process.cwd()) === resolve(PACKAGE_ROOT) ? relativePath : join(PACKAGE_ROOT, relativePath);
}
