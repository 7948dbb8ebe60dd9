/**
 * Reading a text file a user or a workflow names (a results, baseline or history file): only a regular file,
 * and not one larger than any such file fusebench writes. A device (`/dev/zero`) would otherwise be read
 * until memory runs out, and a named pipe would block the process forever; both become an error naming
 * the file instead.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, type Stats } from 'node:fs';

/**
 * Larger than any results, baseline or history file fusebench writes (a results file of the whole suite is a
 * few MB, a history grows by tens of KB a run), and small enough that what reading it costs fits Node's
 * heap: a JSON document costs up to ~24 bytes of heap a byte of text ("{}," repeated), so a 200 MB one
 * ended the process with V8's out-of-memory abort instead of an error naming the file.
 */
const MAX_TEXT_FILE_BYTES = 256 * 1024 * 1024;
/** The most a JSON document (a results or baseline file) may be: ~1.5 GB of heap at worst. */
export const MAX_JSON_FILE_BYTES = 64 * 1024 * 1024;

function kind(s: Stats): string {
  if (s.isDirectory()) return 'a folder';
  if (s.isFIFO()) return 'a named pipe';
  if (s.isCharacterDevice() || s.isBlockDevice()) return 'a device';
  if (s.isSocket()) return 'a socket';
  return 'not a regular file';
}

/**
 * The UTF-8 text of `file`, without a byte-order mark (an editor's; JSON.parse refuses it, and it would
 * reach a console unseen); throws `Cannot read <file>: <why>` when it is missing, not a regular file or
 * larger than `maxBytes`.
 */
export function readTextFile(file: string, maxBytes = MAX_TEXT_FILE_BYTES): string {
  const text = readFileBytes(file, maxBytes).toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** The bytes of `file`, as they are (a file appended to keeps them); refused as readTextFile refuses. */
export function readFileBytes(file: string, maxBytes = MAX_TEXT_FILE_BYTES): Buffer {
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
    if (s.size > maxBytes) {
      throw new Error(`Cannot read ${file}: ${s.size} bytes, more than the ${maxBytes} such a file can be`);
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
