/**
 * Per-process state of a perf run: the options (from the CLI, through the environment), the
 * chosen backend, and the device (opened once, on first use, since measuring its copy bandwidth
 * takes a moment).
 */
import { type DeviceContext, openDevice, resolveBackend } from './device.ts';
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
