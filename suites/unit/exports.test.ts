// The standard exports of a real results file, checked against the formats their tools document, and the
// results JSON Schema, which must be the one the zod schema generates.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { z } from 'zod';
import type { JSONSchema } from 'zod/v4/core';
import { renderBencherJson } from '../../src/export/bencher.ts';
import { renderBenchmarkActionJson } from '../../src/export/benchmark-action.ts';
import { type CaseResult, readResults } from '../../src/results/results.ts';
import { RESULTS_JSON_SCHEMA_FILE, renderResultsJsonSchema } from '../../src/results/results-json-schema.ts';

const root = join(import.meta.dirname, '..', '..');
const fixtures = join(root, 'suites', 'fixtures');
const mixedFile = join(fixtures, 'h200-mixed-verdicts.json');
const mixed = readResults(mixedFile);
const measured = mixed.cases.filter((c) => c.status === 'measured');

// The BMF JSON Schema as https://bencher.dev/docs/reference/bencher-metric-format/ publishes it (draft-07;
// its `$schema` line is left out: zod's JSONSchema type spells that URI with a trailing '#').
const BMF_SCHEMA: JSONSchema.JSONSchema = {
  $id: 'https://bencher.dev/bmf.json',
  type: 'object',
  patternProperties: {
    '.+': {
      type: 'object',
      patternProperties: {
        '.+': {
          type: 'object',
          properties: {
            value: { type: 'number' },
            lower_value: { type: 'number' },
            upper_value: { type: 'number' },
          },
          required: ['value'],
        },
      },
    },
  },
};

// github-action-benchmark's BenchmarkResult, as its custom tools read it (src/extract.ts: name, value,
// unit, range, extra; range and extra optional strings), for tool: customSmallerIsBetter.
const benchmarkActionEntry = z.strictObject({
  name: z.string().min(1),
  unit: z.string().min(1),
  value: z.number().positive(),
  range: z.string().optional(),
  extra: z.string().optional(),
});

describe('bencher.json (Bencher Metric Format)', () => {
  const bmf = renderBencherJson(mixed);

  test('validates against the BMF JSON Schema', () => {
    expect(z.fromJSONSchema(BMF_SCHEMA).safeParse(bmf).success).toBe(true);
    // The schema is not vacuous: a metric without its value is refused.
    expect(z.fromJSONSchema(BMF_SCHEMA).safeParse({ a: { latency: { lower_value: 1 } } }).success).toBe(false);
  });

  test('has one benchmark per measured case/shape/dtype, with the speedup interval and the fused latency in ns', () => {
    expect(Object.keys(bmf)).toEqual(measured.map((c) => c.key));
    const c = measured.find((x) => x.key === 'gelu_scale/32x512x768/fp32') as CaseResult;
    expect(bmf[c.key]).toEqual({
      speedup: {
        value: Number(c.speedup?.estimate.toPrecision(6)),
        lower_value: Number(c.speedup?.lo.toPrecision(6)),
        upper_value: Number(c.speedup?.hi.toPrecision(6)),
      },
      latency: { value: Number(((c.timing?.fused.median ?? 0) * 1e6).toPrecision(6)) },
    });
    for (const m of Object.values(bmf)) {
      const s = m.speedup as { value: number; lower_value: number; upper_value: number };
      expect(s.lower_value).toBeLessThanOrEqual(s.value);
      expect(s.upper_value).toBeGreaterThanOrEqual(s.value);
    }
  });
});

describe('benchmark-action.json (github-action-benchmark, customSmallerIsBetter)', () => {
  const entries = renderBenchmarkActionJson(mixed);

  test('is an array of { name, unit, value, range?, extra? } with numbers where numbers go', () => {
    expect(z.array(benchmarkActionEntry).safeParse(entries).success).toBe(true);
    expect(JSON.parse(JSON.stringify(entries))).toEqual(entries);
  });

  test('one entry per measured case: the fused median in ms, the speedup and verdict in extra', () => {
    expect(entries.map((e) => e.name)).toEqual(measured.map((c) => c.key));
    const e = entries.find((x) => x.name === 'gelu_scale/32x512x768/fp32');
    const c = measured.find((x) => x.key === e?.name);
    expect(e?.unit).toBe('ms');
    expect(e?.value).toBe(Number(c?.timing?.fused.median.toPrecision(6)));
    expect(e?.range).toMatch(/^± [\d.e-]+$/);
    expect(e?.extra).toContain('speedup 1.520x [');
    expect(e?.extra).toContain('verdict vs baseline: SLOWER');
  });
});

describe('the results JSON Schema', () => {
  const committed = readFileSync(join(root, RESULTS_JSON_SCHEMA_FILE), 'utf8');

  test(`${RESULTS_JSON_SCHEMA_FILE} is the one src/results/results.ts generates (run \`npm run schema\` after changing it)`, () => {
    expect(committed).toBe(renderResultsJsonSchema());
  });

  test('accepts the real fixtures and refuses a broken file', () => {
    const validator = z.fromJSONSchema(JSON.parse(committed));
    for (const f of ['h200-results.json', 'h200-mixed-verdicts.json', 'h200-gate-run.json']) {
      const parsed = validator.safeParse(JSON.parse(readFileSync(join(fixtures, f), 'utf8')));
      expect(parsed.success, `${f}: ${parsed.error?.message}`).toBe(true);
    }
    const broken = JSON.parse(readFileSync(mixedFile, 'utf8'));
    broken.cases[0].speedup.estimate = 'fast';
    expect(validator.safeParse(broken).success).toBe(false);
    expect(validator.safeParse({ ...JSON.parse(readFileSync(mixedFile, 'utf8')), schemaVersion: 2 }).success).toBe(
      false,
    );
  });
});
