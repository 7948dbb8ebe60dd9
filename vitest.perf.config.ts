// `npm run perf`: the perf suites, one at a time in one process (they share the GPU), reported by the
// fusebench reporter. src/cli/perf.ts provides the parsed options (Vitest's provide/inject) and its own
// reporter; started directly (`npx vitest --config vitest.perf.config.ts`), the defaults below apply.
import { defineConfig } from 'vitest/config';
import { VERSION } from './src/base/version.ts';
import { defaultPerfOptions } from './src/run/perf-options.ts';
import { PerfReporter } from './src/run/perf-reporter.ts';

const defaults = defaultPerfOptions();

export default defineConfig({
  test: {
    include: ['suites/perf/**/*.perf.ts'],
    pool: 'forks',
    fileParallelism: false,
    maxWorkers: 1,
    isolate: false,
    testTimeout: 30 * 60_000,
    hookTimeout: 10 * 60_000,
    provide: { fusebenchOptions: defaults },
    reporters: ['default', new PerfReporter(defaults, VERSION)],
  },
});
