// A property-based fuzz of the native boundary on the CPU backend (FUSEBENCH_FUZZ_BACKEND=cuda: the CUDA
// backend, on a GPU machine): random dims (mostly small, many at
// the edges where 32- and 64-bit sizes overflow), params, variants, buffer names and sizes, injections
// and options, over every registered case and precision, through the raw addon and the typed facade.
// The invariant: every call returns or throws a JS Error with a message; no call kills the process or
// hangs (a write out of bounds is seen when it faults; on a GPU machine, scripts/device/session.sh's
// memcheck-fuzz runs the same under compute-sanitizer, which sees those that do not). The calls run in a child process (suites/support/native-fuzz-child.ts), so a crash
// is this test's failure with the (shrunk) session that caused it, not a dead test runner.
//
// The child caps the backends' memory at 4 MiB (FUSEBENCH_CPU_MEMORY_BYTES, FUSEBENCH_CUDA_MEMORY_BYTES):
// every workspace the fuzzer gets accepted is then small enough to run in milliseconds, and every shape
// above that is refused by the same size check that refuses an overflowing one. On CUDA a kernel that
// faults (an illegal address, a misaligned access) surfaces as a JS error, so a fault's message fails the
// property too, and the child is restarted: the fault leaves its context unusable. Valid counts that only cost time
// (timeBatch calls, injected passes and spins) are drawn small; their invalid values are drawn too.
import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import { fc, test } from '@fast-check/vitest';
import { afterAll, describe, expect } from 'vitest';
import {
  FUZZ_BACKEND,
  type FuzzCase,
  type FuzzOutcome,
  type FuzzSession,
  sessionArb,
} from '../support/native-fuzz-ops.ts';

const CHILD = join(import.meta.dirname, '..', 'support', 'native-fuzz-child.ts');
const MEMORY_CAP = 4 * 1024 * 1024;
/** Sessions per run (each makes one to nine native calls); FUSEBENCH_FUZZ_RUNS to explore longer. */
const RUNS = Number(process.env.FUSEBENCH_FUZZ_RUNS || 20_000);
if (!Number.isSafeInteger(RUNS) || RUNS < 1) throw new Error(`FUSEBENCH_FUZZ_RUNS: expected a positive integer`);
/** A fresh seed each run, printed; FUSEBENCH_FUZZ_SEED replays one. */
const SEED = Number(process.env.FUSEBENCH_FUZZ_SEED || Math.floor(Math.random() * 2 ** 31));
if (!Number.isSafeInteger(SEED)) throw new Error('FUSEBENCH_FUZZ_SEED: expected an integer');
/**
 * A tool to run the child under, as words split at spaces (FUSEBENCH_FUZZ_WRAP: session.sh's memcheck-fuzz
 * step gives compute-sanitizer and its options); none by default.
 */
const WRAP = (process.env.FUSEBENCH_FUZZ_WRAP ?? '').split(' ').filter(Boolean);
/** How much slower than usual the child runs: FUSEBENCH_FUZZ_SLOWDOWN under compute-sanitizer (session.sh). */
const SLOWDOWN = Number(process.env.FUSEBENCH_FUZZ_SLOWDOWN || 1);
if (!(SLOWDOWN >= 1 && SLOWDOWN <= 1000)) throw new Error('FUSEBENCH_FUZZ_SLOWDOWN: expected a number from 1 to 1000');
/** A session that has not answered after this long has hung. */
const SESSION_TIMEOUT_MS = 15_000 * SLOWDOWN;

/** The child process: started on first use, and again after a crash (fast-check shrinks through crashes). */
class FuzzChild {
  #proc: ChildProcess | undefined;
  #cases: FuzzCase[] = [];
  #stderr = '';

  async start(): Promise<FuzzCase[]> {
    if (this.#proc) return this.#cases;
    this.#stderr = '';
    const node = ['--experimental-strip-types', '--no-warnings=ExperimentalWarning'];
    const [tool, ...toolArgs] = WRAP;
    const proc = fork(CHILD, [], {
      // Wrapped, the tool runs Node, which inherits the IPC channel: `tool ...toolArgs node ...node CHILD`.
      ...(tool ? { execPath: tool, execArgv: [...toolArgs, process.execPath, ...node] } : { execArgv: node }),
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      env: {
        ...process.env,
        FUSEBENCH_CPU_MEMORY_BYTES: String(MEMORY_CAP),
        FUSEBENCH_CUDA_MEMORY_BYTES: String(MEMORY_CAP),
      },
    });
    proc.stderr?.on('data', (d) => {
      this.#stderr = `${this.#stderr}${String(d)}`.slice(-4000);
    });
    this.#proc = proc;
    const ready = await this.#next(proc, 60_000 * SLOWDOWN, 'start');
    this.#cases = (ready as { cases: FuzzCase[] }).cases;
    return this.#cases;
  }

  async run(session: FuzzSession): Promise<FuzzOutcome[]> {
    await this.start();
    const proc = this.#proc as ChildProcess;
    proc.send(session);
    return (await this.#next(proc, SESSION_TIMEOUT_MS, 'session')) as FuzzOutcome[];
  }

  /** Asks the child to exit normally (so compute-sanitizer, where it runs, writes its report); killed if it does not. */
  async quit(): Promise<void> {
    const proc = this.#proc;
    this.#proc = undefined;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    proc.send({ kind: 'quit' });
    const timer = setTimeout(() => proc.kill('SIGKILL'), 30_000 * SLOWDOWN);
    await exited;
    clearTimeout(timer);
  }

  stop(): void {
    this.#proc?.kill('SIGKILL');
    this.#proc = undefined;
  }

  /** The child's next message; rejects (and forgets the child) when it dies or does not answer in time. */
  #next(proc: ChildProcess, timeoutMs: number, what: string): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        proc.off('message', onMessage);
        proc.off('exit', onExit);
      };
      const onMessage = (m: unknown) => {
        done();
        resolve(m);
      };
      const onExit = (code: number | null, signal: NodeJS.Signals | null) => {
        done();
        this.#proc = undefined;
        reject(new Error(`the child died during a ${what} (exit code ${code}, signal ${signal}):\n${this.#stderr}`));
      };
      const timer = setTimeout(() => {
        done();
        this.stop();
        reject(new Error(`the child did not answer a ${what} within ${timeoutMs} ms (a hang)`));
      }, timeoutMs);
      proc.on('message', onMessage);
      proc.on('exit', onExit);
    });
  }
}

const child = new FuzzChild();
const cases = await child.start();
const stats = { sessions: 0, calls: 0, accepted: 0, start: performance.now() };

afterAll(async () => {
  await child.quit();
  const s = ((performance.now() - stats.start) / 1000).toFixed(1);
  console.log(
    `native fuzz: ${stats.sessions} sessions, ${stats.calls} native calls (${stats.accepted} workspaces accepted) in ${s} s; seed ${SEED} (FUSEBENCH_FUZZ_SEED=${SEED} replays it)`,
  );
  // A fuzz whose workspaces are all refused never reaches a kernel: it would pass for want of trying. About
  // one session in nine gets one (2,187 of 20,000 on the CPU; 555 of 5,000 on an H200).
  if (stats.sessions >= 1000) {
    expect(stats.accepted, 'workspaces accepted: too few for the fuzz to reach the kernels').toBeGreaterThan(
      stats.sessions / 50,
    );
  }
}, 60_000 * SLOWDOWN);

/** What the CUDA runtime says of a kernel that faulted: an error in JS, but a write out of bounds. */
const DEVICE_FAULT =
  /cudaError(IllegalAddress|MisalignedAddress|LaunchFailure|IllegalInstruction|HardwareStackError|InvalidPc|Assert)\b/;

/** Every outcome returned, or threw an Error with a message that is not a device fault. */
function expectNoStrangeThrow(outcomes: FuzzOutcome[]): void {
  for (const o of outcomes) {
    if (o.ok) continue;
    expect(o.isError, `${o.op} threw a non-Error: ${o.message}`).toBe(true);
    expect(o.message.length, `${o.op} threw an Error without a message`).toBeGreaterThan(0);
    if (DEVICE_FAULT.test(o.message)) {
      child.stop();
      expect.fail(`${o.op} faulted on the device: ${o.message}`);
    }
  }
}

describe(`the native boundary under fuzzing (${FUZZ_BACKEND === 'cpu' ? 'CPU' : 'CUDA'} backend, in a child process)`, () => {
  // Else every session would be refused for want of the backend, and the fuzz would pass having run nothing.
  test('the fuzzed backend is usable: a small workspace is made, runs and is read back', async () => {
    const outcomes = await child.run({
      kind: 'workspace',
      surface: 'facade',
      backend: FUZZ_BACKEND,
      caseName: 'gelu_scale',
      dtype: 'fp32',
      dims: [1024],
      params: [0.5],
      options: {},
      ops: [
        { kind: 'run', variant: 'fused' },
        { kind: 'download', name: 'y' },
      ],
    });
    expect(outcomes).toEqual([
      { op: 'new Workspace', ok: true },
      { op: 'run', ok: true },
      { op: 'download', ok: true },
    ]);
    // The child's memory cap holds (a stale build would fuzz uncapped, with shapes that take seconds): three
    // buffers of 4 MiB are refused, naming it.
    const [capped] = await child.run({
      kind: 'workspace',
      surface: 'facade',
      backend: FUZZ_BACKEND,
      caseName: 'gelu_scale',
      dtype: 'fp32',
      dims: [2 ** 20],
      params: [0.5],
      options: {},
      ops: [],
    });
    expect(capped).toMatchObject({
      ok: false,
      message: expect.stringContaining(`(FUSEBENCH_${FUZZ_BACKEND.toUpperCase()}_MEMORY_BYTES)`),
    });
  });

  test('the child sees every registered case in every precision', () => {
    expect(cases.length).toBeGreaterThanOrEqual(12);
    expect(new Set(cases.map((c) => c.dtype))).toEqual(new Set(['fp32', 'bf16', 'fp16']));
    for (const c of cases) expect(c.buffers.length, `${c.name} ${c.dtype}`).toBeGreaterThan(0);
  });

  // The reproductions (shapes whose sizes wrapped to a tiny allocation): refused before allocating,
  // naming the shape and the limit.
  test.each([
    ['bias_gelu', [2 ** 34, 2 ** 30]],
    ['residual_layernorm', [2 ** 34, 2 ** 30]],
    ['rmsnorm_residual', [2 ** 34, 2 ** 30]],
    ['scale_mask_softmax', [2 ** 17, 2 ** 17, 2 ** 17, 2 ** 13]],
    ['gelu_scale', [2 ** 53]],
  ])('%s at %j is refused before allocation, naming the shape and the limit', async (caseName, dims) => {
    for (const dtype of ['fp32', 'bf16', 'fp16']) {
      const outcomes = await child.run({
        kind: 'workspace',
        surface: 'raw',
        backend: FUZZ_BACKEND,
        caseName,
        dtype,
        dims,
        params: Array(cases.find((c) => c.name === caseName)?.params ?? 0).fill(1e-5),
        options: { variant: -1, passes: 0, spin: 0, maxBlocks: 0 },
        ops: [{ kind: 'run', variant: 1 }],
      });
      const [made] = outcomes;
      expect(made?.ok, `${caseName} ${dtype} ${JSON.stringify(dims)}`).toBe(false);
      if (made && !made.ok) {
        expect(made.isError).toBe(true);
        expect(made.message).toContain(`shape [${dims.join(', ')}]`);
        expect(made.message).toMatch(/limit is [\d,]+ bytes|breaks the limit/);
      }
    }
  });

  test('the harness sees a crash: a child killed by a signal fails the session, and the next one gets a fresh child', async () => {
    await expect(child.run({ kind: 'crash' } as unknown as FuzzSession)).rejects.toThrow(
      // Under a wrapping tool (FUSEBENCH_FUZZ_WRAP) the tool ends with an exit code instead of the signal.
      WRAP.length > 0
        ? /the child died during a session \(exit code \d+, signal null\)/
        : /the child died during a session \(exit code null, signal SIGABRT\)/,
    );
    const after = await child.run({
      kind: 'caseBuffers',
      surface: 'raw',
      caseName: 'gelu_scale',
      dtype: 'fp32',
      dims: [8],
    });
    expect(after).toEqual([{ op: 'caseBuffers', ok: true }]);
  });

  test.prop([fc.constant(null).chain(() => sessionArb(cases))], { numRuns: RUNS, seed: SEED, endOnFailure: false })(
    'every call returns or throws an Error; the process never dies or hangs',
    async (session) => {
      const outcomes = await child.run(session);
      stats.sessions++;
      stats.calls += outcomes.length;
      if (session.kind === 'workspace' && outcomes[0]?.ok) stats.accepted++;
      expectNoStrangeThrow(outcomes);
    },
  );
});
