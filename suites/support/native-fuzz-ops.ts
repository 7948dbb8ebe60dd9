// What native-fuzz.test.ts sends its child process, and the fast-check arbitraries that make it: the
// inputs an attacker or a careless caller would pass to the addon, through the raw native surface (any
// JS value where the types say number) and through the typed facade (src/addon/native.ts).
import { fc } from '@fast-check/vitest';

/**
 * The backend most sessions use: the CPU backend (the default, and CI's), or with FUSEBENCH_FUZZ_BACKEND=cuda
 * the CUDA backend of the machine's GPU (run by hand on a GPU machine).
 */
export const FUZZ_BACKEND: 'cpu' | 'cuda' = fuzzBackend(process.env.FUSEBENCH_FUZZ_BACKEND);

function fuzzBackend(env: string | undefined): 'cpu' | 'cuda' {
  if (env === undefined || env === '' || env === 'cpu') return 'cpu';
  if (env === 'cuda') return 'cuda';
  throw new Error(`FUSEBENCH_FUZZ_BACKEND: expected cpu or cuda but received '${env}'`);
}

/** A registered case as the child describes it. */
export interface FuzzCase {
  name: string;
  dtype: string;
  dims: number;
  params: number;
  variants: string[];
  buffers: string[];
}

/** One call on a workspace; `length: 'exact'` uploads as many floats as the buffer holds. */
export type FuzzOp =
  | { kind: 'buffers' }
  | { kind: 'upload'; name: string; data: unknown }
  | { kind: 'download'; name: string }
  | { kind: 'poison'; name: string }
  | { kind: 'run'; variant: unknown }
  | { kind: 'time'; variant: unknown }
  | { kind: 'timeBatch'; variant: unknown; calls: unknown }
  | { kind: 'setSpin'; spin: unknown }
  | { kind: 'dispose' };

/** A session: one top-level native call, or a workspace and the calls made on it. */
export type FuzzSession =
  | { kind: 'checkShape' | 'caseBuffers'; surface: 'raw' | 'facade'; caseName: unknown; dtype: unknown; dims: unknown }
  | {
      kind: 'copyTimes';
      surface: 'raw' | 'facade';
      backend: unknown;
      count: unknown;
      samples: unknown;
      method: unknown;
    }
  | {
      kind: 'workspace';
      surface: 'raw' | 'facade';
      backend: unknown;
      caseName: unknown;
      dtype: unknown;
      dims: unknown;
      params: unknown;
      options: unknown;
      inject?: unknown;
      ops: FuzzOp[];
    };

/** What one native call did. */
export type FuzzOutcome = { op: string; ok: true } | { op: string; ok: false; isError: boolean; message: string };

// Values where a number is expected that no careful caller passes.
const weirdNumber = fc.constantFrom(
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  -0,
  0.5,
  -1,
  Number.MAX_VALUE,
  Number.MIN_VALUE,
  Number.MAX_SAFE_INTEGER + 2,
);
const notANumber = fc.constantFrom<unknown>('1', null, undefined, true, [], {}, 1n);

/** A dimension: mostly small, else at the edges where 32- and 64-bit products overflow. */
const dimValue: fc.Arbitrary<number> = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: 1, max: 48 }) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      0,
      2 ** 31 - 1,
      2 ** 31,
      2 ** 32 - 1,
      2 ** 32,
      2 ** 32 + 1,
      2 ** 34,
      2 ** 30,
      2 ** 53,
      2 ** 62,
      2 ** 63,
      2 ** 64,
      1e30,
    ),
  },
  { weight: 2, arbitrary: fc.integer({ min: 49, max: 2 ** 24 }) },
  { weight: 1, arbitrary: weirdNumber },
  { weight: 1, arbitrary: fc.double() },
);

/** A dimension of a shape that (mostly) fits the fuzz child's memory cap: the workspace is made and used. */
const smallDim = fc.integer({ min: 1, max: 48 });

/** A whole number in [lo, hi] that the call accepts and is cheap, or a value it must refuse. */
const boundedOr = (lo: number, hi: number, invalid: number[]) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.integer({ min: lo, max: hi }) },
    { weight: 2, arbitrary: fc.constantFrom(...invalid) },
    { weight: 1, arbitrary: weirdNumber },
  );

const floats = (max: number) => fc.float32Array({ maxLength: max });

export function sessionArb(cases: FuzzCase[]): fc.Arbitrary<FuzzSession> {
  const names = [...new Set(cases.map((c) => c.name))];
  const caseName = fc.oneof(
    { weight: 20, arbitrary: fc.constantFrom(...names) },
    { weight: 1, arbitrary: fc.string() },
  );
  const dtype = fc.oneof(
    { weight: 20, arbitrary: fc.constantFrom('fp32', 'bf16', 'fp16') },
    { weight: 1, arbitrary: fc.string() },
  );
  const backend = fc.oneof(
    { weight: 30, arbitrary: fc.constant(FUZZ_BACKEND) },
    { weight: 1, arbitrary: fc.constantFrom(FUZZ_BACKEND === 'cpu' ? 'cuda' : 'cpu', 'CPU', '', 'cpu\u0000') },
    { weight: 1, arbitrary: fc.string() },
  );
  const rawDims = fc.array(fc.oneof({ weight: 12, arbitrary: dimValue }, { weight: 1, arbitrary: notANumber }), {
    maxLength: 6,
  });

  const workspace = (surface: 'raw' | 'facade') =>
    fc.record({ caseName, dtype }).chain(({ caseName, dtype }) => {
      const c = cases.find((x) => x.name === caseName && x.dtype === dtype) ?? cases.find((x) => x.name === caseName);
      const dimCount = c?.dims ?? 2;
      const bufferName = fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom(...(c?.buffers ?? ['x'])) },
        { weight: 1, arbitrary: fc.constantFrom('', '__proto__', 'x\u0000y', 'constructor') },
        { weight: 1, arbitrary: fc.string() },
      );
      const variant =
        surface === 'raw'
          ? fc.oneof(fc.integer({ min: -2, max: 4 }), weirdNumber, notANumber)
          : fc.oneof(
              { weight: 6, arbitrary: fc.constantFrom(...(c?.variants ?? ['fused'])) },
              { weight: 1, arbitrary: fc.string() },
            );
      const data =
        surface === 'raw'
          ? fc.oneof(
              { weight: 4, arbitrary: fc.constant('exact') },
              { weight: 2, arbitrary: floats(64) },
              { weight: 1, arbitrary: fc.constantFrom<unknown>(new Float64Array(4), [1, 2], 'x', null) },
            )
          : fc.oneof({ weight: 4, arbitrary: fc.constant('exact') }, { weight: 2, arbitrary: floats(64) });
      const op: fc.Arbitrary<FuzzOp> = fc.oneof(
        fc.constant({ kind: 'buffers' as const }),
        fc.record({ kind: fc.constant('upload' as const), name: bufferName, data }),
        fc.record({ kind: fc.constant('download' as const), name: bufferName }),
        fc.record({ kind: fc.constant('poison' as const), name: bufferName }),
        fc.record({ kind: fc.constant('run' as const), variant }),
        fc.record({ kind: fc.constant('time' as const), variant }),
        fc.record({
          kind: fc.constant('timeBatch' as const),
          variant,
          calls: boundedOr(1, 4, [0, 2 ** 20 + 1, 1e30, 2 ** 31]),
        }),
        fc.record({ kind: fc.constant('setSpin' as const), spin: boundedOr(0, 20_000, [2 ** 40 + 1, 1e300, -5]) }),
        fc.constant({ kind: 'dispose' as const }),
      );
      const dims = fc.oneof(
        { weight: 6, arbitrary: fc.array(smallDim, { minLength: dimCount, maxLength: dimCount }) },
        { weight: 4, arbitrary: fc.array(dimValue, { minLength: dimCount, maxLength: dimCount }) },
        { weight: 1, arbitrary: surface === 'raw' ? rawDims : fc.array(dimValue, { maxLength: 6 }) },
      );
      const paramCount = { minLength: c?.params ?? 0, maxLength: c?.params ?? 0 };
      const params = fc.oneof(
        { weight: 8, arbitrary: fc.array(fc.double({ min: -10, max: 10, noNaN: true }), paramCount) },
        { weight: 1, arbitrary: fc.array(fc.double(), paramCount) },
        { weight: 1, arbitrary: fc.array(fc.double(), { maxLength: 3 }) },
      );
      const options =
        surface === 'raw'
          ? fc.oneof(
              {
                weight: 8,
                arbitrary: fc.record({
                  variant: fc.integer({ min: -1, max: 1 }),
                  passes: fc.integer({ min: 0, max: 3 }),
                  spin: fc.integer({ min: 0, max: 20_000 }),
                  maxBlocks: fc.integer({ min: 0, max: 64 }),
                }),
              },
              {
                weight: 3,
                arbitrary: fc.record({
                  variant: boundedOr(-1, 3, [2 ** 20 + 1, -2]),
                  passes: boundedOr(0, 3, [2 ** 20 + 1, -1]),
                  spin: boundedOr(0, 20_000, [2 ** 40 + 1, -1]),
                  maxBlocks: boundedOr(0, 64, [2 ** 31 + 1, -1]),
                }),
              },
              { weight: 1, arbitrary: fc.constantFrom<unknown>({}, null, [], 'x', { variant: 0 }) },
            )
          : fc.record({ maxBlocks: boundedOr(0, 64, [2 ** 31 + 1, -1]) }, { requiredKeys: [] });
      const inject = fc.option(
        fc.record({
          variant: fc.oneof(
            { weight: 4, arbitrary: fc.constantFrom(...(c?.variants ?? ['fused'])) },
            { weight: 1, arbitrary: fc.string() },
          ),
          passes: boundedOr(0, 3, [2 ** 20 + 1, -1]),
          spin: boundedOr(0, 20_000, [2 ** 40 + 1, -1]),
        }),
        { nil: undefined },
      );
      return fc.record({
        kind: fc.constant('workspace' as const),
        surface: fc.constant(surface),
        backend,
        caseName: fc.constant(caseName),
        dtype: fc.constant(dtype),
        dims,
        params,
        options,
        inject: surface === 'facade' ? inject : fc.constant(undefined),
        ops: fc.array(op, { maxLength: 8 }),
      });
    });

  const surface = fc.constantFrom<'raw' | 'facade'>('raw', 'facade');
  const shapeCall = fc.record({
    kind: fc.constantFrom('checkShape' as const, 'caseBuffers' as const),
    surface,
    caseName,
    dtype,
    dims: rawDims,
  });
  const copyCall = fc.record({
    kind: fc.constant('copyTimes' as const),
    surface,
    backend,
    count: boundedOr(1, 4096, [0, 2 ** 40, 2 ** 53, 1e30]),
    samples: boundedOr(1, 3, [0, 2 ** 20 + 1, 1e10]),
    method: fc.oneof(fc.constantFrom('runtime', 'kernel'), fc.string()),
  });
  return fc.oneof(
    { weight: 3, arbitrary: workspace('raw') },
    { weight: 3, arbitrary: workspace('facade') },
    { weight: 1, arbitrary: shapeCall },
    { weight: 1, arbitrary: copyCall },
  ) as fc.Arbitrary<FuzzSession>;
}
