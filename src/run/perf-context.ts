/**
 * Per-process state of a perf run inside the Vitest worker: the options (handed over by Vitest's
 * `provide`/`inject`: from src/cli/perf.ts, or the config's defaults when Vitest is started directly),
 * the chosen backend, and the device (opened once, on first use, since measuring its copy bandwidth
 * takes a moment).
 */
import { existsSync } from 'node:fs';
import { inject } from 'vitest';
import type { BackendName } from '../addon/device.ts';
import { type DeviceContext, openDevice, resolveBackend } from '../addon/device.ts';
import { baselinePath, type LoadedBaselines, loadBaselineFile } from '../gate/baseline-file.ts';
import { recordCommand } from '../gate/record-baselines.ts';
import { DEFAULT_BUDGET_MS, type PerfOptions } from './perf-options.ts';
import './perf-meta.ts';
import { logText } from '../base/log-text.ts';

/** The run's options, as provided to this worker. */
export function perfOptions(): PerfOptions {
  return inject('fusebenchOptions');
}

let backend: { backend: BackendName; why: string } | undefined;
let device: DeviceContext | undefined;

/** The backend this process measures on (resolved once). */
export function runBackend(): { backend: BackendName; why: string } {
  backend ??= resolveBackend(perfOptions().backend);
  return backend;
}

/** The opened device (opened once). */
export function runDevice(): DeviceContext {
  device ??= openDevice(runBackend().backend);
  return device;
}

/** The per-shape budget in effect. */
export function budgetMs(): number {
  return perfOptions().budgetMs ?? DEFAULT_BUDGET_MS[runBackend().backend];
}

let baselines: LoadedBaselines | null | undefined;

/** The command that records this device's baselines from a run like this one. */
export function updateCommand(): string {
  return recordCommand(runBackend().backend, perfOptions().baselinesDir);
}

/**
 * This device's baselines (or the file named by --baseline-file), loaded once; null when the device
 * has none. A broken file throws, naming the file and the field, before anything is measured; entries
 * for cases not in `knownCases` are reported once.
 */
export function runBaselines(knownCases: readonly string[]): LoadedBaselines | null {
  if (baselines !== undefined) return baselines;
  const opts = perfOptions();
  const file = opts.baselineFile ?? baselinePath(opts.baselinesDir, runDevice().description.slug);
  // No file yet: the device has no baselines (a --baseline-file named for --update-baselines is created).
  if (!existsSync(file) && (!opts.baselineFile || opts.updateBaselines)) {
    baselines = null;
    return baselines;
  }
  baselines = loadBaselineFile(file, knownCases);
  for (const w of baselines.warnings) console.warn(`fusebench: ${logText(w)}`);
  return baselines;
}
