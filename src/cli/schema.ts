/**
 * `fusebench schema [--check]` (`npm run schema [-- --check]`): writes the results JSON Schema generated
 * from src/results/results.ts to schema/fusebench-results.v<version>.schema.json; with --check, only says
 * whether the committed file is current (exit 1 when not). -h/--help prints help and writes nothing.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../base/atomic-write.ts';
import { UsageError } from '../base/cli-args.ts';
import { RESULTS_JSON_SCHEMA_FILE, renderResultsJsonSchema } from '../results/results-json-schema.ts';
import { EXIT, type ExitCode, parseCommandLine, renderHelp, runIfEntry } from './command-line.ts';

const HELP = renderHelp({
  usage: `Usage: fusebench schema [--check]
Writes the JSON Schema of fusebench-results.json, generated from src/results/results.ts, to
${RESULTS_JSON_SCHEMA_FILE}.
  --check     write nothing; say whether the committed file is current
  -h, --help  this text`,
  examples: ['fusebench schema', 'fusebench schema --check', 'npm run schema -- --check'],
  exits: {
    ok: 'the schema file was written, or with --check is current',
    regression: `with --check: ${RESULTS_JSON_SCHEMA_FILE} differs from the schema of the code (or is missing)`,
    usage: 'a bad flag or argument, or the file cannot be written (with --check: read)',
  },
});

export async function main(argv: string[]): Promise<ExitCode> {
  const parsed = parseCommandLine(argv, { check: { type: 'boolean' } }, HELP);
  if (!parsed) return EXIT.ok;
  if (parsed.positionals.length > 0) throw new UsageError(`Unexpected argument '${parsed.positionals[0]}'\n\n${HELP}`);
  const file = join(import.meta.dirname, '..', '..', RESULTS_JSON_SCHEMA_FILE);
  const content = renderResultsJsonSchema();
  if (!parsed.values.check) {
    writeFileAtomic(file, content);
    console.log(`wrote ${RESULTS_JSON_SCHEMA_FILE}`);
    return EXIT.ok;
  }
  let committed = '';
  try {
    committed = readFileSync(file, 'utf8');
  } catch (e) {
    // Missing: not current (exit 1). Unreadable: nothing was checked (exit 2, naming why).
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw new Error(`Cannot read ${file}: ${(e as Error).message}`);
  }
  if (committed === content) {
    console.log(`${RESULTS_JSON_SCHEMA_FILE} is current`);
    return EXIT.ok;
  }
  console.error(
    `${RESULTS_JSON_SCHEMA_FILE} differs from the schema in src/results/results.ts: run \`npm run schema\``,
  );
  return EXIT.regression;
}

runIfEntry(import.meta.url, main);
