// `npm run perf`: the perf suites, one at a time in one process (they share the GPU), reported by the
// fusebench reporter. src/cli/perf.ts provides the parsed options (Vitest's provide/inject) and its own
// reporter; started directly (`npx vitest --config vitest.perf.config.ts`), the defaults below apply.
import { readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';
import { PerfReporter } from './reporters/perf-reporter.ts';
import { defaultPerfOptions } from './src/options.ts';

/** fusebench's version, from package.json. */
export const VERSION = (
  JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string }
).version;

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
