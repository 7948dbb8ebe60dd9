// What a perf run leaves behind for each finished shape when its output is not a terminal: one plain line,
// with the speedup the gate judged and "(batched)" when that is of back-to-back calls.
import { PassThrough } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';
import { expect, test } from 'vitest';
import { LiveProgress } from '../../src/report/live-progress.ts';

function written(run: (p: LiveProgress) => void): string {
  const out = new PassThrough();
  const chunks: string[] = [];
  out.on('data', (c: Buffer) => chunks.push(c.toString()));
  run(new LiveProgress(undefined, out));
  return chunks.join('');
}

test('piped, a finished shape is one line: its judged speedup, batched or not, its verdict, or its status', () => {
  const slot = (index: number, label: string) => ({ index, total: 3, label });
  const text = written((p) => {
    p.update({ ...slot(1, 'gelu_scale 1K bf16'), phase: 'sampling', pairs: 40 }); // drawn on a terminal only
    p.finished(slot(1, 'gelu_scale 1K bf16'), {
      status: 'measured',
      speedup: { estimate: 1.904, lo: 1.897, hi: 1.911 },
      batched: true,
      verdict: 'SAME',
    });
    p.finished(slot(2, 'gelu_scale 16M bf16'), { status: 'measured', speedup: { estimate: 2.0, lo: 1.99, hi: 2.01 } });
    p.finished(slot(3, 'gemm 256x512x128 bf16'), { status: 'skipped' });
  });
  expect(text.split('\n')).toEqual([
    '[1/3] gelu_scale 1K bf16: speedup 1.90x [1.90, 1.91] (batched); SAME',
    '[2/3] gelu_scale 16M bf16: speedup 2.00x [1.99, 2.01]',
    '[3/3] gemm 256x512x128 bf16: SKIPPED',
    '',
  ]);
});

test('on a terminal, each redraw fits the width the terminal has now: a resize during the run is followed', () => {
  const out = new PassThrough();
  const chunks: string[] = [];
  out.on('data', (c: Buffer) => chunks.push(c.toString()));
  let columns = 200;
  const p = new LiveProgress(200, out, () => ({ columns, rows: 40 }));
  const at = { index: 2, total: 9, label: 'gelu_scale 16M bf16', phase: 'sampling', pairs: 120 };
  const line = '[2/9] gelu_scale 16M bf16 · sampling · 120 pairs';
  // The drawn frame, without log-update's cursor movements and erasures.
  const frame = () => stripVTControlCharacters(chunks.pop() ?? '');
  p.update(at);
  expect(frame()).toBe(`${line}\n`);
  columns = 20; // the window made narrow: the same line is wrapped at 20 columns, not drawn past the edge
  p.update({ ...at, pairs: 121 });
  expect(frame()).toBe('[2/9] gelu_scale 16M\n bf16 · sampling · 1\n21 pairs\n');
  p.done();
});
