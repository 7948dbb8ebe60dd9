// The child process of native-fuzz.test.ts: runs the native calls it is sent, one session per IPC
// message, and answers with what each call did (returned, or threw what). A crash here kills only this
// process; the parent sees the signal and fails the property with the session that caused it.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { loadCases } from '../../cases/registry.ts';
import * as facade from '../../src/addon/native.ts';
import type { FuzzCase, FuzzOp, FuzzOutcome, FuzzSession } from './native-fuzz-ops.ts';

const root = join(import.meta.dirname, '..', '..');
// biome-ignore lint/suspicious/noExplicitAny: the raw addon, called with whatever the fuzzer made.
const raw: any = createRequire(import.meta.url)(join(root, 'build', 'Release', 'fusebench.node'));

function outcome(op: string, fn: () => unknown): FuzzOutcome {
  try {
    fn();
    return { op, ok: true };
  } catch (e) {
    return {
      op,
      ok: false,
      isError: e instanceof Error,
      message: e instanceof Error ? e.message : String(e),
    };
  }
}

// biome-ignore lint/suspicious/noExplicitAny: a workspace from either surface.
function apply(ws: any, op: FuzzOp): unknown {
  switch (op.kind) {
    case 'buffers':
      return ws.buffers();
    case 'upload': {
      // 'exact': as many floats as the buffer holds (so the upload reaches the copy, not the length check).
      const count = (ws.buffers() as { name: string; count: number }[]).find((b) => b.name === op.name)?.count ?? 0;
      return ws.upload(op.name, op.data === 'exact' ? new Float32Array(Math.min(count, 1 << 22)) : op.data);
    }
    case 'download':
      return ws.download(op.name);
    case 'poison':
      return ws.poison(op.name);
    case 'run':
      return ws.run(op.variant);
    case 'time':
      return ws.time(op.variant);
    case 'timeBatch':
      return ws.timeBatch(op.variant, op.calls);
    case 'setSpin':
      return ws.setSpin(op.spin);
    case 'dispose':
      return ws.dispose();
  }
}

function runSession(s: FuzzSession): FuzzOutcome[] {
  const out: FuzzOutcome[] = [];
  switch (s.kind) {
    case 'checkShape':
      out.push(
        outcome('checkShape', () => (s.surface === 'raw' ? raw : facade).checkShape(s.caseName, s.dtype, s.dims)),
      );
      return out;
    case 'caseBuffers':
      out.push(
        outcome('caseBuffers', () => (s.surface === 'raw' ? raw : facade).caseBuffers(s.caseName, s.dtype, s.dims)),
      );
      return out;
    case 'copyTimes':
      out.push(
        outcome('copyTimes', () =>
          s.surface === 'raw'
            ? raw.copyTimes(s.backend, [s.count, s.samples], s.method)
            : facade.copyTimes(s.backend as 'cpu', s.count as number, s.samples as number, s.method as 'runtime'),
        ),
      );
      return out;
    case 'workspace': {
      // biome-ignore lint/suspicious/noExplicitAny: see above.
      let ws: any;
      out.push(
        outcome('new Workspace', () => {
          ws =
            s.surface === 'raw'
              ? new raw.Workspace(s.backend, s.caseName, s.dtype, s.dims, s.params, s.options)
              : new facade.Workspace(
                  s.backend as 'cpu',
                  s.caseName as string,
                  s.dtype as string,
                  s.dims as number[],
                  s.params as number[],
                  s.inject as never,
                  s.options as never,
                );
        }),
      );
      if (!ws) return out;
      for (const op of s.ops) out.push(outcome(op.kind, () => apply(ws, op)));
      return out;
    }
  }
}

process.on('message', (s: FuzzSession | { kind: 'crash' } | { kind: 'quit' }) => {
  // The harness's own check that a crash fails the test: abort as a native crash would.
  if (s.kind === 'crash') process.abort();
  // The end of the fuzz: exit normally, so a tool around this process (compute-sanitizer) writes its report.
  else if (s.kind === 'quit') process.exit(0);
  else process.send?.(runSession(s));
});
/** Each case folder's small test shapes (a case whose limits tie its dims together keeps none of the equal ones). */
const testShapes = new Map((await loadCases()).map((c) => [c.nativeCase, c.testShapes]));

/** A case's buffer names, read at the first small shape that keeps its limits (names do not depend on it). */
function bufferNames(name: string, dtype: string, dims: number): string[] {
  const equal = [2, 64, 1, 128].map((d) => Array(dims).fill(d) as number[]);
  for (const shape of [...equal, ...(testShapes.get(name) ?? [])]) {
    try {
      return facade.caseBuffers(name, dtype, [...shape]).map((b) => b.name);
    } catch {
      // Breaks a limit of this case: try the next.
    }
  }
  return [];
}

const cases: FuzzCase[] = facade.nativeCases().map((c) => ({
  name: c.name,
  dtype: c.dtype,
  dims: c.dims.length,
  params: c.params.length,
  variants: c.variants.map((v) => v.name),
  buffers: bufferNames(c.name, c.dtype, c.dims.length),
}));
process.send?.({ ready: true, cases });
