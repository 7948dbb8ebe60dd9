/**
 * A process's fields in Linux's /proc/<pid>/stat, from the third on (state, parent pid, …, start time), split after
 * the command's closing parenthesis, since the command may hold spaces and parentheses. Undefined where it cannot be
 * read: no /proc, the process gone, or hidden from this user.
 */
import { readFileSync } from 'node:fs';

/** Field n of `man 5 proc` (1-based: 4 is the parent pid, 22 the start time), or undefined. */
export function procStatField(pid: number, n: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[n - 3];
  } catch {
    return undefined;
  }
}
