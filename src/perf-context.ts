/**
 * Per-process state of a perf run: the options (from the CLI, through the environment), the
 * chosen backend, and the device (opened once, on first use, since measuring its copy bandwidth
 * takes a moment).
 */
import { existsSync } from 'node:fs';
import { CASES } from './cases/index.ts';
import { type DeviceContext, openDevice, resolveBackend } from './device.ts';
import { type LoadedBaselines, baselinePath, loadBaselineFile } from './gate/baseline-file.ts';
import type { BackendName } from './cases/types.ts';
import { DEFAULT_BUDGET_MS, type PerfOptions, parsePerfArgs } from './options.ts';
import { freshSeed } from './rng.ts';

/** Environment variable through which the CLI hands its options to the Vitest workers. */
export const OPTIONS_ENV = 'FUSEBENCH_PERF_OPTIONS';

/** The run's options: those the CLI serialized, or the defaults when Vitest was started directly. */
export function perfOptions(env: NodeJS.ProcessEnv = process.env): PerfOptions {
  const raw = env[OPTIONS_ENV];
  if (raw) return JSON.parse(raw) as PerfOptions;
  const opts = parsePerfArgs([], { seed: freshSeed() });
  if (!opts) throw new Error('unreachable: no --help without arguments');
  env[OPTIONS_ENV] = JSON.stringify(opts);
  return opts;
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
  return `npm run perf -- --backend ${runBackend().backend} --update-baselines`;
}

/**
 * This device's baselines (or the file named by --baseline-file), loaded once; null when the
 * device has none. A broken file throws, naming the file and the field, before anything is measured.
 */
export function runBaselines(): LoadedBaselines | null {
  if (baselines !== undefined) return baselines;
  const opts = perfOptions();
  const file = opts.baselineFile ?? baselinePath(opts.baselinesDir, runDevice().description.slug);
  if (!opts.baselineFile && !existsSync(file)) {
    baselines = null;
    return baselines;
  }
  baselines = loadBaselineFile(
    file,
    CASES.map((c) => c.name),
  );
  for (const w of baselines.warnings) console.warn(`fusebench: ${w}`);
  return baselines;
}
