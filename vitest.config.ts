// `npm test`: unit tests, numerics on the backend at hand, and a short end-to-end perf run.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['suites/unit/**/*.test.ts', 'suites/e2e/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 120_000,
  },
});
