/**
 * `npm run perf`: parses fusebench's options, hands them to Vitest's workers through the
 * environment, and runs the perf suites. Only this entry point sets the exit code.
 */
import { startVitest } from 'vitest/node';
import { UsageError, parsePerfArgs } from '../options.ts';
import { OPTIONS_ENV } from '../perf-context.ts';
import { freshSeed } from '../rng.ts';

async function main(): Promise<void> {
  const options = parsePerfArgs(process.argv.slice(2), { seed: freshSeed() });
  if (!options) return;
  process.env[OPTIONS_ENV] = JSON.stringify(options);
  const vitest = await startVitest([], { config: 'vitest.perf.config.ts', run: true, watch: false });
  await vitest.close();
}

main().catch((e: unknown) => {
  console.error(e instanceof UsageError ? e.message : e);
  process.exitCode = process.exitCode || 2;
});
