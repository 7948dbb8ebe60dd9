/**
 * `npm run perf`: parses fusebench's options, validates the baseline files (a broken one stops
 * the run before anything is measured), runs the perf suites through Vitest, and with
 * --update-baselines rewrites this device's baseline file. Only this entry point sets the exit code.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startVitest } from 'vitest/node';
import { writeFileAtomic } from '../atomic-write.ts';
import { formatJson } from '../json-format.ts';
import { findCase } from '../cases/index.ts';
import { baselineFileSchema, baselinePath, validateBaselineDir } from '../gate/baseline-file.ts';
import { currentCommit, updateBaselines } from '../gate/update.ts';
import { type PerfOptions, UsageError, parsePerfArgs } from '../options.ts';
import { OPTIONS_ENV } from '../perf-context.ts';
import { readJsonFile, readResults } from '../results.ts';
import { freshSeed } from '../rng.ts';

function checkInputs(options: PerfOptions): void {
  for (const c of options.cases) findCase(c);
  if (options.inject) findCase(options.inject.case);
  validateBaselineDir(options.baselinesDir);
  if (options.baselineFile) readJsonFile(baselineFileSchema, options.baselineFile);
}

function writeBaselines(options: PerfOptions): void {
  const results = readResults(join(options.outDir, 'fusebench-results.json'));
  const file = options.baselineFile ?? baselinePath(options.baselinesDir, results.device.slug);
  const existing = existsSync(file) ? readJsonFile(baselineFileSchema, file) : null;
  const { file: content, changes } = updateBaselines(existing, results, currentCommit());
  writeFileAtomic(file, formatJson(content));
  console.log(`\nfusebench: ${existing ? 'updated' : 'created'} ${file} (${changes.length} entries changed)`);
  for (const c of changes) console.log(`  ${c}`);
}

async function main(): Promise<void> {
  const options = parsePerfArgs(process.argv.slice(2), { seed: freshSeed() });
  if (!options) return;
  checkInputs(options);
  process.env[OPTIONS_ENV] = JSON.stringify(options);
  const vitest = await startVitest([], { config: 'vitest.perf.config.ts', run: true, watch: false });
  await vitest.close();
  if (options.updateBaselines && !process.exitCode) writeBaselines(options);
}

main().catch((e: unknown) => {
  console.error(e instanceof UsageError || e instanceof Error ? `fusebench: ${e.message}` : e);
  process.exitCode = process.exitCode || 2;
});
