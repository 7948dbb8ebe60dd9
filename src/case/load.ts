/**
 * Loads cases: each case folder's TypeScript descriptor (cases/<name>/case.ts) paired with the addon's
 * registration of the same case, into the CaseDefs the harness runs (one per comparison and precision).
 * Dim and parameter names, buffer sizes, variants and shape limits are read from the addon; a
 * descriptor that names a dim, parameter or variant the addon lacks fails here, naming it.
 */
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dtypeUnsupportedOn, isDtype } from '../dtype.ts';
import { buildInfo, caseBuffers, checkShape, elemBytes, type NativeCase, nativeCases, roundFloats } from '../native.ts';
import type { CaseDescriptor, Comparison } from './define.ts';
import { type BackendName, type CaseDef, DTYPE_BYTES, DTYPES, type Dtype, type Shape } from './types.ts';

/** The repository root and its folder of cases. */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CASES_DIR = join(ROOT, 'cases');

/** Largest buffer the numerics take: JS typed arrays, and sampled references indexed with 32 bits. */
export const MAX_BUFFER_ELEMENTS = 2 ** 32;

type AnyDescriptor = CaseDescriptor<string, string>;

/**
 * A read-only view of `values` by `names` that throws on any other name, so a descriptor that reads a
 * dim or parameter the addon does not declare fails loudly instead of computing with undefined.
 */
export function named(caseName: string, what: string, names: readonly string[], values: readonly number[]) {
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
export function checkDims(caseName: string, names: readonly string[], dims: number[]): void {
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
export function caseSources(folder: string): string[] {
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
      `cases/${folder} is in the registry but the addon registers no case '${folder}' (rebuild with \`npm run build\`; ` +
        `the addon has: ${[...new Set(natives.map((c) => c.name))].join(', ')})`,
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

/** The CaseDefs of one case: its descriptor's comparisons in each precision the addon registers. */
export function buildCaseDefs(folder: string, d: AnyDescriptor, registrations: readonly NativeCase[]): CaseDef[] {
  const native = registrations[0] as NativeCase;
  const comparisons: Comparison[] = d.compare ?? [{ fused: 'fused' }];
  for (const r of registrations) {
    if (!d.tolerance[r.dtype as Dtype]) {
      throw new Error(
        `cases/${folder}/case.ts states no ${r.dtype} tolerance, but the addon registers ${folder} in ${r.dtype}: ` +
          `add tolerance.${r.dtype}`,
      );
    }
  }
  const paramNames = native.params.map((p) => p.name);
  const params = named(
    folder,
    'param',
    paramNames,
    native.params.map((p) => p.value),
  );
  const dimsOf = (dims: readonly number[]) => named(folder, 'dim', native.dims, dims);
  const toArray = (label: string, dims: Readonly<Record<string, number>>) => {
    const given = Object.keys(dims);
    const unknown = given.filter((k) => !native.dims.includes(k));
    const missing = native.dims.filter((k) => !given.includes(k));
    if (unknown.length > 0 || missing.length > 0) {
      throw new Error(
        `${folder}: shape '${label}' names dims ${given.join(', ')}; the addon's ${folder} has ${native.dims.join(', ')}`,
      );
    }
    return native.dims.map((k) => dims[k] as number);
  };
  const shapesByBackend = Object.fromEntries(
    (Object.entries(d.shapes) as [BackendName, AnyDescriptor['shapes'][BackendName]][]).map(([b, list]) => [
      b,
      list.map((s) => ({
        label: s.label,
        description: s.description,
        dims: toArray(s.label, s.dims),
        ...(s.timing ? { timing: s.timing } : {}),
      })),
    ]),
  ) as Record<BackendName, Shape[]>;
  const sources = caseSources(folder);
  return registrations.flatMap((reg) =>
    comparisons
      .filter((cmp) => !cmp.dtypes || cmp.dtypes.includes(reg.dtype as Dtype))
      .map((cmp): CaseDef => {
        const dtype = reg.dtype as Dtype;
        const name = cmp.name ?? folder;
        const variants = { unfused: cmp.unfused ?? 'unfused', fused: cmp.fused };
        const used = [variantOf(reg, variants.unfused, name), variantOf(reg, variants.fused, name)];
        const buffers = (dims: number[]) => caseBuffers(folder, dtype, dims);
        return {
          name,
          nativeCase: folder,
          title: cmp.title ?? d.title,
          dtype,
          sources,
          variants,
          params: native.params.map((p) => p.value),
          dimNames: native.dims,
          shapes: (backend) => shapesByBackend[backend] ?? [],
          testShapes: d.testShapes,
          cappedGridShapes: d.cappedGridShapes ?? [],
          validate: (dims) => {
            checkDims(name, native.dims, dims);
            try {
              checkShape(folder, dtype, dims);
            } catch (e) {
              // The addon names its own case; a comparison of it is reported under the comparison's name.
              throw new Error((e as Error).message.replace(new RegExp(`^${folder}:`), `${name}:`));
            }
            for (const b of buffers(dims)) {
              if (b.count > MAX_BUFFER_ELEMENTS) {
                throw new Error(
                  `${name}: shape [${dims.join(', ')}] has ${b.count} elements in ${b.name}; the numerics hold a buffer ` +
                    `in a JS typed array indexed with 32 bits (at most ${MAX_BUFFER_ELEMENTS.toLocaleString('en-US')})`,
                );
              }
            }
          },
          unavailableReason: (backend, on = {}) => {
            const cublas = on.cublas ?? buildInfo().cublas;
            const cc = on.computeCapability;
            const unsupported = backend === 'cuda' && cc !== undefined ? dtypeUnsupportedOn(dtype, cc) : undefined;
            if (unsupported) return unsupported;
            for (const v of used) {
              if (backend === 'cpu' && !v.cpu) {
                return `runs on cuda only (its variant '${v.name}' has no CPU implementation: it is a library call of the GPU)`;
              }
              if (backend === 'cuda' && !v.cuda)
                return `its variant '${v.name}' has no CUDA implementation in this build`;
              if (backend === 'cuda' && v.needs === 'cublas' && !cublas) {
                return 'needs cuBLAS/cuBLASLt, and this addon was built without them (the CUDA toolkit it was built with has no libcublas); rebuild where the toolkit has them';
              }
              if (backend === 'cuda' && cc !== undefined && v.minComputeCapability > Math.round(Number(cc) * 10)) {
                const need = (v.minComputeCapability / 10).toFixed(1);
                return `its variant '${v.name}' needs compute capability ${need}+ (sm_${v.minComputeCapability} instructions); this GPU is ${cc}`;
              }
              const smem = on.maxSharedMemoryPerBlock;
              if (backend === 'cuda' && smem !== undefined && v.sharedMemoryBytes > smem) {
                return (
                  `its variant '${v.name}' needs ${v.sharedMemoryBytes.toLocaleString('en-US')} bytes of shared memory per ` +
                  `block; this GPU allows ${smem.toLocaleString('en-US')}`
                );
              }
            }
            return undefined;
          },
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
          ...(d.flops
            ? { flops: (dims: number[]) => (d.flops as NonNullable<AnyDescriptor['flops']>)(dimsOf(dims)) }
            : {}),
          ...(d.extraNumerics
            ? {
                extraNumerics: (inputs, outputs, dims) =>
                  (d.extraNumerics as NonNullable<AnyDescriptor['extraNumerics']>)(
                    inputs,
                    outputs,
                    dimsOf(dims),
                    params,
                  ),
              }
            : {}),
          allocatedBytes: (dims) => buffers(dims).reduce((s, b) => s + b.count * elemBytes(b.elem), 0),
          elements: (dims) => Math.max(...buffers(dims).map((b) => b.count)),
        };
      }),
  );
}

/** Imports a case folder's descriptor (its default export). */
export async function importDescriptor(folder: string): Promise<AnyDescriptor> {
  const file = join(CASES_DIR, folder, 'case.ts');
  if (!existsSync(file)) {
    throw new Error(`cases/${folder} has no descriptor: ${file} must \`export default defineCase({...})\``);
  }
  const mod = (await import(pathToFileURL(file).href)) as { default?: AnyDescriptor };
  if (!mod.default || typeof mod.default !== 'object' || typeof mod.default.title !== 'string') {
    throw new Error(`${file} must \`export default defineCase({...})\``);
  }
  return mod.default;
}

/** The CaseDefs of the case folders, in the order given; throws naming a folder the addon does not register. */
export async function loadCaseFolders(folders: readonly string[]): Promise<CaseDef[]> {
  const natives = nativeCases();
  const defs: CaseDef[] = [];
  for (const folder of folders) {
    defs.push(...buildCaseDefs(folder, await importDescriptor(folder), registrationsOf(folder, natives)));
  }
  return defs;
}
