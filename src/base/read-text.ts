/**
 * Reading a text file a user or a workflow names (a results, baseline or history file): only a regular file,
 * and not one larger than any such file fusebench writes. A device (`/dev/zero`) would otherwise be read
 * until memory runs out, and a named pipe would block the process forever; both become an error naming
 * the file instead.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, type Stats } from 'node:fs';

/** Larger than any results, baseline or history file fusebench writes (a results file is a few MB). */
const MAX_TEXT_FILE_BYTES = 256 * 1024 * 1024;

function kind(s: Stats): string {
  if (s.isDirectory()) return 'a folder';
  if (s.isFIFO()) return 'a named pipe';
  if (s.isCharacterDevice() || s.isBlockDevice()) return 'a device';
  if (s.isSocket()) return 'a socket';
  return 'not a regular file';
}

/** The UTF-8 text of `file`; throws `Cannot read <file>: <why>` when it is missing, not a regular file or too large. */
export function readTextFile(file: string): string {
  return readFileBytes(file).toString('utf8');
}

/** The bytes of `file`, as they are (a file appended to keeps them); refused as readTextFile refuses. */
export function readFileBytes(file: string): Buffer {
  let fd: number;
  try {
    // Non-blocking, so that opening a named pipe with no writer returns at once (and is then refused).
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    // The errno code stays on the error (ENOENT: the caller may treat a missing file as its own case).
    const code = (e as NodeJS.ErrnoException).code;
    throw Object.assign(new Error(`Cannot read ${file}: ${(e as Error).message}`), code ? { code } : {});
  }
  try {
    const s = fstatSync(fd);
    if (!s.isFile()) throw new Error(`Cannot read ${file}: it is ${kind(s)}, not a file`);
    if (s.size > MAX_TEXT_FILE_BYTES) {
      throw new Error(
        `Cannot read ${file}: ${s.size} bytes, more than the ${MAX_TEXT_FILE_BYTES} any file fusebench writes`,
      );
    }
    try {
      return readFileSync(fd);
    } catch (e) {
      throw new Error(`Cannot read ${file}: ${(e as Error).message}`);
    }
  } finally {
    closeSync(fd);
  }
}
