// The contract between a case's two halves: its native registration (cases/<name>/<name>_case.cc) and
// its TypeScript descriptor (cases/<name>/case.ts), with the registry (cases/registry.ts) between them.
// Every native case has a folder in the registry and the reverse; every variant, dim and parameter the
// descriptor names exists natively; every input it generates and every output it references is a native
// buffer of the right size; the buffers the addon describes are the ones a workspace allocates.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { CASE_FOLDERS, loadCases } from '../../cases/registry.ts';
import residualLayernorm from '../../cases/residual_layernorm/case.ts';
import { caseBuffers, nativeCases, Workspace } from '../../src/addon/native.ts';
import { DTYPE_BYTES, type Dtype, roundTo } from '../../src/base/dtype.ts';
import { buildCaseDefs, CASES_DIR, loadCaseFolders, registrationsOf } from '../../src/case/load.ts';
import { entryKey } from '../../src/results/results.ts';

const natives = nativeCases();
// A half that is missing or disagrees makes loading throw; the first test reports it, naming it.
const loaded = await loadCases().then(
  (cases) => ({ cases, error: undefined }),
  (e: Error) => ({ cases: [], error: e.message }),
);
const cases = loaded.cases;

describe('the registry and the addon agree', () => {
  test('every case in the registry loads: its descriptor exists and agrees with its registration', () => {
    expect(loaded.error).toBeUndefined();
  });

  test('every native case has a folder in the registry, and every registry folder a native case', () => {
    expect([...CASE_FOLDERS].sort()).toEqual([...new Set(natives.map((c) => c.name))].sort());
  });

  test('every folder under cases/ is in the registry and holds a descriptor', () => {
    const folders = readdirSync(CASES_DIR, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    expect(folders.sort()).toEqual([...CASE_FOLDERS].sort());
    expect(folders.filter((f) => !existsSync(join(CASES_DIR, f, 'case.ts'))).map((f) => `cases/${f}/case.ts`)).toEqual(
      [],
    );
  });

  test.each(readdirSync('baselines').filter((f) => f.endsWith('.json')))(
    'every entry of the committed baselines/%s names a case, shape and precision the registry measures',
    (file) => {
      const entries = Object.keys(
        (JSON.parse(readFileSync(join('baselines', file), 'utf8')) as { entries: Record<string, unknown> }).entries,
      );
      const backend = file.startsWith('nvidia-') || file.startsWith('tesla-') ? 'cuda' : 'cpu';
      const keys = new Set(cases.flatMap((c) => c.shapes(backend).map((s) => entryKey(c.name, s.label, c.dtype))));
      expect(entries.length).toBeGreaterThan(0);
      expect(entries.filter((k) => !keys.has(k))).toEqual([]);
    },
  );

  test('comparison names are unique in each precision and the report follows the registry order', () => {
    const names = cases.map((c) => `${c.name}/${c.dtype}`);
    expect(new Set(names).size).toBe(names.length);
    const order = cases.map((c) => CASE_FOLDERS.indexOf(c.nativeCase));
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });
});

describe.each(cases.map((c) => [`${c.name} ${c.dtype}`, c] as const))('%s', (_name, def) => {
  const native = natives.find((c) => c.name === def.nativeCase && c.dtype === def.dtype);
  const shapes = [...def.testShapes, ...def.shapes('cpu').map((s) => s.dims)];

  test('its variants exist natively', () => {
    const names = native?.variants.map((v) => v.name) ?? [];
    expect(names).toContain(def.variants.unfused);
    expect(names).toContain(def.variants.fused);
  });

  test('it states a shape for each backend (one a backend cannot run is reported skipped with the reason)', () => {
    expect(def.shapes('cpu').length).toBeGreaterThan(0);
    expect(def.shapes('cuda').length).toBeGreaterThan(0);
  });

  test('its shapes have the native dims and pass the native limits', () => {
    for (const s of [...shapes, ...def.shapes('cuda').map((x) => x.dims)]) {
      expect(s, `${def.name} ${JSON.stringify(s)}`).toHaveLength(def.dimNames.length);
      expect(() => def.validate([...s])).not.toThrow();
    }
  });

  test('its inputs are exactly the native input buffers, at their sizes and in their precision; its references name native outputs (or inputs it writes in place)', () => {
    const dims = [...(def.testShapes[0] ?? [])];
    const buffers = caseBuffers(def.nativeCase, def.dtype, dims);
    const inputs = def.inputs(dims, 1);
    const nativeInputs = buffers.filter((b) => b.role === 'input');
    expect(Object.keys(inputs).sort()).toEqual(nativeInputs.map((b) => b.name).sort());
    for (const b of nativeInputs) {
      expect(inputs[b.name]?.length, b.name).toBe(b.count);
      expect(b.elem, `${b.name} is stored in the case's precision`).toBe(def.dtype);
      const x = inputs[b.name] as Float32Array;
      expect(roundTo(b.elem as Dtype, x), `${b.name} is already rounded to ${b.elem}`).toEqual(x);
    }
    // An input referenced is one the step writes in place (the decode cases' K/V caches): its reference
    // differs from the input as uploaded, or checking it would be checking the upload.
    const outputs = buffers.filter((b) => b.role === 'output').map((b) => b.name);
    for (const [name, ref] of Object.entries(def.reference(inputs, dims))) {
      if (outputs.includes(name)) continue;
      expect(Object.keys(inputs), `${name}: neither an output nor an input`).toContain(name);
      const values = ref instanceof Float64Array ? ref : ref.values;
      const uploaded = inputs[name] as Float32Array;
      const at = (k: number) => ('indices' in ref ? (ref.indices[k] as number) : k);
      expect(
        values.some((v, k) => v !== uploaded[at(k)]),
        `${name}: its reference is the input as uploaded`,
      ).toBe(true);
    }
  });

  test('the buffers the addon describes are the ones a workspace allocates, and allocatedBytes counts them', () => {
    const dims = [...(def.testShapes[0] ?? [])];
    const ws = new Workspace('cpu', def.nativeCase, def.dtype, dims, [...def.params], undefined);
    try {
      expect(caseBuffers(def.nativeCase, def.dtype, dims)).toEqual(ws.buffers());
      // Each buffer's bytes are its elements', rounded up to whole 4-byte words (a word holds 2 bf16 or fp16).
      for (const b of ws.buffers()) {
        const exact = b.count * (b.elem === 'u32' ? 4 : DTYPE_BYTES[b.elem]);
        expect(b.bytes, b.name).toBe(Math.ceil(exact / 4) * 4);
      }
      expect(def.allocatedBytes(dims)).toBe(ws.buffers().reduce((s, b) => s + b.bytes, 0));
    } finally {
      ws.dispose();
    }
  });
});

describe('a disagreement fails, naming what the other half lacks', () => {
  const native = natives.find((c) => c.name === 'residual_layernorm' && c.dtype === 'fp32');
  if (!native) throw new Error('residual_layernorm is not registered');
  const all = registrationsOf('residual_layernorm', natives);
  const load = async () => buildCaseDefs('residual_layernorm', residualLayernorm, all);

  test('a registry line whose import is not a descriptor names its case.ts', () => {
    const notOne = undefined as unknown as typeof residualLayernorm;
    expect(() => loadCaseFolders([['residual_layernorm', notOne]])).toThrow(
      'cases/residual_layernorm/case.ts must `export default defineCase({...})`',
    );
  });

  test('a comparison naming a variant the addon lacks', async () => {
    const d = residualLayernorm;
    expect(() => buildCaseDefs('residual_layernorm', { ...d, compare: [{ fused: 'fusedd' }] }, [native])).toThrow(
      /the addon's residual_layernorm has no variant 'fusedd'; its variants are: unfused, fused/,
    );
  });

  test('a shape naming a dim the addon lacks', async () => {
    const d = residualLayernorm;
    const shapes = { ...d.shapes, cpu: [{ label: 'x', dims: { rows: 2, width: 8 }, description: '' }] };
    expect(() => buildCaseDefs('residual_layernorm', { ...d, shapes }, [native])).toThrow(
      /shape 'x' names dims rows, width; the addon's residual_layernorm has rows, hidden/,
    );
  });

  test('a shape whose speedup is ungated without a reason', async () => {
    const d = residualLayernorm;
    const shapes = {
      ...d.shapes,
      cpu: [{ label: 'x', dims: { rows: 2, hidden: 8 }, description: '', ungatedSpeedup: ' ' }],
    };
    expect(() => buildCaseDefs('residual_layernorm', { ...d, shapes }, [native])).toThrow(
      /residual_layernorm: shape 'x' has an empty ungatedSpeedup; say why its speedup moves with the machine/,
    );
  });

  test('a descriptor reading a dim or parameter the addon lacks', async () => {
    const renamed = { ...native, dims: ['rows', 'width'] };
    const d = residualLayernorm;
    const defs = buildCaseDefs(
      'residual_layernorm',
      { ...d, shapes: { cpu: [], cuda: [] }, testShapes: [], cappedGridShapes: [] },
      [renamed],
    );
    expect(() => defs[0]?.inputs([2, 8], 1)).toThrow(
      /residual_layernorm has no dim 'hidden'; its dims are: rows, width/,
    );
    const noEps = { ...native, params: [] };
    const [def] = buildCaseDefs('residual_layernorm', d, [noEps]);
    const dims = [2, 8];
    expect(() => def?.reference(def.inputs(dims, 1), dims)).toThrow(/has no param 'eps'; its params are: \(none\)/);
  });

  test('a precision the addon registers but the descriptor states no tolerance for', async () => {
    const d = residualLayernorm;
    const { bf16: _, ...tolerance } = d.tolerance;
    expect(() => buildCaseDefs('residual_layernorm', { ...d, tolerance }, all)).toThrow(
      /cases\/residual_layernorm\/case.ts states no bf16 tolerance, but the addon registers residual_layernorm in bf16/,
    );
  });

  test('precisions registered with different dims, or in a precision fusebench does not know', () => {
    const other = { ...native, dtype: 'bf16', dims: ['rows', 'width'] };
    expect(() => registrationsOf('residual_layernorm', [native, other])).toThrow(
      /the addon's residual_layernorm has different dims or params in fp32 and bf16/,
    );
    expect(() => registrationsOf('residual_layernorm', [{ ...native, dtype: 'fp8' }])).toThrow(
      /the addon registers residual_layernorm in 'fp8'; fusebench knows fp32, bf16, fp16/,
    );
    expect(() => registrationsOf('no_such_case', natives)).toThrow(/the addon registers no case 'no_such_case'/);
  });

  test('the unchanged descriptor loads, one comparison per precision, in report order', async () => {
    expect((await load()).map((c) => `${c.name}/${c.dtype}`)).toEqual([
      'residual_layernorm/fp32',
      'residual_layernorm/bf16',
      'residual_layernorm/fp16',
    ]);
  });
});
