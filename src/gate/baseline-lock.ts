/**
 * An exclusive lock around the read-modify-write of a baseline file, so that two `--update-baselines`
 * runs never lose each other's entries. The lock is a file next to the baseline file
 * (`<file>.lock`), created with O_EXCL, holding who took it: {pid, host, started, command}. A second
 * writer polls until the lock is free or its wait runs out, then fails naming the holder and how to
 * clear a stale lock. A lock whose process is dead on this host is taken over with a warning, and so is one
 * whose pid now names another process (on Linux the lock records the boot and the process's start time:
 * in a container every run may be pid 1, and a busy host reuses pids).
 */
import {
  closeSync,
  existsSync,
  fsyncSync,
  lstatSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { makeDirs, resolveLinks } from '../base/atomic-write.ts';
import { logText } from '../base/log-text.ts';
import { procStatField } from '../base/proc-stat.ts';
import { readTextFile } from '../base/read-text.ts';
import { removeOnSignal } from '../base/signal-cleanup.ts';

/** Who holds a lock. */
interface LockHolder {
  pid: number;
  host: string;
  /** ISO time the lock was taken. */
  started: string;
  command: string;
  /** Linux: the boot the lock was taken in and the holder's start in it (processStart); absent elsewhere. */
  boot?: string;
  since?: string;
}

/** How long to wait for a lock, and where messages go. */
export interface BaselineLockOptions {
  /** How long a second writer waits before it fails; default 120 s. */
  waitMs?: number;
  /** How often it looks again; default 200 ms. */
  pollMs?: number;
  /** The command recorded in the lock (shown to a writer that waits); default this process's arguments. */
  command?: string;
  /** Warnings (a stale lock taken over) and the one "waiting for" line; default console.warn. */
  warn?: (message: string) => void;
}

/** Locks without a readable holder younger than this may still be being written; older ones are stale. */
const UNREADABLE_GRACE_MS = 10_000;

/** The guard file a waiter holds while it removes a stale lock (takeOver). */
const takeoverGuard = (lock: string) => `${lock}.takeover`;

/** The lock file of a baseline file. */
export function lockPath(file: string): string {
  return `${file}.lock`;
}

/** A lock file that exists: its holder, or how old it is when it names none. */
type Present = { holder: LockHolder } | { unreadable: true; ageMs: number };
type Found = Present | { gone: true };

function readHolder(lock: string): Found {
  let text: string;
  let ageMs: number;
  try {
    ageMs = Date.now() - statSync(lock).mtimeMs;
    // Only a regular file of sane size: a named pipe would block this process for good, /dev/zero fill memory.
    text = readTextFile(lock);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
      // Gone since it was found, unless it is a link to nothing, which would never go (nor be created anew).
      if (!lstatSync(lock, { throwIfNoEntry: false })?.isSymbolicLink()) return { gone: true };
      throw new Error(`the lock ${lock} is a link to a missing file; a lock must be a file, or absent: delete it`);
    }
    throw new Error(`${(e as Error).message}; a lock must be a file, or absent: delete it if no fusebench is running`);
  }
  try {
    const h = JSON.parse(text) as Partial<LockHolder>;
    // A pid of 0 or below names no process: kill(0 or −n, 0) asks about a group and would always say alive.
    const pid = h.pid;
    if (
      typeof pid === 'number' &&
      Number.isSafeInteger(pid) &&
      pid > 0 &&
      typeof h.host === 'string' &&
      typeof h.started === 'string'
    ) {
      const holder: LockHolder = { pid, host: h.host, started: h.started, command: String(h.command ?? '') };
      if (typeof h.boot === 'string' && typeof h.since === 'string')
        Object.assign(holder, { boot: h.boot, since: h.since });
      return { holder };
    }
  } catch {
    // Half-written or not ours: judged by age below.
  }
  return { unreadable: true, ageMs };
}

const same = (a: LockHolder, b: LockHolder) => a.pid === b.pid && a.host === b.host && a.started === b.started;

/** Whether a process of this host is running (EPERM: it runs as another user). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Linux's id of this boot, or undefined where there is none to read. */
function bootId(): string | undefined {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * When a process started, in clock ticks since boot (Linux: field 22 of /proc/<pid>/stat); undefined where it
 * cannot be read. With the boot it names one process for good.
 */
export function processStart(pid: number): string | undefined {
  const start = procStatField(pid, 22);
  return start && /^\d+$/.test(start) ? start : undefined;
}

/**
 * Whether the process a lock of this host names is gone although its pid runs: the host has booted since,
 * or the pid's process started at another time than the holder's. False (not known) when the lock or this
 * host records neither, or the pid's start cannot be read.
 */
function pidReused(h: LockHolder): boolean {
  if (h.boot === undefined || h.since === undefined) return false;
  const boot = bootId();
  if (boot === undefined) return false;
  if (boot !== h.boot) return true;
  const since = processStart(h.pid);
  return since !== undefined && since !== h.since;
}

/**
 * Whether a lock found is left over: its holder no longer runs on this host (its pid is free, or names a
 * process that started after the lock's, or the host has booted since), or is this very process's pid
 * there (no live holder can be: this process holds none while it asks, so it is a killed run's, as in a
 * container where every run is pid 1); a lock naming no holder, once it is too old to be still being written.
 */
function isStale(found: Present): boolean {
  if (!('holder' in found)) return found.ageMs > UNREADABLE_GRACE_MS;
  const h = found.holder;
  return h.host === hostname() && (h.pid === process.pid || !alive(h.pid) || pidReused(h));
}

/** What a lock that names no holder may be, and how to clear it. */
function noHolderYet(lock: string): string {
  return `${lock} names no holder yet: a run is taking it, or one was killed as it did; if no fusebench is running, delete ${lock}`;
}

function describeHolder(h: LockHolder): string {
  // Host, time and command come from the lock file: one escaped line each (log-text.ts).
  return `pid ${h.pid} on ${logText(h.host, 200)} since ${logText(h.started, 100)} (${h.command ? `\`${logText(h.command, 500)}\`` : 'no command recorded'})`;
}

/** This process as a lock's holder, from now. */
function thisProcess(command = process.argv.join(' ')): LockHolder {
  const me: LockHolder = { pid: process.pid, host: hostname(), started: new Date().toISOString(), command };
  const boot = bootId();
  const since = processStart(process.pid);
  if (boot !== undefined && since !== undefined) Object.assign(me, { boot, since });
  return me;
}

/** Creates the lock with O_EXCL; when this process now holds it, the function that ends its signal cleanup. */
function tryCreate(lock: string, me: LockHolder): (() => void) | null {
  // Registered before the file exists, so a signal during the locked work removes it (signal-cleanup.ts).
  const forget = removeOnSignal(lock);
  let fd: number;
  try {
    fd = openSync(lock, 'wx');
  } catch (e) {
    forget();
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return null;
    // The code stays with it: a caller may go on without a lock the file system refuses (src/run/device-lock.ts).
    throw Object.assign(new Error(`Cannot create the lock file ${lock}: ${(e as Error).message}`), {
      code: (e as NodeJS.ErrnoException).code,
    });
  }
  try {
    writeFileSync(fd, `${JSON.stringify(me)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return forget;
}

/**
 * Removes a stale lock, under a short-lived guard file so that two waiters cannot both remove it (the
 * second would remove the lock the first has just taken). Returns whether it removed one.
 */
function takeOver(lock: string, stale: Present, warn: (m: string) => void): boolean {
  const guard = takeoverGuard(lock);
  let fd: number;
  try {
    fd = openSync(guard, 'wx');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw new Error(`Cannot take over the stale lock ${lock} (its guard ${guard}): ${(e as Error).message}`);
    }
    // Another waiter is taking over; a guard left by a killed one is cleared once it is old.
    try {
      if (Date.now() - statSync(guard).mtimeMs > UNREADABLE_GRACE_MS) rmSync(guard, { force: true });
    } catch {
      // It went away meanwhile.
    }
    return false;
  }
  try {
    const now = readHolder(lock);
    const unchanged =
      'holder' in now && 'holder' in stale
        ? same(now.holder, stale.holder)
        : 'unreadable' in now && 'unreadable' in stale;
    if (!unchanged) return false;
    rmSync(lock, { force: true });
    warn(
      'holder' in stale
        ? `fusebench: took over the stale lock ${lock}: ${describeHolder(stale.holder)} is no longer running`
        : `fusebench: took over the lock ${lock}: it names no holder and is ${Math.round(stale.ageMs / 1000)} s old`,
    );
    return true;
  } finally {
    closeSync(fd);
    rmSync(guard, { force: true });
  }
}

function timeoutMessage(file: string, lock: string, found: Present, waitedMs: number): string {
  const waited = `Waited ${Math.round(waitedMs / 1000)} s`;
  if (!('holder' in found)) {
    return `${file} is locked (${lock} names no holder). ${waited}. If no fusebench is updating baselines, delete ${lock} and run again.`;
  }
  const h = found.holder;
  const here = h.host === hostname();
  const check = here
    ? `If pid ${h.pid} is not a fusebench run (its number may have been reused)`
    : `fusebench cannot see processes on ${h.host}; if none is updating baselines there`;
  return `${file} is locked by another baseline update: ${describeHolder(h)}. ${waited}. ${check}, delete ${lock} and run again.`;
}

/**
 * Why an update of `path` would have to wait now: the lock's holder, named, while it is held by a live
 * process (or one on another host, or a lock too young to judge); null when it is free or stale. For a
 * check before a long run, so a held lock fails at once instead of after the run and the wait.
 */
export function heldLockMessage(path: string): string | null {
  const file = resolveLinks(path);
  const lock = lockPath(file);
  if (!existsSync(lock)) return null;
  const found = readHolder(lock);
  if ('gone' in found) return null;
  if (isStale(found)) return null;
  if ('holder' in found) {
    return `${file} is locked by another baseline update: ${describeHolder(found.holder)}. If no fusebench is updating it, delete ${lock} and run again`;
  }
  return `${file} is locked (${noHolderYet(lock)})`;
}

/**
 * Runs `fn` while holding the baseline file's lock: waits (polling) while another process holds it,
 * takes over a stale one, fails after `waitMs` naming the holder. `fn` runs synchronously, so reading
 * the file, merging and writing it happen with nothing else in between; a SIGINT or SIGTERM meanwhile is
 * handled after `fn` returns and the lock is released.
 */
export async function withBaselineLock<T>(path: string, fn: () => T, options: BaselineLockOptions = {}): Promise<T> {
  // Through a symbolic link: every writer of the shared target takes the target's lock.
  const file = resolveLinks(path);
  const lock = lockPath(file);
  const waitMs = options.waitMs ?? 120_000;
  const pollMs = options.pollMs ?? 200;
  const warn = options.warn ?? ((m: string) => console.warn(m));
  const me = thisProcess(options.command);
  // The first baseline of a device may be the first file of its folder.
  makeDirs(dirname(file));
  const start = Date.now();
  let announced = false;
  let forget: (() => void) | null;
  for (;;) {
    forget = tryCreate(lock, me);
    if (forget) break;
    const found = readHolder(lock);
    if ('gone' in found) continue;
    const stale = isStale(found);
    if (stale && takeOver(lock, found, warn)) continue;
    const waited = Date.now() - start;
    if (waited >= waitMs) throw new Error(timeoutMessage(file, lock, found, waited));
    if (!announced && 'holder' in found) {
      warn(`fusebench: waiting for ${lock}, held by ${describeHolder(found.holder)}`);
      announced = true;
    }
    await sleep(pollMs);
  }
  try {
    return fn();
  } finally {
    release(lock, me, warn);
    forget();
    // A signal that arrived during fn is handled now, before anything else runs: signal handles do not
    // keep the process alive, so a process with nothing left to do would otherwise exit and drop it.
    await nextTurn();
  }
}

/** How often, and how long apart, a run looks again while another takes a stale run lock over. */
const TAKEOVER_TRIES = 40;
const TAKEOVER_PAUSE_MS = 25;

/** Blocks this thread for `ms` (holdRunLock is synchronous, and its waits are a few milliseconds). */
function pauseSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Takes `lock` for a whole run (perf's --out-dir) without waiting: a lock a live process holds (or one on
 * another host, or one too young to judge) throws naming its holder; a stale one is taken over with a
 * warning. Returns the release, which removes the lock if it is still this process's.
 */
export function holdRunLock(
  lock: string,
  what: string,
  options: Pick<BaselineLockOptions, 'command' | 'warn'> = {},
): () => void {
  const warn = options.warn ?? ((m: string) => console.warn(m));
  const me = thisProcess(options.command);
  let stale: Present | null = null;
  // The holder may leave, or another run take a stale lock over, between two looks: look again, a while.
  for (let tries = 0; tries < TAKEOVER_TRIES; tries++) {
    const forget = tryCreate(lock, me);
    if (forget) {
      return () => {
        release(lock, me, warn);
        forget();
      };
    }
    const found = readHolder(lock);
    if ('gone' in found) continue;
    if (!isStale(found)) {
      throw new Error(
        'holder' in found
          ? `${what} is in use by another fusebench run: ${describeHolder(found.holder)}. If no fusebench is running there, delete ${lock} and run again`
          : `${what} is in use by another fusebench run (${noHolderYet(lock)} and run again)`,
      );
    }
    stale = found;
    if (takeOver(lock, found, warn)) continue;
    // Another run is taking this stale lock over: its next look finds the lock taken, or gone.
    pauseSync(TAKEOVER_PAUSE_MS);
  }
  if (!stale) throw new Error(`${what}: could not take ${lock}: other runs kept taking and leaving it; run again`);
  const was = 'holder' in stale ? `${describeHolder(stale.holder)}, no longer running` : 'it names no holder';
  throw new Error(
    `${what}: could not take ${lock}: it is stale (${was}), and another run's takeover of it (${takeoverGuard(lock)}) has not finished in ${(TAKEOVER_TRIES * TAKEOVER_PAUSE_MS) / 1000} s. If no fusebench is running, delete both files and run again`,
  );
}

/** Removes the lock if it is still ours (someone may have deleted it by hand and another run taken it). */
function release(lock: string, me: LockHolder, warn: (m: string) => void): void {
  const found = existsSync(lock) ? readHolder(lock) : { gone: true as const };
  if ('holder' in found && same(found.holder, me)) rmSync(lock, { force: true });
  else warn(`fusebench: the lock ${lock} was no longer this process's when it finished; left as it is`);
}
