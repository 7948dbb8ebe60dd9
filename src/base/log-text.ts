/**
 * The one escaping function for text that reaches a console, a log file or a GitHub Actions log.
 * Strings from results, baseline and history files (device names, case keys, reasons, broken lines)
 * were written by whoever produced the file, on a pull request by its code. In a job log a line that
 * starts with `::` is a workflow command (`::error::`, `::add-mask::`, `::stop-commands::`), the runner's
 * older `##[command]` form is found anywhere in a line, and escape sequences drive the terminal. So
 * such a string is printed only through `logText`: it becomes one line whose control characters are
 * made visible (`\n`, `\x1b`, `\u{202e}`) and in which `::` and `##[` are broken by a backslash, so
 * no line it appears in can be read as a command, whatever precedes it.
 * (The runner trims leading whitespace before it looks for `::`: actions/runner ActionCommand.TryParseV2.)
 */

// C0 and C1 controls (ESC, CSI, BEL, CR, LF, ...), DEL, line and paragraph separators, and every format
// character: the bidirectional overrides and marks that make text read differently from what it is, and
// the invisible ones (zero-width space, byte-order mark, word joiner) that make two strings look alike.
const CONTROLS = /[\p{Cc}\p{Cf}\u2028\u2029]/gu;

/** Whether `s` holds a character logText makes visible (so the line shows it escaped, not as it is). */
export function hasControlCharacters(s: string): boolean {
  return s.search(CONTROLS) >= 0;
}

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function visible(ch: string): string {
  const named = NAMED[ch];
  if (named) return named;
  const code = ch.codePointAt(0) ?? 0;
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
}

/**
 * One line of untrusted text for a console or a job log: controls made visible, `::` → `:\:`,
 * `##[` → `#\#[`, cut to `max` characters with an ellipsis.
 */
export function logText(s: string, max = 2000): string {
  const one = String(s).replace(CONTROLS, visible).replace(/::/g, ':\\:').replace(/##\[/g, '#\\#[');
  return one.length <= max ? one : `${one.slice(0, Math.max(0, max - 1))}…`;
}

/**
 * A message fusebench wrote, with untrusted text possibly inside, for stderr: each of its lines goes
 * through `logText` (so a newline inside a file's string may start a line, but never a command), and
 * the lines are kept. For the last line of defence at an entry point's error output.
 */
export function logLines(s: string): string {
  return String(s)
    .split(/\r?\n/)
    .map((line) => logText(line, 10_000))
    .join('\n');
}
