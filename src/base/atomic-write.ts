/**
 * Writes files that matter atomically and durably: the content goes to a temporary file in the same
 * folder, which is flushed to disk (fsync), renamed over the target, and the folder is flushed so the
 * rename itself survives a crash. A reader sees the old file or the new one, never half of either.
 * Temporary files are named `.<name>.<pid>.<random>.tmp`, removed on error and on SIGINT/SIGTERM
 * (signal-cleanup.ts), and never read by a loader (`isTempFile`).
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  existsSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { removeOnSignal } from './signal-cleanup.ts';

const TEMP = /^\.(.+)\.(\d+)\.([0-9a-f]+)\.tmp$/;

/** Whether a file name is one of writeFileAtomic's temporary files. */
export function isTempFile(name: string): boolean {
  return TEMP.test(basename(name));
}

/** The temporary files of `file` in its folder, left by writers that were killed (SIGKILL, power loss). */
export function leftoverTempFiles(file: string): string[] {
  const dir = dirname(file);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.filter((n) => TEMP.exec(n)?.[1] === basename(file)).map((n) => join(dir, n));
}

// fsync of a folder makes a rename durable on Linux; some systems (Windows) cannot open a folder for it.
function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'EISDIR' && code !== 'EPERM' && code !== 'EINVAL' && code !== 'EACCES') throw e;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * `mkdir -p` one level at a time: Node's recursive mkdir spins forever where mkdir fails with ENOENT under
 * a parent that exists (as in /proc), so the error would never come.
 */
export function makeDirs(dir: string): void {
  if (existsSync(dir)) return;
  const parent = dirname(dir);
  if (parent !== dir) makeDirs(parent);
  try {
    mkdirSync(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
}

/** The folders `dir` needs that do not exist yet, deepest first: those makeDirs would make. */
export function missingDirs(dir: string): string[] {
  const missing: string[] = [];
  for (let d = resolve(dir); !existsSync(d); d = dirname(d)) {
    missing.push(d);
    if (dirname(d) === d) break;
  }
  return missing;
}

/** The error of a write whose target is a folder. */
const folderTarget = (path: string) => new Error(`${path} is a folder; expected the path of a file to write`);

/** Throws unless files can be written into `dir` (made when missing): a probe file written, then removed. */
export function checkWritableDir(dir: string): void {
  makeDirs(dir);
  const probe = join(dir, `.fusebench-write-check-${process.pid}`);
  writeFileSync(probe, '');
  rmSync(probe);
}

/**
 * Throws naming `path` unless writeFileAtomic could write it: not a folder, and its folder writable. For a
 * command that must know before its work that the file it will write at the end can be written.
 */
export function checkWritableFile(path: string): void {
  const file = resolveLinks(path);
  if (existsSync(file) && statSync(file).isDirectory()) throw folderTarget(path);
  try {
    checkWritableDir(dirname(file));
  } catch (e) {
    throw new Error(`${path} cannot be written: ${(e as Error).message}`);
  }
}

/**
 * Throws unless `out` is another file than each of `inputs` (links followed, hard links too): a command
 * never writes its output over a file it reads.
 */
export function checkNotInput(out: string, inputs: readonly string[]): void {
  const target = resolveLinks(out);
  const written = statSync(target, { throwIfNoEntry: false });
  for (const input of inputs) {
    const source = resolveLinks(input);
    const read = statSync(source, { throwIfNoEntry: false });
    const same = source === target || (written && read && written.ino === read.ino && written.dev === read.dev);
    if (same) throw new Error(`${out} is also an input (${input}): writing it would replace what is read`);
  }
}

/** Symbolic links followed at most this many times (the kernel's own limit is 40). */
const MAX_LINKS = 40;

/**
 * The file a path names once its symbolic links are followed (a dangling link names the file it would
 * create). A baseline or history file may be a link to a shared file: the write must replace that
 * file, not the link. A loop or a chain longer than MAX_LINKS throws naming the path.
 */
export function resolveLinks(file: string): string {
  let path = resolve(file);
  for (let i = 0; i < MAX_LINKS; i++) {
    let link: boolean;
    try {
      link = lstatSync(path).isSymbolicLink();
    } catch {
      return path; // does not exist (yet): written as it is named
    }
    if (!link) return path;
    path = resolve(dirname(path), readlinkSync(path));
  }
  throw new Error(`${file}: more than ${MAX_LINKS} symbolic links to follow (a loop?); refusing to write through it`);
}

/**
 * Replaces `file` with `content` so a reader sees the old file or the new one, never half of either.
 * Where `file` is a symbolic link, the file it points to is replaced and the link is kept.
 */
export function writeFileAtomic(path: string, content: string | Uint8Array): void {
  const file = resolveLinks(path);
  const dir = dirname(file);
  makeDirs(dir);
  const tmp = join(dir, `.${basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  let mode: number | undefined;
  try {
    const st = statSync(file);
    mode = st.mode & 0o777;
    if (st.isDirectory()) throw folderTarget(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    // A new file: the default mode.
  }
  const forget = removeOnSignal(tmp);
  try {
    const fd = openSync(tmp, 'wx', mode);
    try {
      writeFileSync(fd, content);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, file);
  } catch (e) {
    rmSync(tmp, { force: true });
    // The error names the file the user asked for, not the hidden temporary one beside it.
    if (e instanceof Error) e.message = e.message.replaceAll(tmp, file);
    throw e;
  } finally {
    forget();
  }
  fsyncDir(dir);
}
