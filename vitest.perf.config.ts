// `npm run perf`: the perf suites, one at a time in one process (they share the GPU), reported by
// the fusebench reporter. Options arrive from src/cli/perf.ts through the environment.
import { readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';
import { PerfReporter } from './reporters/perf-reporter.ts';
import { perfOptions } from './src/perf-context.ts';

const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };

export default defineConfig({
  test: {
    include: ['suites/perf/**/*.perf.ts'],
    pool: 'forks',
    fileParallelism: false,
    maxWorkers: 1,
    isolate: false,
    testTimeout: 30 * 60_000,
    hookTimeout: 10 * 60_000,
    reporters: ['default', new PerfReporter(perfOptions(), version)],
  },
});
