/** What the perf run hands across Vitest's boundary: the options in (provide/inject), each test's result out (task meta). */
import type { DeviceDescription } from '../addon/device.ts';
import type { CaseResult } from '../results/results.ts';
import type { PerfOptions } from './perf-options.ts';

/** Attached to every perf test as `task.meta.fusebench`. */
export interface PerfMeta {
  result: CaseResult;
  device: DeviceDescription;
  backendReason: string;
  budgetMs: number;
}

declare module 'vitest' {
  interface TaskMeta {
    fusebench?: PerfMeta;
  }
  interface ProvidedContext {
    /** The perf run's options (src/cli/perf.ts provides them; vitest.perf.config.ts has the defaults). */
    fusebenchOptions: PerfOptions;
  }
}
