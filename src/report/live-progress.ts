/**
 * What a perf run shows while it measures. On a terminal, one live line redrawn in place (log-update):
 * which shape of how many, its phase (inputs, reference, sampling, ...), pairs so far and the speedup's
 * interval; a finished shape leaves one line behind. Piped, or with no terminal, plain lines only: one per
 * finished shape, nothing redrawn, no escape codes. Names come from the case registry; they go through
 * logText all the same.
 */
import { createLogUpdate } from 'log-update';
import { logText } from '../base/log-text.ts';

/** Where a shape's measurement stands. */
export interface ShapeProgress {
  /** The shape's name, "gelu_scale 1K bf16". */
  label: string;
  /** 1-based position among the run's shapes, and how many there are. */
  index: number;
  total: number;
  phase: string;
  pairs?: number;
  speedup?: { estimate: number; lo: number; hi: number };
  elapsedMs?: number;
}

/** What the line of a finished shape says: its speedup and verdict when measured, else its status. */
export interface FinishedShape {
  status: string;
  /** The speedup the gate judged; `batched` when that is of back-to-back calls, not of one call a sample. */
  speedup?: { estimate: number; lo: number; hi: number };
  batched?: boolean;
  verdict?: string;
}

/** The interval as the live line shows it: "1.752x [1.745, 1.760]". */
function interval(iv: { estimate: number; lo: number; hi: number }): string {
  return `${iv.estimate.toFixed(3)}x [${iv.lo.toFixed(3)}, ${iv.hi.toFixed(3)}]`;
}

/** Which shape of how many: "[3/15] gelu_scale 1M bf16". */
function shapeHead(p: Pick<ShapeProgress, 'label' | 'index' | 'total'>): string {
  return `[${p.index}/${p.total}] ${logText(p.label, 200)}`;
}

/** One line of progress: "[3/15] gelu_scale 1M bf16 · sampling · 120 pairs · 1.752x [1.745, 1.760] · 0.8 s". */
function progressLine(p: ShapeProgress): string {
  const parts = [shapeHead(p), p.phase];
  if (p.pairs !== undefined) parts.push(`${p.pairs} pairs`);
  if (p.speedup) parts.push(interval(p.speedup));
  if (p.elapsedMs !== undefined) parts.push(`${(p.elapsedMs / 1000).toFixed(1)} s`);
  return parts.join(' · ');
}

/** The terminal's size now (a resize is followed), or undefined to keep the width the run started with. */
type SizeNow = () => { columns: number; rows: number } | undefined;

/**
 * The live view of a run's shapes on `stream`: redrawn in place when `columns` (the width of the terminal
 * behind it when the run started) is given, plain lines otherwise. The stream itself may be a pipe to that
 * terminal: the test worker's stderr is one, so its size is asked of `sizeNow` at every redraw.
 */
export class LiveProgress {
  readonly #stream: NodeJS.WritableStream;
  readonly #draw: ReturnType<typeof createLogUpdate> | undefined;

  constructor(
    columns: number | undefined,
    stream: NodeJS.WritableStream = process.stderr,
    sizeNow: SizeNow = () => undefined,
  ) {
    this.#stream = stream;
    // log-update writes to the stream, and reads its `columns` and `rows` at every redraw: a pipe has neither.
    const sized = {
      write: (text: string) => stream.write(text),
      isTTY: (stream as NodeJS.WriteStream).isTTY,
      get columns() {
        return sizeNow()?.columns ?? columns;
      },
      get rows() {
        return sizeNow()?.rows;
      },
    } as NodeJS.WriteStream;
    this.#draw = columns ? createLogUpdate(sized, { showCursor: true, defaultWidth: columns }) : undefined;
  }

  /** Redraws the live line (terminal only; piped output gets the finished lines alone). */
  update(p: ShapeProgress): void {
    this.#draw?.(progressLine(p));
  }

  /** Leaves a line behind the live one: a warning. */
  print(line: string): void {
    this.#draw?.clear();
    this.#stream.write(`${line}\n`);
  }

  /**
   * Leaves the line of a finished shape: "[3/15] gelu_scale 1M bf16: speedup 1.75x [1.74, 1.76] (batched);
   * SAME", or its status when it was not measured ("SKIPPED", "ERRORED").
   */
  finished(p: Pick<ShapeProgress, 'label' | 'index' | 'total'>, r: FinishedShape): void {
    const iv = r.speedup;
    const verdict = r.verdict ? `; ${r.verdict}` : '';
    const what = iv
      ? `speedup ${iv.estimate.toFixed(2)}x [${iv.lo.toFixed(2)}, ${iv.hi.toFixed(2)}]${r.batched ? ' (batched)' : ''}${verdict}`
      : r.status.toUpperCase();
    this.print(`${shapeHead(p)}: ${what}`);
  }

  /** Ends the live line (nothing is left of it). */
  done(): void {
    this.#draw?.clear();
  }
}
