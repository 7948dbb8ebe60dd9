/**
 * The JSON Schema of results files, generated from the zod schema (src/results/results.ts) so the two cannot
 * drift: `npm run schema` writes it to schema/fusebench-results.v<schemaVersion>.schema.json, and a test
 * fails when the committed file differs from what the schema generates. Other tools can validate a
 * fusebench-results.json against it without fusebench.
 */
import { z } from 'zod';
import { RESULTS_SCHEMA_VERSION, resultsFileSchema } from './results.ts';

/** Where the schema of this results version is committed, relative to the repository root. */
export const RESULTS_JSON_SCHEMA_FILE = `schema/fusebench-results.v${RESULTS_SCHEMA_VERSION}.schema.json`;

/** The JSON Schema (draft 2020-12) of a results file of this version. */
function resultsJsonSchema(): Record<string, unknown> {
  // io 'input': the files fusebench reads. A field it does not know is allowed (zod drops it), so objects
  // are not closed with additionalProperties: false.
  const generated = z.toJSONSchema(resultsFileSchema, { target: 'draft-2020-12', io: 'input' }) as Record<
    string,
    unknown
  >;
  const { $schema, ...rest } = generated;
  return {
    $schema,
    title: `fusebench results, schema version ${RESULTS_SCHEMA_VERSION}`,
    description:
      'A fusebench-results.json written by `npm run perf`. Generated from the zod schema in src/results/results.ts by `npm run schema`; do not edit by hand.',
    ...rest,
  };
}

/** The schema file's content: two-space JSON with a final newline. */
export function renderResultsJsonSchema(): string {
  return `${JSON.stringify(resultsJsonSchema(), null, 2)}\n`;
}
