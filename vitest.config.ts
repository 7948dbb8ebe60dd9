// `npm test`: unit tests, numerics on the backend at hand (each case folder's tests too), the gate's simulations, and short
// end-to-end perf runs on the CPU backend. The simulations are CPU-heavy: run files in parallel.
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['suites/unit/**/*.test.ts', 'suites/e2e/**/*.test.ts', 'cases/**/*.test.ts'],
    pool: 'forks',
    globalSetup: ['suites/support/scratch-tmpdir.ts'],
    setupFiles: ['suites/support/device-lock-dir.ts'],
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 300_000,
    hookTimeout: 300_000,
  },
});
