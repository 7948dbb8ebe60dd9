/**
 * Loads cases: each case folder's TypeScript descriptor (cases/<name>/case.ts) paired with the addon's
 * registration of the same case, into the CaseDefs the harness runs (one per comparison and precision).
 * Dim and parameter names, buffer sizes, variants and shape limits are read from the addon; a
 * descriptor that names a dim, parameter or variant the addon lacks fails here, naming it.
 */

import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { BackendName } from '../addon/device.ts';
import { caseBuffers, checkShape, type NativeCase, nativeCases, roundFloats } from '../addon/native.ts';
import { isDtype } from '../base/dtype.ts';
import { PACKAGE_ROOT } from '../base/package-root.ts';
import { unavailableReason } from './availability.ts';
import type { CaseDescriptor, Comparison } from './define.ts';
import { type CaseDef, DTYPE_BYTES, DTYPES, type Dtype, type Shape } from './types.ts';

/** The folder of cases. */
export const CASES_DIR = join(PACKAGE_ROOT, 'cases');

/** Largest buffer the numerics take: JS typed arrays, and sampled references indexed with 32 bits. */
const MAX_BUFFER_ELEMENTS = 2 ** 32;

type AnyDescriptor = CaseDescriptor<string, string>;

/**
 * A read-only view of `values` by `names` that throws on any other name, so a descriptor that reads a
 * dim or parameter the addon does not declare fails loudly instead of computing with undefined.
 */
function named(caseName: string, what: string, names: readonly string[], values: readonly number[]) {
  const target = Object.freeze(Object.fromEntries(names.map((n, i) => [n, values[i] as number])));
  return new Proxy(target, {
    get(t, key) {
      if (typeof key === 'symbol' || key in t) return Reflect.get(t, key);
      throw new Error(`${caseName} has no ${what} '${String(key)}'; its ${what}s are: ${names.join(', ') || '(none)'}`);
    },
  }) as Readonly<Record<string, number>>;
}

/**
 * Throws unless every dimension is a positive safe integer and there are as many as the case has. Their
 * product is not bounded: a case's dims need not be the axes of one tensor (gpt2_decode's vocab, cache
 * length and position multiply to no buffer); the buffers' sizes are (checked natively, then against
 * MAX_BUFFER_ELEMENTS in validate).
 */
function checkDims(caseName: string, names: readonly string[], dims: number[]): void {
  const shape = `[${dims.join(', ')}]`;
  if (dims.length !== names.length) {
    throw new Error(
      `${caseName}: shape ${shape} has ${dims.length} dimensions; expected ${names.length} (${names.join(', ')})`,
    );
  }
  for (const [i, d] of dims.entries()) {
    if (!Number.isSafeInteger(d) || d <= 0) {
      throw new Error(`${caseName}: shape ${shape} has ${names[i]} ${d}; every dimension must be a positive integer`);
    }
  }
}

/** The kernel sources of a case folder, relative to the root: CUDA first, the registration last. */
function caseSources(folder: string): string[] {
  const files = readdirSync(join(CASES_DIR, folder)).filter((f) => /\.(cu|cuh|cc|h)$/.test(f));
  const rank = (f: string) => (f.endsWith('.cu') ? 0 : f.endsWith('_case.cc') ? 3 : f.endsWith('.cc') ? 1 : 2);
  return files.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b)).map((f) => `cases/${folder}/${f}`);
}

function variantOf(c: NativeCase, name: string, comparison: string) {
  const v = c.variants.find((x) => x.name === name);
  if (!v) {
    throw new Error(
      `${comparison}: the addon's ${c.name} has no variant '${name}'; its variants are: ${c.variants.map((x) => x.name).join(', ')}`,
    );
  }
  return v;
}

/**
 * The registrations of one case folder, one per precision, in DTYPES order. Throws when the addon
 * registers none, a precision fusebench does not know, or precisions whose dims or params differ
 * (precision is data on one declaration, so they never should).
 */
export function registrationsOf(folder: string, natives: readonly NativeCase[]): NativeCase[] {
  const mine = natives.filter((c) => c.name === folder);
  if (mine.length === 0) {
    throw new Error(
      `cases/${folder} is in the registry but the addon registers no case '${folder}': its FB_CASE must be named ` +
        `after the folder, and the addon rebuilt (\`npm run build\`) since it was added; ` +
        `the addon has: ${[...new Set(natives.map((c) => c.name))].join(', ')}`,
    );
  }
  const first = mine[0] as NativeCase;
  for (const c of mine) {
    if (!isDtype(c.dtype)) {
      throw new Error(`the addon registers ${folder} in '${c.dtype}'; fusebench knows ${DTYPES.join(', ')}`);
    }
    const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
    if (!same(c.dims, first.dims) || !same(c.params, first.params)) {
      throw new Error(`the addon's ${folder} has different dims or params in ${first.dtype} and ${c.dtype}`);
    }
  }
  return DTYPES.flatMap((t) => mine.filter((c) => c.dtype === t));
}

/** A shape's dims, named in a descriptor, in the order of the addon's dims; throws naming a dim too many or missing. */
function inNativeOrder(folder: string, native: NativeCase, what: string, dims: Readonly<Record<string, number>>) {
  const given = Object.keys(dims);
  const unknown = given.filter((k) => !native.dims.includes(k));
  const missing = native.dims.filter((k) => !given.includes(k));
  if (unknown.length > 0 || missing.length > 0) {
    throw new Error(
      `${folder}: ${what} names dims ${given.join(', ')}; the addon's ${folder} has ${native.dims.join(', ')}`,
    );
  }
  return native.dims.map((k) => dims[k] as number);
}

/** A shape's label: the descriptor's, else its dims in native order joined by "x" ("16384x768"). */
function shapeLabel(dims: readonly number[], given?: string): string {
  return given ?? dims.join('x');
}

/** The measured shapes of each backend, dims in native order and every shape labelled. */
/** A declared shape and the precisions it is checked or measured in (every one when `dtypes` is absent). */
interface InPrecisions<S> {
  value: S;
  dtypes?: readonly Dtype[];
}

/** The values of `list` that apply to `dtype`. */
function inPrecision<S>(list: readonly InPrecisions<S>[], dtype: Dtype): S[] {
  return list.filter((x) => !x.dtypes || x.dtypes.includes(dtype)).map((x) => x.value);
}

function measuredShapes(
  folder: string,
  d: AnyDescriptor,
  native: NativeCase,
): Record<BackendName, InPrecisions<Shape>[]> {
  const entries = Object.entries(d.shapes) as [BackendName, AnyDescriptor['shapes'][BackendName]][];
  return Object.fromEntries(
    entries.map(([backend, list]) => [
      backend,
      list.map((s) => {
        const what = `shape '${s.label ?? JSON.stringify(s.dims)}'`;
        const dims = inNativeOrder(folder, native, what, s.dims);
        if (s.ungatedSpeedup !== undefined && s.ungatedSpeedup.trim() === '') {
          throw new Error(
            `${folder}: ${what} has an empty ungatedSpeedup; say why its speedup moves with the machine, or leave the field out`,
          );
        }
        const value: Shape = {
          label: shapeLabel(dims, s.label),
          description: s.description,
          dims,
          ...(s.timing ? { timing: s.timing } : {}),
          ...(s.graphTwin ? { graphTwin: s.graphTwin } : {}),
          ...(s.ungatedSpeedup ? { ungatedSpeedup: s.ungatedSpeedup } : {}),
        };
        return { value, ...(s.dtypes ? { dtypes: s.dtypes } : {}) };
      }),
    ]),
  ) as Record<BackendName, InPrecisions<Shape>[]>;
}

/** Throws unless the descriptor states a tolerance for every precision the addon registers. */
function checkTolerances(folder: string, d: AnyDescriptor, registrations: readonly NativeCase[]): void {
  for (const r of registrations) {
    if (!d.tolerance[r.dtype as Dtype]) {
      throw new Error(
        `cases/${folder}/case.ts states no ${r.dtype} tolerance, but the addon registers ${folder} in ${r.dtype}: ` +
          `add tolerance.${r.dtype}`,
      );
    }
  }
}

/** Throws, naming the shape and what is wrong, unless `dims` is a shape `name` can run and the numerics can hold. */
function validateShape(name: string, folder: string, dtype: Dtype, native: NativeCase, dims: number[]): void {
  checkDims(name, native.dims, dims);
  try {
    checkShape(folder, dtype, dims);
  } catch (e) {
    // The addon names its own case; a comparison of it is reported under the comparison's name.
    throw new Error((e as Error).message.replace(new RegExp(`^${folder}:`), `${name}:`));
  }
  for (const b of caseBuffers(folder, dtype, dims)) {
    if (b.count > MAX_BUFFER_ELEMENTS) {
      throw new Error(
        `${name}: shape [${dims.join(', ')}] has ${b.count} elements in ${b.name}; the numerics hold a buffer ` +
          `in a JS typed array indexed with 32 bits (at most ${MAX_BUFFER_ELEMENTS.toLocaleString('en-US')})`,
      );
    }
  }
}

/** What one case folder shares across its comparisons and precisions. */
interface Folder {
  folder: string;
  d: AnyDescriptor;
  native: NativeCase;
  params: Readonly<Record<string, number>>;
  dimsOf: (dims: readonly number[]) => Readonly<Record<string, number>>;
  shapes: Record<BackendName, InPrecisions<Shape>[]>;
  testShapes: InPrecisions<number[]>[];
  cappedGridShapes: number[][];
  sources: string[];
}

/** One comparison in one precision: the CaseDef the harness runs. */
function comparisonDef(f: Folder, reg: NativeCase, cmp: Comparison): CaseDef {
  const { folder, d, native, params, dimsOf } = f;
  const dtype = reg.dtype as Dtype;
  const name = cmp.name ?? folder;
  const variants = { unfused: cmp.unfused ?? 'unfused', fused: cmp.fused };
  const used = [variantOf(reg, variants.unfused, name), variantOf(reg, variants.fused, name)];
  const buffers = (dims: number[]) => caseBuffers(folder, dtype, dims);
  const { extraNumerics, flops } = d;
  return {
    name,
    nativeCase: folder,
    title: cmp.title ?? d.title,
    dtype,
    sources: f.sources,
    variants,
    params: native.params.map((p) => p.value),
    dimNames: native.dims,
    shapes: (backend) => inPrecision(f.shapes[backend] ?? [], dtype),
    testShapes: inPrecision(f.testShapes, dtype),
    cappedGridShapes: f.cappedGridShapes,
    validate: (dims) => validateShape(name, folder, dtype, native, dims),
    unavailableReason: (backend, on = {}) => unavailableReason(dtype, used, backend, on),
    inputs: (dims, seed) => {
      const elems = new Map(buffers(dims).map((b) => [b.name, b.elem]));
      const raw = d.inputs(dimsOf(dims), seed);
      // Rounded in place (the descriptor made these arrays for this call), natively: what an upload
      // to a bf16/fp16 buffer stores, so the reference sees exactly the values the kernels read.
      for (const [k, v] of Object.entries(raw)) {
        const e = elems.get(k);
        if (e && isDtype(e)) roundFloats(v, e);
      }
      return raw;
    },
    reference: (inputs, dims) => d.reference(inputs, dimsOf(dims), params, dtype),
    tolerance: d.tolerance[dtype] as NonNullable<AnyDescriptor['tolerance'][Dtype]>,
    traffic: (dims) => {
      const t = d.traffic(dimsOf(dims), DTYPE_BYTES[dtype], dtype);
      return { unfused: t[variants.unfused] ?? t.unfused, fused: t[variants.fused] ?? t.fused };
    },
    ...(flops ? { flops: (dims: number[]) => flops(dimsOf(dims)) } : {}),
    ...(extraNumerics
      ? { extraNumerics: (inputs, outputs, dims) => extraNumerics(inputs, outputs, dimsOf(dims), params) }
      : {}),
    allocatedBytes: (dims) => buffers(dims).reduce((s, b) => s + b.bytes, 0),
    elements: (dims) => Math.max(...buffers(dims).map((b) => b.count)),
  };
}

/** The CaseDefs of one case: its descriptor's comparisons in each precision the addon registers. */
export function buildCaseDefs(folder: string, d: AnyDescriptor, registrations: readonly NativeCase[]): CaseDef[] {
  const native = registrations[0] as NativeCase;
  checkTolerances(folder, d, registrations);
  const ordered = (what: string) => (dims: Readonly<Record<string, number>>) =>
    inNativeOrder(folder, native, `${what} ${JSON.stringify(dims)}`, dims);
  const f: Folder = {
    folder,
    d,
    native,
    params: named(
      folder,
      'param',
      native.params.map((p) => p.name),
      native.params.map((p) => p.value),
    ),
    dimsOf: (dims) => named(folder, 'dim', native.dims, dims),
    shapes: measuredShapes(folder, d, native),
    testShapes: d.testShapes.map((t) =>
      'dims' in t && typeof t.dims === 'object'
        ? { value: ordered('test shape')(t.dims), dtypes: t.dtypes as readonly Dtype[] }
        : { value: ordered('test shape')(t as Readonly<Record<string, number>>) },
    ),
    cappedGridShapes: (d.cappedGridShapes ?? []).map(ordered('capped-grid shape')),
    sources: caseSources(folder),
  };
  const comparisons: Comparison[] = d.compare ?? [{ fused: 'fused' }];
  return registrations.flatMap((reg) =>
    comparisons
      .filter((cmp) => !cmp.dtypes || cmp.dtypes.includes(reg.dtype as Dtype))
      .map((cmp) => comparisonDef(f, reg, cmp)),
  );
}

/** A case folder and its descriptor (the default export of its case.ts), as cases/registry.ts lists them. */
export type CaseFolder = readonly [folder: string, descriptor: AnyDescriptor];

/** The CaseDefs of the case folders, in the order given; throws naming a folder the addon does not register. */
export function loadCaseFolders(folders: readonly CaseFolder[]): CaseDef[] {
  const natives = nativeCases();
  const defs: CaseDef[] = [];
  for (const [folder, d] of folders) {
    if (!d || typeof d !== 'object' || typeof d.title !== 'string') {
      throw new Error(`cases/${folder}/case.ts must \`export default defineCase({...})\``);
    }
    defs.push(...buildCaseDefs(folder, d, registrationsOf(folder, natives)));
  }
  return defs;
}
