/**
 * The size of the terminal this process runs in, followed through resizes. A perf run's live line is drawn by its
 * test worker, whose stderr is a pipe to the main process: the pipe has no size, but the controlling terminal
 * behind it (/dev/tty) has one. The worker measures synchronously, so a resize signal (SIGWINCH) would reach it
 * only when the run ends: the size is read again instead, at most every REREAD_MS. Undefined where there is no
 * such terminal (CI, a service, another platform).
 */
import { openSync } from 'node:fs';
import { WriteStream } from 'node:tty';

/** How stale a size may be: a resize shows within this, and the reads cost a few syscalls a second at most. */
const REREAD_MS = 250;

let last: { size: { columns: number; rows: number } | undefined; at: number } | undefined;
let noTerminal = false;

/** The controlling terminal's size (at most REREAD_MS old), or undefined. */
export function terminalSize(): { columns: number; rows: number } | undefined {
  if (noTerminal) return undefined;
  const now = Date.now();
  if (last && now - last.at < REREAD_MS) return last.size;
  try {
    // A tty stream's size is the one it read when made (Node refreshes only its own stdout and stderr).
    const tty = new WriteStream(openSync('/dev/tty', 'w'));
    const { columns, rows } = tty;
    tty.destroy();
    last = { size: columns > 0 ? { columns, rows } : undefined, at: now };
    return last.size;
  } catch {
    noTerminal = true; // asked once
    return undefined;
  }
}
