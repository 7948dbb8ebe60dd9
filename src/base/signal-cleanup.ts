/**
 * Files to remove if the process is interrupted (SIGINT, SIGTERM, SIGHUP, SIGQUIT) or its output is closed under
 * it: temporary files of an atomic write, and lock files. On such a signal the files still registered
 * are removed and the signal is raised again, so the process ends as it would have without us (exit
 * status 128 + n). A write to a pipe whose reader has gone (`fusebench perf | head`) ends it the same
 * way, as SIGPIPE ends other Unix commands (Node ignores the signal and reports EPIPE instead).
 *
 * Signals reach JavaScript only between synchronous runs, so a registered file's synchronous write is
 * never cut in half: the signal waits for it, and the handler then finds nothing left to remove. The
 * listeners stay installed once added, because Node drops a signal that arrived while a listener was
 * registered if the last listener is removed before the event loop runs again.
 */
import { rmdirSync, rmSync } from 'node:fs';

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'] as const;
const files = new Set<string>();
let installed = false;

/** The exit status of a process that SIGPIPE ended: 128 + 13. */
export const CLOSED_OUTPUT = 141;

/** Folders a command made for its output, deepest first: removed after the files, if nothing else is in them. */
const folders = new Set<string>();

function removeRegistered(): void {
  for (const f of files) {
    try {
      rmSync(f, { force: true });
    } catch {
      // Best effort: the process is ending; a file left behind is ignored by every loader.
    }
  }
  files.clear();
  removeIfEmpty([...folders]);
  folders.clear();
}

/** Removes each of `dirs` (deepest first) that is empty: a command that wrote nothing leaves no folder it made. */
export function removeIfEmpty(dirs: readonly string[]): void {
  for (const d of dirs) {
    try {
      rmdirSync(d);
    } catch {
      return; // not empty (something was written), or gone: the folders above it stay too
    }
  }
}

/** Installs the signal handlers once (they stay: see above). */
function install(): void {
  if (installed) return;
  for (const s of SIGNALS) process.on(s, onSignal);
  installed = true;
}

/**
 * Removes `dirs` (deepest first, as atomic-write.ts's missingDirs lists the folders it is about to make) if a
 * signal or a closed output ends the process while they are empty, once the registered files are gone.
 */
export function removeEmptyOnSignal(dirs: readonly string[]): () => void {
  for (const d of dirs) folders.add(d);
  install();
  return () => {
    for (const d of dirs) folders.delete(d);
  };
}

let interruptNote: (() => string) | undefined;

/**
 * What a command says on stderr if a signal ends it from here on: what it has written and what not ("nothing
 * was written", "the baselines were not recorded"), after "fusebench: interrupted by SIGINT: ". Until the
 * returned function is called.
 */
export function sayOnInterrupt(note: () => string): () => void {
  interruptNote = note;
  install();
  return () => {
    if (interruptNote === note) interruptNote = undefined;
  };
}

function onSignal(signal: NodeJS.Signals): void {
  if (interruptNote) {
    try {
      process.stderr.write(`\nfusebench: interrupted by ${signal}: ${interruptNote()}\n`);
    } catch {
      // The output is gone: the exit status alone says it.
    }
    interruptNote = undefined;
  }
  removeRegistered();
  for (const s of SIGNALS) process.removeListener(s, onSignal);
  installed = false;
  // Another listener takes over the signal's handling; alone, we end the process the default way.
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
}

/** Removes `file` if a SIGINT, SIGTERM, SIGHUP or SIGQUIT arrives before the returned function is called. */
export function removeOnSignal(file: string): () => void {
  files.add(file);
  install();
  return () => {
    files.delete(file);
  };
}

let finishing = false;
let closed = false;

/**
 * From here on, output closed under the process no longer ends it at once: the work left (a perf run's
 * results and baselines once its measurement has ended, compare's Markdown once it has compared) is done
 * without output, and the process then ends with CLOSED_OUTPUT, or the code the command returned (a
 * regression). Before it, nothing decided would be lost by ending.
 */
export function finishDespiteClosedOutput(): void {
  finishing = true;
}

/**
 * Ends the process once a write to stdout or stderr fails, its registered files removed: quietly with
 * CLOSED_OUTPUT when the reader has gone (EPIPE), else (a full disk: ENOSPC) with `failed` after a line on
 * the other stream. After finishDespiteClosedOutput it lets the process finish first, and a code the run
 * set itself (a regression) wins.
 */
export function endOnClosedOutput(failed: number): void {
  for (const [name, stream, other] of [
    ['stdout', process.stdout, process.stderr],
    ['stderr', process.stderr, process.stdout],
  ] as const) {
    stream.on('error', (e: NodeJS.ErrnoException) => {
      // A closed stream's later writes fail too (EPIPE, or the stream destroyed): the output is gone either way.
      if (closed) return;
      closed = true;
      const code = e.code === 'EPIPE' ? CLOSED_OUTPUT : failed;
      if (code !== CLOSED_OUTPUT) {
        try {
          other.write(`fusebench: could not write to ${name}: ${e.message}\n`);
        } catch {
          // Both outputs are gone: the exit code alone says it.
        }
      }
      if (finishing) {
        // Set as the process ends, so the work left sees the code its own run set, and that code wins.
        process.once('exit', () => {
          process.exitCode = Number(process.exitCode ?? 0) || code;
        });
        return;
      }
      removeRegistered();
      process.exit(code);
    });
  }
}
