// Baselines are never lost: concurrent `--update-baselines` writers serialize on a lock file, a held
// lock fails with its holder named, a dead holder's lock is taken over, and a write interrupted by
// SIGTERM or SIGKILL leaves the old file or the new one and no temporary file behind.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, test } from 'vitest';
import { loadBaselineFile } from '../../src/gate/baseline-file.ts';
import {
  heldLockMessage,
  holdRunLock,
  lockPath,
  processStart,
  withBaselineLock,
} from '../../src/gate/baseline-lock.ts';
import { recordBaselines } from '../../src/gate/record-baselines.ts';
import { oneShapeResults } from '../support/measured-case.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const WRITER = join(import.meta.dirname, '..', 'support', 'baseline-writer.ts');
const NODE_ARGS = ['--experimental-strip-types', '--no-warnings=ExperimentalWarning'];
const linux = process.platform === 'linux';

const tmp = () => mkdtempSync(join(tmpdir(), 'fusebench-lock-'));
const entries = (file: string) => Object.keys(loadBaselineFile(file, ['gelu_scale']).data.entries).sort();
const key = (label: string) => `gelu_scale/${label}/fp32`;
/** Files in the folder other than the baseline file itself: temporary files, locks. */
const leftovers = (dir: string) => readdirSync(dir).filter((n) => n !== 'test-cpu.json');

/** Records `label` in a child process, to completion. */
function writeNow(file: string, label: string) {
  return spawnSync(process.execPath, [...NODE_ARGS, WRITER, file, label], { cwd: ROOT, encoding: 'utf8' });
}

interface Running {
  child: ChildProcess;
  out: { stdout: string; stderr: string };
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts a child writer; with `pause`, it stops inside the atomic write until `pause.go` exists. */
function start(
  file: string,
  label: string,
  pause?: { ready: string; go: string },
  env: NodeJS.ProcessEnv = {},
): Running {
  const args = [...NODE_ARGS, WRITER, file, label, ...(pause ? [pause.ready, pause.go] : [])];
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env } });
  const out = { stdout: '', stderr: '' };
  child.stdout?.on('data', (d) => {
    out.stdout += String(d);
  });
  child.stderr?.on('data', (d) => {
    out.stderr += String(d);
  });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, out, exit };
}

/** Polls until `ok()`; fails the test after 60 s so a broken lock cannot hang the suite. */
async function waitFor(ok: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 3000; i++) {
    if (ok()) return;
    await sleep(20);
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** A folder with a baseline file holding one entry, `old`. */
function seeded() {
  const dir = tmp();
  const file = join(dir, 'test-cpu.json');
  const r = writeNow(file, 'old');
  expect(r.status, r.stderr).toBe(0);
  return { dir, file, pause: { ready: join(dir, 'ready'), go: join(dir, 'go') } };
}

const results = (label: string) => oneShapeResults(label, 'test', '2026-11-23T00:00:00.000Z');

describe.skipIf(!linux)('two writers at once', () => {
  test('both succeed, the second waits for the first, and no entry is lost', async () => {
    const { dir, file, pause } = seeded();
    const first = start(file, 'a', pause);
    await waitFor(() => existsSync(pause.ready), 'the first writer to hold the lock');
    const second = start(file, 'b');
    await waitFor(() => second.out.stderr.includes('waiting for'), 'the second writer to wait');
    expect(second.out.stderr).toContain(`held by pid ${first.child.pid} on ${hostname()}`);
    expect(second.out.stderr).toContain('(`baseline-writer a`)');
    writeFileSync(pause.go, '');
    const [a, b] = await Promise.all([first.exit, second.exit]);
    expect(a, first.out.stderr).toEqual({ code: 0, signal: null });
    expect(b, second.out.stderr).toEqual({ code: 0, signal: null });
    expect(entries(file)).toEqual([key('a'), key('b'), key('old')]);
    expect(leftovers(dir)).toEqual(['go', 'ready']);
  });
});

describe('a lock held by a live process', () => {
  const held = (host: string) => {
    const dir = tmp();
    const file = join(dir, 'test-cpu.json');
    const holder = {
      pid: process.ppid, // alive: this process's own pid would be a killed run's (isStale)
      host,
      started: '2026-11-23T01:02:03.000Z',
      command: 'npm run perf -- --update-baselines',
    };
    writeFileSync(lockPath(file), JSON.stringify(holder));
    return { dir, file };
  };

  test('fails after its wait, naming the holder, since when, its command and how to clear a stale lock', async () => {
    const { dir, file } = held(hostname());
    await expect(recordBaselines(file, results('x'), 'c', { waitMs: 50, pollMs: 10, warn: () => {} })).rejects.toThrow(
      `${file} is locked by another baseline update: pid ${process.ppid} on ${hostname()} since 2026-11-23T01:02:03.000Z ` +
        `(\`npm run perf -- --update-baselines\`). Waited 0 s. If pid ${process.ppid} is not a fusebench run (its number may ` +
        `have been reused), delete ${lockPath(file)} and run again.`,
    );
    expect(readdirSync(dir)).toEqual(['test-cpu.json.lock']);
  });

  test('on another host, says that it cannot see that host’s processes', async () => {
    const { file } = held('gpu-07');
    await expect(recordBaselines(file, results('x'), 'c', { waitMs: 0, warn: () => {} })).rejects.toThrow(
      /pid \d+ on gpu-07 .*fusebench cannot see processes on gpu-07; if none is updating baselines there, delete .*\.lock/,
    );
  });
});

describe('a lock that names no process', () => {
  test.each([0, -1, 1.5])('a holder of pid %d is no holder: an old lock of it is taken over', async (pid) => {
    const dir = tmp();
    const file = join(dir, 'test-cpu.json');
    const holder = { pid, host: hostname(), started: '2026-11-23T01:02:03.000Z', command: 'x' };
    writeFileSync(lockPath(file), JSON.stringify(holder));
    const hourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(lockPath(file), hourAgo, hourAgo);
    const warned: string[] = [];
    await recordBaselines(file, results('x'), 'c', { waitMs: 50, pollMs: 10, warn: (m) => warned.push(m) });
    expect(entries(file)).toEqual([key('x')]);
    expect(warned.join('\n')).toMatch(/took over the lock .*: it names no holder/);
  });
});

describe.skipIf(!linux)('a writer killed in the middle of its write', () => {
  test('SIGKILL leaves the old file whole; the next writer takes over the stale lock and removes the temporary file', async () => {
    const { dir, file, pause } = seeded();
    const before = readFileSync(file, 'utf8');
    const killed = start(file, 'a', pause);
    await waitFor(() => existsSync(pause.ready), 'the writer to be inside its write');
    killed.child.kill('SIGKILL');
    expect((await killed.exit).signal).toBe('SIGKILL');
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(leftovers(dir).filter((n) => n.endsWith('.tmp'))).toHaveLength(1);
    expect(existsSync(lockPath(file))).toBe(true);

    const warnings: string[] = [];
    const outcome = await recordBaselines(file, results('b'), 'c', { warn: (m) => warnings.push(m) });
    expect(warnings).toEqual([
      expect.stringMatching(
        new RegExp(`took over the stale lock .*\\.lock: pid ${killed.child.pid} on .* is no longer running`),
      ),
    ]);
    expect(outcome.removedTemp).toHaveLength(1);
    expect(entries(file)).toEqual([key('b'), key('old')]);
    expect(leftovers(dir)).toEqual(['go', 'ready'].filter((n) => existsSync(join(dir, n))));
  });

  test('SIGTERM waits for the synchronous write to finish, then ends the process: a whole new file, no temporary file, no lock', async () => {
    const { dir, file, pause } = seeded();
    const stopped = start(file, 'a', pause);
    await waitFor(() => existsSync(pause.ready), 'the writer to be inside its write');
    stopped.child.kill('SIGTERM');
    writeFileSync(pause.go, '');
    // Raised again after cleanup, so the process still ends by SIGTERM.
    expect((await stopped.exit).signal).toBe('SIGTERM');
    expect(entries(file)).toEqual([key('a'), key('old')]);
    expect(leftovers(dir)).toEqual(['go', 'ready']);
  });
});

describe('files registered for removal on a signal', () => {
  test('are removed on SIGTERM while the process waits, and the process then ends by SIGTERM', async () => {
    const dir = tmp();
    const victim = join(dir, '.half-written.tmp');
    const ready = join(dir, 'ready');
    const script = [
      "import { writeFileSync } from 'node:fs';",
      "import { removeOnSignal } from './src/base/signal-cleanup.ts';",
      `writeFileSync(${JSON.stringify(victim)}, 'half');`,
      `removeOnSignal(${JSON.stringify(victim)});`,
      `writeFileSync(${JSON.stringify(ready)}, '');`,
      'setInterval(() => {}, 1000);',
    ].join('\n');
    const child = spawn(process.execPath, [...NODE_ARGS, '--input-type=module', '-e', script], { cwd: ROOT });
    const exit = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_, signal) => resolve(signal)));
    await waitFor(() => existsSync(ready), 'the child to register its file');
    child.kill('SIGTERM');
    expect(await exit).toBe('SIGTERM');
    expect(existsSync(victim)).toBe(false);
  });
});

test("a run lock naming this process's own pid on this host is a killed run's (pid 1 in a container): taken over", () => {
  const dir = mkdtempSync(join(tmpdir(), 'fusebench-run-lock-'));
  const lock = join(dir, '.fusebench-perf.lock');
  writeFileSync(lock, JSON.stringify({ pid: process.pid, host: hostname(), started: 'x', command: 'killed' }));
  const warnings: string[] = [];
  const release = holdRunLock(lock, `--out-dir ${dir}`, { warn: (m) => warnings.push(m) });
  expect(warnings.join('\n')).toContain(`took over the stale lock ${lock}`);
  expect(JSON.parse(readFileSync(lock, 'utf8')).command).not.toBe('killed');
  release();
  expect(existsSync(lock)).toBe(false);
});

test("a baseline lock naming this process's own pid on this host is stale too: no wait, no refusal before the run", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fusebench-own-pid-'));
  const file = join(dir, 'nvidia-h200.json');
  const lock = lockPath(file);
  writeFileSync(lock, JSON.stringify({ pid: process.pid, host: hostname(), started: 'x', command: 'killed' }));
  expect(heldLockMessage(file)).toBeNull();
  const warnings: string[] = [];
  const ran = await withBaselineLock(file, () => 'ran', { waitMs: 0, warn: (m) => warnings.push(m) });
  expect(ran).toBe('ran');
  expect(warnings.join('\n')).toContain(`took over the stale lock ${lock}`);
  expect(existsSync(lock)).toBe(false);
});

test("a stale run lock that another run is taking over: refused after a second, naming the lock, its holder and the takeover's file", () => {
  const dir = mkdtempSync(join(tmpdir(), 'fusebench-run-lock-'));
  const lock = join(dir, '.fusebench-perf.lock');
  // Stale (this process's own pid on this host: a killed run's), with a takeover under way (a fresh guard file).
  writeFileSync(lock, JSON.stringify({ pid: process.pid, host: hostname(), started: 'then', command: 'killed' }));
  writeFileSync(`${lock}.takeover`, '');
  expect(() => holdRunLock(lock, `--out-dir ${dir}`, { warn: () => {} })).toThrow(
    `--out-dir ${dir}: could not take ${lock}: it is stale (pid ${process.pid} on ${hostname()} since then (\`killed\`), no longer running), and another run's takeover of it (${lock}.takeover) has not finished in 1 s. If no fusebench is running, delete both files and run again`,
  );
  // Once the other run's takeover is over (its guard gone), the lock is taken over as usual.
  rmSync(`${lock}.takeover`);
  const warnings: string[] = [];
  holdRunLock(lock, `--out-dir ${dir}`, { warn: (m) => warnings.push(m) })();
  expect(warnings.join('\n')).toContain(`took over the stale lock ${lock}`);
});

describe.skipIf(!linux)('a lock whose pid now names another process (pid reuse, a reboot)', () => {
  // The parent process is alive; the lock says its pid was taken by a process that started at another time,
  // or in another boot. Either way the process that took the lock is gone, whatever now runs under its pid.
  const boot = () => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  const lockNaming = (fields: Record<string, unknown>) => {
    const dir = mkdtempSync(join(tmpdir(), 'fusebench-pid-reuse-'));
    const file = join(dir, 'nvidia-h200.json');
    const holder = { pid: process.ppid, host: hostname(), started: 'then', command: 'killed', ...fields };
    writeFileSync(lockPath(file), JSON.stringify(holder));
    return file;
  };

  test('a process start this machine can read: a number of clock ticks, the same on every read', () => {
    const start = processStart(process.ppid);
    expect(start).toMatch(/^\d+$/);
    expect(processStart(process.ppid)).toBe(start);
    expect(processStart(process.pid)).not.toBe(undefined);
  });

  test.each([
    [
      'its process started at another time',
      () => ({ boot: boot(), since: `${Number(processStart(process.ppid)) + 1}` }),
    ],
    ['it was taken in another boot', () => ({ boot: 'another-boot', since: processStart(process.ppid) })],
  ])('taken over at once when %s', async (_, fields) => {
    const file = lockNaming(fields());
    expect(heldLockMessage(file)).toBeNull();
    const warnings: string[] = [];
    expect(await withBaselineLock(file, () => 'ran', { waitMs: 0, warn: (m) => warnings.push(m) })).toBe('ran');
    expect(warnings.join('\n')).toContain(`took over the stale lock ${lockPath(file)}: pid ${process.ppid} on`);
  });

  test.each([
    ['its start and boot match the live process', () => ({ boot: boot(), since: processStart(process.ppid) })],
    ['it records neither (a lock of an older fusebench, or another system)', () => ({})],
  ])('held when %s: refused, naming the holder', async (_, fields) => {
    const file = lockNaming(fields());
    expect(heldLockMessage(file)).toContain(`is locked by another baseline update: pid ${process.ppid} on`);
    await expect(withBaselineLock(file, () => 'ran', { waitMs: 0, warn: () => {} })).rejects.toThrow(/is locked by/);
  });

  test('a lock this process takes records its boot and start', async () => {
    const file = lockNaming({});
    rmSync(lockPath(file));
    const recorded = await withBaselineLock(file, () => JSON.parse(readFileSync(lockPath(file), 'utf8')));
    expect(recorded).toMatchObject({ pid: process.pid, boot: boot(), since: processStart(process.pid) });
  });
});

describe.skipIf(!linux)('a lock path that is not a file fusebench wrote', () => {
  // But for the folder, each would hang the process (a named pipe blocks its reader), fill memory (/dev/zero)
  // or spin for good (a link to nothing: never readable, never creatable); each is refused, naming the lock.
  const cases: [string, (lock: string) => void, string][] = [
    ['a folder', (lock) => mkdirSync(lock), 'it is a folder, not a file'],
    ['a named pipe', (lock) => spawnSync('mkfifo', [lock]), 'it is a named pipe, not a file'],
    ['a link to /dev/zero', (lock) => symlinkSync('/dev/zero', lock), 'it is a device, not a file'],
    ['a link to a missing file', (lock) => symlinkSync('/nonexistent/fusebench', lock), 'is a link to a missing file'],
  ];
  test.each(cases)('%s: the run lock and the baseline lock refuse it', async (_, make, why) => {
    const dir = tmp();
    const runLock = join(dir, '.fusebench-perf.lock');
    make(runLock);
    expect(() => holdRunLock(runLock, `--out-dir ${dir}`, { warn: () => {} })).toThrow(why);
    const file = join(dir, 'test-cpu.json');
    make(lockPath(file));
    await expect(withBaselineLock(file, () => 'ran', { waitMs: 1_000, warn: () => {} })).rejects.toThrow(
      new RegExp(`${lockPath(file).replaceAll('.', '\\.')}.*(${why}).*a lock must be a file, or absent`),
    );
  });
});
