/**
 * One case at one shape in BENCHMARK_RESULTS.md, in the style of the V100 report: unfused vs fused
 * time, speedup with its interval, memory traffic, launches, bandwidth, error, and the gate's verdict
 * against the stored baseline when there is one. Pure.
 */

import {
  flopRate,
  flopRateOfPeak,
  gbs,
  injectionLabel,
  labelledChange,
  mb,
  ms,
  pct,
  sci,
  speedup,
  times,
} from '../base/format.ts';
import { gatedOnBatched, methodLabel, timingOf } from '../results/judged-timing.ts';
import type { CaseResult, GateResult, MeasuredCase } from '../results/results.ts';
import { verdictLabel } from '../results/verdict.ts';
import { codeSpan, type Inline, markdownTable, md, NOTE_CHARS, name, note, ours, text, trusted } from './escape.ts';
import { graphArm, graphCounts } from './graph-twin-label.ts';

type Measured = MeasuredCase;

function gateRows(g: GateResult): Inline[][] {
  const source = g.baselineFile ? md`${g.baselineSource ?? 'no entry'}, ${g.baselineFile}` : 'no baseline file';
  const ft = g.fusedTime;
  const sp = g.speedup;
  return [
    [
      md`Baseline (${source})`,
      ...ours([
        '',
        ft ? ms(ft.baseline) : '',
        sp ? `${times(sp.baseline)} speedup${g.gating ? '' : ' (approximate, not gating)'}` : '—',
      ]),
    ],
    ours([
      '**Verdict vs baseline**',
      '',
      '',
      `**${verdictLabel(g.status)}**${sp || ft ? `: ${labelledChange(g)}` : ''}${g.remeasured ? ' (remeasured)' : ''}`,
    ]),
  ];
}

/** How the section is drawn: the run's settings the rows refer to. */
export interface CaseSectionOptions {
  /** The run's minimum number of pairs (results.settings.minPairs). */
  minPairs: number;
}

/**
 * The samples row. When the run took longer than its budget it says why honestly: with no more pairs
 * than the minimum, the minimum itself outran the budget (a slow shape); otherwise the last round and
 * the interval checks ran past it.
 */
function samplesRow(t: Measured['timing'], minPairs: number): Inline[] {
  const wall = `${(t.wallMs / 1000).toFixed(1)} s`;
  const budget = `${(t.budgetMs / 1000).toFixed(1)} s`;
  const kept = `${t.unfused.n} pairs kept of ${t.pairsTaken}`;
  if (t.wallMs <= t.budgetMs) return ours(['Samples', kept, `stop: ${t.stopReason}`, `${wall} of ${budget} budget`]);
  if (t.pairsTaken <= minPairs) {
    return ours(['Samples', kept, `the ${minPairs}-pair minimum outran the ${budget} budget`, `took ${wall}`]);
  }
  const over = pct(t.wallMs / t.budgetMs - 1);
  return ours(['Samples', kept, `stop: ${t.stopReason}`, `${wall}: ${over} past the ${budget} budget`]);
}

/** The batched timing beside the per-call one, naming the method and whether the gate judged it. */
function batchedRow(c: Measured): Inline[] {
  const b = timingOf(c, 'batched');
  return ours([
    `Median time, ${methodLabel(b)}`,
    ms(b.unfused.median),
    ms(b.fused.median),
    `${speedup(b.speedup)} (95% CI)${gatedOnBatched(c) ? '; **the gate judged this**' : '; reported beside the per-call time, which the gate judged'}`,
  ]);
}

/** The unfused twin replayed from a CUDA graph, timed against the fused variant (reported, never gated). */
function graphTwinRow(c: Measured): Inline[] | undefined {
  const g = c.graphTwin;
  if (!g) return undefined;
  if (g.status === 'unavailable')
    return [trusted('Unfused twin from a CUDA graph'), note(`not measured: ${g.reason}`), '', ''];
  const per = g.callsPerSample > 1 ? `batched, ${g.callsPerSample} calls between events` : 'per call';
  const counts = graphCounts(g);
  const over = trusted(
    `${speedup(g.speedup)} (95% CI) over the graph; reported, not gated${counts ? `; ${counts}` : ''}`,
  );
  return [
    ...ours([`Median time, unfused twin from a CUDA ${graphArm(g)}, ${per}`, ms(g.graph.median), ms(g.fused.median)]),
    g.noPdlReason !== undefined ? md`${over}; no PDL: ${note(g.noPdlReason)}` : over,
  ];
}

// Every row but the sampled-elements note and the extra error names is our own formatting of numbers.
function measuredRows(c: Measured, options: CaseSectionOptions): Inline[][] {
  const t = c.timing;
  const u = c.traffic.unfused;
  const f = c.traffic.fused;
  const nu = c.numerics;
  const clocks = c.clocks;
  return [
    ours([
      c.batched ? '**Median time**, one call per sample' : '**Median time**',
      ms(t.unfused.median),
      ms(t.fused.median),
      `**${speedup(c.speedup)}** (95% CI)`,
    ]),
    ...(c.batched ? [batchedRow(c)] : []),
    ...[graphTwinRow(c)].filter((r) => r !== undefined),
    ours([
      'Time spread (p10–p90)',
      `${ms(t.unfused.p10)} – ${ms(t.unfused.p90)}`,
      `${ms(t.fused.p10)} – ${ms(t.fused.p90)}`,
      `${ms(t.unfused.median - t.fused.median)} saved per call`,
    ]),
    ours([
      'Memory traffic',
      mb(u.bytes),
      mb(f.bytes),
      `${pct(1 - f.bytes / u.bytes)} saved (theoretical ${times(c.traffic.theoreticalSpeedup)})`,
    ]),
    ours(['Kernel launches', String(u.launches), String(f.launches), `${u.launches - f.launches} fewer`]),
    ours([
      'Achieved bandwidth',
      gbs(u.bytes / (t.unfused.median / 1e3) / 1e9),
      `${gbs(c.fusedGBs ?? 0)} (${(c.fusedPctOfCopy ?? 0).toFixed(0)}% of copy)`,
      `efficiency ${pct(c.efficiency ?? 0)} of theoretical`,
    ]),
    ...(c.tflops
      ? [ours(['Achieved flop rate', flopRate(c.tflops.unfused), flopRateOfPeak(c), 'useful flops / median time'])]
      : []),
    ours([
      'Max error vs float64',
      nu ? `${sci(nu.unfused.maxAbsError)} abs, ${sci(nu.unfused.maxRelError)} rel` : '',
      nu ? `${sci(nu.fused.maxAbsError)} abs, ${sci(nu.fused.maxRelError)} rel` : '',
      nu ? `tolerance atol ${nu.tolerance.atol}, rtol ${nu.tolerance.rtol} ✓` : '',
    ]),
    ...(nu?.fused.relL2 !== undefined
      ? [
          [
            ...ours(['Relative L2 error vs float64', sci(nu.unfused.relL2 ?? Number.NaN), sci(nu.fused.relL2)]),
            nu.fused.sampled ? md`on ${note(nu.fused.sampled)}` : 'every element',
          ],
        ]
      : []),
    ...Object.entries(nu?.extra ?? {}).map(([k, v]) => [k, ...ours(['', sci(v), ''])]),
    ...(clocks
      ? [
          ours([
            'Clocks (SM / memory, median)',
            '',
            `${clocks.smMHz.median} / ${clocks.memMHz.median} MHz`,
            `SM ${clocks.smMHz.min}–${clocks.smMHz.max} MHz; ${t.droppedThrottled} throttled pairs dropped`,
          ]),
        ]
      : []),
    samplesRow(t, options.minPairs),
    ...(c.injection
      ? [
          ours([
            'Injected regression (--inject)',
            '',
            injectionLabel(c.injection),
            'the fused kernel slowed on purpose',
          ]),
        ]
      : []),
    ...(c.gate ? gateRows(c.gate) : []),
  ];
}

/** The section of one case and shape, its title at heading `level`. */
export function renderCaseSection(c: CaseResult, level: number, options: CaseSectionOptions): string {
  const title = md`${trusted('#'.repeat(level))} ${name(c.title)} — ${name(c.shape.label)} (${name(c.shape.description)}), ${trusted(c.dtype)}`;
  if (c.status !== 'measured' || !c.timing || !c.speedup) {
    return `${title}\n\n${md`**${c.status.toUpperCase()}**: ${note(c.reason ?? 'no reason recorded')}`}\n`;
  }
  const u = c.traffic.unfused;
  const f = c.traffic.fused;
  const header = ours([
    'Metric',
    `Unfused (${u.launches} kernels)`,
    `Fused (${f.launches} kernel${f.launches === 1 ? '' : 's'})`,
    'Improvement',
  ]);
  const notes = c.gate ? [c.gate.message, ...c.gate.fingerprintNotes].filter((s) => s.length > 0) : [];
  // The gate's message and the fingerprint notes together, cut as one (there may be any number of notes).
  const gateNote = notes.length > 0 ? `\n${md`> Gate: ${text(notes.join(' · '), 2 * NOTE_CHARS)}`}\n` : '';
  // The kernel the fused variant picked at run time, where it chooses one by device (attention: sm_90 or mma.sync).
  const kernel = c.fusedKernel
    ? `\n${md`Fused kernel run: ${codeSpan(c.fusedKernel)} (picked at run time for this GPU).`}\n`
    : '';
  return `${title}\n\n${markdownTable(header, measuredRows(c as Measured, options))}\n${kernel}${gateNote}`;
}
