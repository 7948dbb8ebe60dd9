/**
 * `npm run schema [-- --check]`: writes the results JSON Schema generated from src/results/results.ts to
 * schema/fusebench-results.v<version>.schema.json; with --check, only says whether the committed file is
 * current (exit 1 when not). Only this entry point sets the exit code.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../base/atomic-write.ts';
import { RESULTS_JSON_SCHEMA_FILE, renderResultsJsonSchema } from '../results/results-json-schema.ts';

const root = join(import.meta.dirname, '..', '..');
const file = join(root, RESULTS_JSON_SCHEMA_FILE);
const content = renderResultsJsonSchema();

if (process.argv.includes('--check')) {
  let committed = '';
  try {
    committed = readFileSync(file, 'utf8');
  } catch {
    // Missing: not current.
  }
  if (committed === content) console.log(`${RESULTS_JSON_SCHEMA_FILE} is current`);
  else {
    console.error(
      `${RESULTS_JSON_SCHEMA_FILE} differs from the schema in src/results/results.ts: run \`npm run schema\``,
    );
    process.exitCode = 1;
  }
} else {
  writeFileAtomic(file, content);
  console.log(`wrote ${RESULTS_JSON_SCHEMA_FILE}`);
}
