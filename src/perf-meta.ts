/** What each perf test hands to the reporter through Vitest's task meta. */
import type { DeviceDescription } from './device.ts';
import type { CaseResult } from './results.ts';

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
}
