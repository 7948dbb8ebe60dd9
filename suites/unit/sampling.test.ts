// The row sampling of the GEMM-sized references (src/reference/sampling.ts).
import { describe, expect, test } from 'vitest';
import {
  elementsReference,
  REFERENCE_ELEMENTS,
  referenceRows,
  rowsReference,
  sampleRows,
  spreadIndices,
} from '../../src/reference/sampling.ts';

describe('sampleRows', () => {
  test('every row when there are no more rows than the count', () => {
    expect(sampleRows(1, 32)).toEqual([0]);
    expect(sampleRows(10, 32)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(sampleRows(32, 32)).toHaveLength(32);
  });

  test.each([33, 40, 130, 1000, 16_384, 196_608])(
    '%i rows: count distinct sorted rows with the first and last, spread over tiles',
    (rows) => {
      const picked = sampleRows(rows, 32);
      expect(picked).toHaveLength(32);
      expect(picked[0]).toBe(0);
      expect(picked[31]).toBe(rows - 1);
      for (let i = 1; i < picked.length; i++) {
        const gap = (picked[i] as number) - (picked[i - 1] as number);
        expect(gap).toBeGreaterThan(0);
        expect(gap).toBeLessThanOrEqual(2 * Math.ceil((rows - 2) / 30) + 1);
      }
      expect(sampleRows(rows, 32)).toEqual(picked); // deterministic
      if (rows >= 16_384) expect(new Set(picked.map((r) => r % 128)).size).toBeGreaterThan(16); // not one stride
    },
  );

  test('refuses a count below 2', () => {
    expect(() => sampleRows(100, 1)).toThrow(/count must be at least 2/);
  });
});

describe('references at GPU sizes', () => {
  test('referenceRows: every row up to REFERENCE_ELEMENTS elements, a spread sample of about as many beyond', () => {
    expect(referenceRows(1500, 1028)).toHaveLength(1500);
    expect(referenceRows(1, 7)).toEqual([0]);
    expect(referenceRows(REFERENCE_ELEMENTS, 1)).toHaveLength(REFERENCE_ELEMENTS);
    const picked = referenceRows(16_384, 4096);
    expect(picked).toHaveLength(REFERENCE_ELEMENTS / 4096);
    expect(picked[0]).toBe(0);
    expect(picked.at(-1)).toBe(16_383);
    expect(referenceRows(3, 2 ** 30)).toHaveLength(2); // at least the first and the last
  });

  test('elementsReference: whole at the test shapes; sampled blocks and the ragged tail beyond', () => {
    expect(elementsReference(1000, (i) => i)).toEqual(Float64Array.from({ length: 1000 }, (_, i) => i));
    const n = REFERENCE_ELEMENTS * 4 + 77;
    const r = elementsReference(n, (i) => 2 * i);
    if (r instanceof Float64Array) throw new Error('expected a sampled reference');
    expect(r.values.every((v, k) => v === 2 * (r.indices[k] as number))).toBe(true);
    expect(r.indices[0]).toBe(0);
    expect(r.indices.at(-1)).toBe(n - 1);
    expect(r.indices.length).toBeGreaterThan(REFERENCE_ELEMENTS);
    expect(r.indices.length).toBeLessThan(REFERENCE_ELEMENTS + 4096 + 77);
    let unsorted = 0;
    for (let k = 1; k < r.indices.length; k++) if ((r.indices[k] as number) <= (r.indices[k - 1] as number)) unsorted++;
    expect(unsorted).toBe(0);
    expect(r.note).toMatch(/blocks of 4,096 and the last 77$/);
  });

  test('spreadIndices: every index at the test shapes, a stride keeping at most REFERENCE_ELEMENTS beyond', () => {
    expect(spreadIndices(1000)).toEqual({ stride: 1, count: 1000 });
    const s = spreadIndices(16_777_216);
    expect(s.stride).toBe(6);
    expect(s.count).toBeLessThanOrEqual(REFERENCE_ELEMENTS);
  });
});

describe('rowsReference with error bounds', () => {
  const row = (r: number) => ({ values: new Float64Array([r, r + 0.5]), bound: new Float64Array([r / 10, 0]) });

  test('every row: a whole BoundedReference, each row at its place', () => {
    expect(rowsReference(3, 2, [0, 1, 2], row)).toEqual({
      values: new Float64Array([0, 0.5, 1, 1.5, 2, 2.5]),
      bound: new Float64Array([0, 0, 0.1, 0, 0.2, 0]),
    });
  });

  test('some rows: the sample carries the bound of each sampled element', () => {
    const sampled = rowsReference(5, 2, [1, 4], row);
    expect(sampled).toMatchObject({
      indices: new Uint32Array([2, 3, 8, 9]),
      bound: new Float64Array([0.1, 0, 0.4, 0]),
    });
  });

  test('rows with and without a bound in one output are refused, naming the rows', () => {
    const mixed = (r: number) => (r === 0 ? row(r) : new Float64Array([r, r]));
    expect(() => rowsReference(2, 2, [0, 1], mixed)).toThrow('row 1 of the reference lacks a bound; row 0 has one');
    expect(() =>
      rowsReference(2, 2, [0, 1], () => ({ values: new Float64Array(2), bound: new Float64Array(1) })),
    ).toThrow('row 0 of the reference has a bound of 1 values; expected 2');
  });
});

describe('references at the test shapes', () => {
  // The block's reference covers the last batch element only (the others differ in nothing but their
  // inputs): every position of it at the test shapes.
  const covers = (name: string, dims: number[], count: number) =>
    name.startsWith('transformer_block') ? count / (dims[0] as number) : count;

  test('every case references every element of every output at every test shape: sampling starts at GPU sizes', async () => {
    const { loadCases } = await import('../../cases/registry.ts');
    const { caseBuffers } = await import('../../src/addon/native.ts');
    for (const def of (await loadCases()).filter((d) => d.dtype === 'fp32')) {
      for (const shape of def.testShapes) {
        const dims = [...shape];
        const counts = new Map(caseBuffers(def.nativeCase, def.dtype, dims).map((b) => [b.name, b.count]));
        for (const [name, ref] of Object.entries(def.reference(def.inputs(dims, 1), dims))) {
          const covered =
            ref instanceof Float64Array ? ref.length : 'indices' in ref ? ref.indices.length : ref.values.length;
          expect(covered, `${def.name} [${dims.join(', ')}] ${name}`).toBe(
            covers(def.name, dims, counts.get(name) ?? 0),
          );
        }
      }
    }
  });
});
