// What a perf run prints and what its BENCHMARK_RESULTS.md says about batched timing, injections, budgets
// and baselines: colours only for a terminal, reasons under the table, one count line, one hint.
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { renderBenchmarkMarkdown } from '../../src/report/benchmark-markdown.ts';
import { colorEnabled } from '../../src/report/color.ts';
import {
  consoleCountsLine,
  consoleNotes,
  noBaselineHint,
  numericsLine,
  renderRunConsole,
  wideDeltaNote,
} from '../../src/report/console-summary.ts';
import { renderConsoleTable } from '../../src/report/console-table.ts';
import { renderJobSummary } from '../../src/report/job-summary.ts';
import { type CaseResult, type ResultsFile, readResults } from '../../src/results/results.ts';
import { tableProblems } from '../support/markdown-check.ts';

const fixtures = join(import.meta.dirname, '..', 'fixtures');
const mixed = readResults(join(fixtures, 'h200-mixed-verdicts.json'));
const ESC = '\u001b[';

/** The mixed fixture with gelu_scale 1K gated on batched timing and 3% injected (calibrated to 3.1%). */
function batchedAndInjected(): ResultsFile {
  const r = structuredClone(mixed);
  const c = r.cases.find((x) => x.key === 'gelu_scale/1K/fp32') as CaseResult;
  const t = c.timing as NonNullable<CaseResult['timing']>;
  c.batched = {
    callsPerSample: 64,
    unfused: { ...t.unfused, median: 0.0021 },
    fused: { ...t.fused, median: 0.0013 },
    speedup: { estimate: 1.615, lo: 1.6, hi: 1.63, confidence: 0.95 },
    samples: { unfused: t.samples.unfused.map((x) => x / 2), fused: t.samples.fused.map((x) => x / 2) },
  };
  c.gatedOn = 'batched';
  c.injection = { kind: 'percent', askedPct: 3, measuredPct: 3.1 };
  const p = r.cases.find((x) => x.key === 'gelu_scale/1M/fp32') as CaseResult;
  p.injection = { kind: 'passes', passes: 4 };
  return r;
}

describe('colour', () => {
  test.each([
    [true, {}, true],
    [false, {}, false],
    [true, { NO_COLOR: '1' }, false],
    [true, { NO_COLOR: '' }, true],
    [true, { TERM: 'dumb' }, false],
    [true, { TERM: 'xterm-256color' }, true],
    [undefined, {}, false],
  ])('a stream with isTTY %s and env %j: colour %s', (isTTY, env, expected) => {
    expect(colorEnabled({ isTTY }, env)).toBe(expected);
  });

  test('the default table fits 120 columns; --wide shows every column', () => {
    const width = (s: string) => Math.max(...s.split('\n').map((l) => l.length));
    expect(width(renderConsoleTable(mixed))).toBeLessThanOrEqual(120);
    // With batched rows, and a whole GPU run (the H100 fixture: 53 shapes, every case but the decode steps and
    // the forward pass), its verdicts as they are and as a first run's (NO_BASELINE is the widest verdict).
    expect(width(renderConsoleTable(batchedAndInjected()))).toBeLessThanOrEqual(120);
    const h100 = readResults(join(fixtures, 'h100-results-cb047cf.json'));
    expect(h100.cases.some((c) => c.gatedOn === 'batched')).toBe(true);
    expect(width(renderConsoleTable(h100))).toBeLessThanOrEqual(120);
    const first = structuredClone(h100);
    for (const c of first.cases) if (c.gate) c.gate.status = 'NO_BASELINE';
    expect(width(renderConsoleTable(first))).toBeLessThanOrEqual(120);
    expect(width(renderConsoleTable(mixed, false, true))).toBeGreaterThan(120);
    expect(renderConsoleTable(mixed, false, true)).toContain('fused throughput');
    expect(renderConsoleTable(mixed)).not.toContain('fused throughput');
  });

  test('the table and the counts carry escape codes only when colour is on', () => {
    expect(renderRunConsole(mixed, false)).not.toContain(ESC);
    const coloured = renderConsoleTable(mixed, true, true);
    expect(coloured).toContain(`${ESC}31mSLOWER speedup −20.4%`);
    expect(coloured).toContain(`${ESC}32mFASTER`);
    expect(renderConsoleTable(mixed, true)).toContain(`${ESC}31mSLOWER${ESC}39m`);
    expect(consoleCountsLine(mixed, true)).toContain(`${ESC}31mSLOWER 1${ESC}39m`);
  });
});

describe('the console table', () => {
  const table = renderConsoleTable(mixed);
  const lines = table.split('\n');

  test('a case that did not run shows its verdict in the table and its reason on a line under it', () => {
    const skipped = lines.find((l) => l.startsWith('gelu_scale') && / 256M /.test(l));
    expect(skipped).toMatch(/ SKIPPED$/);
    expect(table).not.toContain('--max-elements');
    const notes = consoleNotes(mixed);
    expect(notes.find((n) => n.startsWith('gelu_scale 256M fp32: SKIPPED: '))).toContain('--max-elements');
    expect(notes.find((n) => n.startsWith('gelu_scale 4K fp32: ERRORED: '))).toContain('cudaErrorLaunchOutOfResources');
  });

  test('shapes that did not run, or have no graph twin, for one reason share one line naming them all', () => {
    const r = structuredClone(mixed);
    const skipped = r.cases.find((c) => c.status === 'skipped') as CaseResult;
    r.cases.push({
      ...structuredClone(skipped),
      key: 'gelu_scale/512M/fp32',
      shape: { ...skipped.shape, label: '512M' },
    });
    r.cases.push({
      ...structuredClone(skipped),
      key: 'gelu_scale/1G/fp32',
      shape: { ...skipped.shape, label: '1G' },
      reason: 'other',
    });
    const cpu = 'the CPU backend has no graphs to replay launches from (CUDA only)';
    for (const c of r.cases.filter((x) => x.status === 'measured').slice(0, 2))
      c.graphTwin = { status: 'unavailable', reason: cpu };
    const notes = consoleNotes(r);
    const reason = skipped.reason as string;
    expect(notes).toContain(`gelu_scale 256M fp32, gelu_scale 512M fp32: SKIPPED: ${reason}`);
    expect(notes).toContain('gelu_scale 1G fp32: SKIPPED: other');
    expect(notes.filter((n) => n.endsWith(`: no graph twin: ${cpu}`))).toHaveLength(1);
    expect(notes.find((n) => n.endsWith(`: no graph twin: ${cpu}`))?.split(', ')).toHaveLength(2);
  });

  test('stays as narrow as its measured rows: no reason widens a column', () => {
    const measuredOnly = structuredClone(mixed);
    measuredOnly.cases = measuredOnly.cases.filter((c) => c.status === 'measured');
    const width = (t: string) => Math.max(...t.split('\n').map((l) => l.length));
    expect(width(table)).toBeLessThanOrEqual(width(renderConsoleTable(measuredOnly)));
  });

  test('ends with one count line of every verdict, failed, errored and no-baseline only when there are some', () => {
    expect(consoleCountsLine(mixed)).toBe(
      'SLOWER 1 · FASTER 1 · SAME 1 · AMBIGUOUS 1 · SKIPPED 1 · FAILED 1 · ERRORED 1 · NO BASELINE 1',
    );
    const clean = structuredClone(mixed);
    clean.cases = clean.cases.filter((c) => c.gate && c.gate.status !== 'NO_BASELINE');
    expect(consoleCountsLine(clean)).toBe('SLOWER 1 · FASTER 1 · SAME 1 · AMBIGUOUS 1 · SKIPPED 0');
  });

  test('a verdict against a baseline that does not gate says so in both tables, as every report does', () => {
    const reported = structuredClone(mixed);
    const slower = reported.cases.find((c) => c.gate?.status === 'SLOWER');
    if (!slower?.gate) throw new Error('fixture: no SLOWER case');
    slower.gate.gating = false;
    const row = (wide: boolean) =>
      renderConsoleTable(reported, false, wide)
        .split('\n')
        .find((l) => l.startsWith(slower.case) && l.includes(' SLOWER'));
    expect(row(false)).toMatch(/ SLOWER \(not gating\)$/);
    expect(row(true)).toMatch(/ SLOWER speedup −20\.4%.* \(not gating\)$/);
    expect(
      Math.max(
        ...renderConsoleTable(reported)
          .split('\n')
          .map((l) => l.length),
      ),
    ).toBeLessThanOrEqual(120);
    // The gating one says nothing of it.
    expect(renderConsoleTable(mixed)).not.toContain('gating');
  });

  test('prints the no-baseline hint once per run, however many shapes lack one', () => {
    const none = structuredClone(mixed);
    for (const c of none.cases) {
      if (c.gate) c.gate = { ...c.gate, status: 'NO_BASELINE', speedup: undefined, fusedTime: undefined };
    }
    const text = renderRunConsole(none);
    expect(text.match(/no baseline for NVIDIA H200/g)).toHaveLength(1);
    expect(noBaselineHint(none)).toBe(
      'no baseline for NVIDIA H200 (5 shapes; baselines/nvidia-h200.json has no entry for them): the run only reports. Record one with `npm run perf -- --backend cuda --update-baselines`',
    );
    expect(noBaselineHint(readResults(join(fixtures, 'h200-gate-run.json')))).toBeUndefined();
    // The command that records into where the run looked; none in a run that records them.
    expect(noBaselineHint(none, 'npm run perf -- --backend cuda --baselines-dir /tmp/b --update-baselines')).toMatch(
      /Record one with `npm run perf -- --backend cuda --baselines-dir \/tmp\/b --update-baselines`$/,
    );
    expect(noBaselineHint(none, null)).toBeUndefined();
    expect(renderRunConsole(none, false, false, null)).not.toContain('no baseline for');
  });

  test('says once how many shapes had their numerics checked, and how many failed', () => {
    expect(numericsLine(readResults(join(fixtures, 'h200-gate-run.json')))).toBe(
      'numerics: 7 shapes checked against their float64 references, unfused and fused within tolerance in every one',
    );
    expect(numericsLine(mixed)).toBe(
      'numerics: 6 shapes checked against their float64 references, 1 FAILED (above; --seed reproduces the inputs)',
    );
    expect(renderRunConsole(mixed).match(/^numerics: /gm)).toHaveLength(1);
    const single = structuredClone(mixed);
    single.cases = single.cases.filter((c) => c.numerics !== undefined && c.status === 'measured').slice(0, 1);
    expect(numericsLine(single)).toBe(
      'numerics: 1 shape checked against its float64 reference, unfused and fused within tolerance',
    );
  });

  test('lists once the shapes whose gate judged with δ above ±5%, by the narrower of their two δ, widest first', () => {
    const run = readResults(join(fixtures, 'h200-gate-run.json'));
    expect(wideDeltaNote(run)).toBeUndefined(); // every δ is ±5%: not above
    const widened = structuredClone(run);
    const at = (key: string) => widened.cases.find((c) => c.key === key)?.gate;
    const g1k = at('gelu_scale/1K/fp32');
    const g1m = at('gelu_scale/1M/fp32');
    const bias = at('bias_gelu/16384x3072/fp32');
    if (!g1k?.speedup || !g1k.fusedTime || !g1m?.speedup || !g1m.fusedTime || !bias?.speedup || !bias.fusedTime) {
      throw new Error('fixture: gated shapes without both decisions');
    }
    [g1k.speedup.delta, g1k.fusedTime.delta] = [0.144, 0.294]; // the narrower one decides what passes
    [g1m.speedup.delta, g1m.fusedTime.delta] = [0.049, 0.095]; // the speedup's 4.9% still catches it
    [bias.speedup.delta, bias.fusedTime.delta] = [0.3, 0.06];
    bias.gating = false; // a non-gating baseline judges nothing
    const scale = widened.cases.find((c) => c.key === 'scale_mask_softmax/32x12x512x512/fp32');
    if (!scale?.gate?.fusedTime || !scale.gate.speedup) throw new Error('fixture: scale_mask_softmax');
    [scale.gate.speedup.delta, scale.gate.fusedTime.delta] = [0.5, 0.08];
    scale.ungatedSpeedup = 'its twin is host-bound'; // only the fused time is judged
    const note = wideDeltaNote(widened);
    expect(note).toMatch(
      /^wide δ: 2 shapes judged with δ above ±5%, so a slower fused kernel within it passes as SAME /,
    );
    expect(note).toMatch(/: gelu_scale 1K fp32 ±14\.4%, scale_mask_softmax 32x12x512x512 fp32 ±8\.0%$/);
    expect(renderRunConsole(widened).match(/wide δ:/g)).toHaveLength(1);
    // A δ chosen (--delta, or by hand in the entry) is no blind spot of the baselines: not listed.
    const chosen = structuredClone(widened);
    for (const c of chosen.cases) if (c.gate) c.gate.deltaSource = 'command line';
    expect(wideDeltaNote(chosen)).toBeUndefined();
    const summary = renderJobSummary(widened);
    expect(summary).toContain('> **Wide δ:** 2 shapes judged with δ above ±5%');
    expect(summary).toContain('gelu\\_scale 1K fp32 ±14.4%');
  });

  test('a row shows the timing the gate judged, batched calls marked, and the per-call timing goes under the table', () => {
    const r = batchedAndInjected();
    const row = (wide: boolean) =>
      renderConsoleTable(r, false, wide)
        .split('\n')
        .find((l) => l.startsWith('gelu_scale') && / 1K /.test(l));
    // The batched medians and speedup, and the rates at them: 2.15 GB/s per call × 3.808 / 1.3 µs.
    expect(row(true)).toMatch(
      /^gelu_scale +1K +fp32 +0\.002100 ms +0\.001300 ms +1\.61x \[1\.60, 1\.63\] \(batched\) +81% of 2\.00x +6\.3 GB\/s .*SAME speedup \+0\.4%$/,
    );
    expect(row(false)).toMatch(/ 0\.002100 ms +0\.001300 ms +1\.61x \[1\.60, 1\.63\] \(batched\) +SAME$/);
    const notes = consoleNotes(r);
    const title = notes.indexOf('the shapes timed both ways, in the timing their row does not show (not judged)');
    expect(title).toBeGreaterThan(0); // after the injections' lines and a blank one
    expect(notes[title - 1]).toBe('');
    expect(notes[title + 1]).toMatch(/^case +size +dtype +unfused +fused +speedup \[95% CI\] +timing$/);
    expect(notes[title + 3]).toMatch(
      /^gelu_scale +1K +fp32 +0\.006272 ms +0\.003808 ms +1\.65x \[1\.61, 1\.68\] +one call a sample$/,
    );
    expect(notes[title + 4]).toBeUndefined(); // the one batched row
    expect(notes).toContain('gelu_scale 1K fp32: injected regression: asked 3%, measured 3.1%');
    expect(notes).toContain('gelu_scale 1M fp32: injected regression: 4 extra read passes');
  });
});

describe('BENCHMARK_RESULTS.md per case', () => {
  const section = (md: string, label: string) =>
    md.split(/^#### /m).find((s) => s.startsWith(`GELU + scale — ${label} (`)) ?? '';

  test('the batched timing sits beside the per-call time, with its method and the one the gate judged', () => {
    const md = renderBenchmarkMarkdown([batchedAndInjected()]);
    const s = section(md, '1K');
    expect(s).toContain('| **Median time**, one call per sample |');
    expect(s).toContain(
      '| Median time, batched, 64 calls between events | 0.002100 ms | 0.001300 ms | 1.61x [1.60, 1.63] (95% CI); **the gate judged this** |',
    );
    expect(s).toContain('| Injected regression (--inject) |  | asked 3%, measured 3.1% |');
    expect(section(md, '1M')).toContain('| 4 extra read passes |');
    expect(tableProblems(md)).toEqual([]);
  });

  test('a shape whose 30-pair minimum took longer than the budget says so, not "stop: budget"', () => {
    const r = structuredClone(mixed);
    const c = r.cases.find((x) => x.key === 'gelu_scale/16M/fp32') as CaseResult;
    Object.assign(c.timing as object, { wallMs: 11_300, budgetMs: 1000, pairsTaken: 30, stopReason: 'budget' });
    const s = section(renderBenchmarkMarkdown([r]), '16M');
    expect(s).toContain(
      '| Samples | 30 pairs kept of 30 | the 30-pair minimum outran the 1.0 s budget | took 11.3 s |',
    );
    expect(s).not.toContain('stop: budget');
  });

  test('a run past its budget with more than the minimum says by how much', () => {
    const s = section(renderBenchmarkMarkdown([mixed]), '1K');
    expect(s).toContain('| Samples | 16946 pairs kept of 16946 | stop: budget | 3.3 s: 10% past the 3.0 s budget |');
  });
});
