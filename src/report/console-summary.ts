/**
 * What `npm run perf` prints after its table: a line per case that needs more than a cell (why it did
 * not run, an injected regression), the tables of the shapes timed both ways and of the graph twins, the
 * closing verdict counts, and, once per run, the hint to record a baseline when the device has none. Every
 * string from a result is cut to one line. Pure: the reporter prints what this returns.
 */

import { injectionLabel, speedup } from '../base/format.ts';
import { logText } from '../base/log-text.ts';
import { recordCommand } from '../gate/record-baselines.ts';
import { asMeasured, judgedTiming, timingOf } from '../results/judged-timing.ts';
import type { CaseResult, ResultsFile } from '../results/results.ts';
import { caseVerdict, type RowVerdict, verdictGates } from '../results/verdict.ts';
import { paintVerdict, ruledTable } from './color.ts';
import { renderConsoleTable, timingCells } from './console-table.ts';
import { NOTE_CHARS, plain, shapeName } from './escape.ts';
import { graphTwinConsoleLines } from './graph-twin-table.ts';
import { phaseSplitLine } from './phase-split.ts';
import { wideDeltaSentence, wideDeltaShapes } from './wide-delta.ts';

const who = (c: CaseResult) => logText(shapeName(c));

/**
 * The shapes timed both ways (one call a sample, and batches of calls), in the timing their row does not
 * show: one call a sample, launch gaps and the event tick included, beside a `(batched)` row; the batches
 * beside a row the gate judged per call (an older file). Not judged. No lines when no shape has both.
 */
function otherTimingLines(results: ResultsFile): string[] {
  const rows = results.cases.flatMap((c) => {
    const m = asMeasured(c);
    if (!m?.batched) return [];
    const t = timingOf(m, judgedTiming(m).method === 'batched' ? 'per-call' : 'batched');
    const how = t.method === 'batched' ? `batches of ${t.callsPerSample}` : 'one call a sample';
    return [[...timingCells(m, t), speedup(t.speedup), how]];
  });
  if (rows.length === 0) return [];
  return [
    'the shapes timed both ways, in the timing their row does not show (not judged)',
    ...ruledTable([['case', 'size', 'dtype', 'unfused', 'fused', 'speedup [95% CI]', 'timing'], ...rows]),
  ];
}

/** Lines of the form "who, who: text", one per distinct text, in the order the texts first appear. */
function grouped(items: { who: string; text: string }[]): string[] {
  return [...Map.groupBy(items, (i) => i.text)].map(([text, of]) => `${of.map((i) => i.who).join(', ')}: ${text}`);
}

/**
 * The lines under the table: why cases did not run and why a graph twin was not measured (one line per
 * reason, naming its shapes), injected regressions; then the tables of the shapes timed both ways and of
 * the graph twins (graph-twin-table.ts).
 */
export function consoleNotes(results: ResultsFile): string[] {
  const reason = (r: string | undefined) => logText(plain(r ?? 'no reason recorded', NOTE_CHARS));
  const notRun = results.cases
    .filter((c) => c.status !== 'measured')
    .map((c) => ({ who: who(c), text: `${c.status.toUpperCase()}: ${reason(c.reason)}` }));
  const noTwin = results.cases.flatMap((c) =>
    c.graphTwin?.status === 'unavailable'
      ? [{ who: who(c), text: `no graph twin: ${reason(c.graphTwin.reason)}` }]
      : [],
  );
  const injected = results.cases.flatMap((c) =>
    c.injection ? [`${who(c)}: injected regression: ${injectionLabel(c.injection)}`] : [],
  );
  const blocks = [
    [...grouped(notRun), ...grouped(noTwin), ...injected],
    otherTimingLines(results),
    graphTwinConsoleLines(results),
  ];
  return blocks.filter((b) => b.length > 0).flatMap((b, i) => (i === 0 ? b : ['', ...b]));
}

/** Counts of every row verdict, failed and errored apart. */
function rowVerdictCounts(results: ResultsFile): Record<RowVerdict, number> {
  const n: Record<RowVerdict, number> = {
    SLOWER: 0,
    FASTER: 0,
    SAME: 0,
    AMBIGUOUS: 0,
    NO_BASELINE: 0,
    SKIPPED: 0,
    FAILED: 0,
    ERRORED: 0,
  };
  // A verdict that does not gate is counted apart (consoleCountsLine's NOT GATING), as every report counts it.
  for (const c of results.cases) if (verdictGates(c)) n[caseVerdict(c)]++;
  return n;
}

/**
 * "SLOWER 1 · FASTER 0 · SAME 3 · AMBIGUOUS 0 · SKIPPED 1", then FAILED, ERRORED, NO BASELINE and NOT
 * GATING (the verdicts against a baseline that does not gate) when not zero; with `color`, each non-zero
 * count in its verdict's colour.
 */
export function consoleCountsLine(results: ResultsFile, color = false): string {
  const n = rowVerdictCounts(results);
  const always: RowVerdict[] = ['SLOWER', 'FASTER', 'SAME', 'AMBIGUOUS', 'SKIPPED'];
  const ifAny: RowVerdict[] = ['FAILED', 'ERRORED', 'NO_BASELINE'];
  const ungated = results.cases.filter((c) => !verdictGates(c)).length;
  return [
    ...[...always, ...ifAny.filter((v) => n[v] > 0)].map((v) => {
      const part = `${v.replace('_', ' ')} ${n[v]}`;
      return n[v] > 0 ? paintVerdict(part, v, color) : part;
    }),
    ...(ungated > 0 ? [`NOT GATING ${ungated}`] : []),
  ].join(' · ');
}

/**
 * Once per run: "no baseline for NVIDIA H200 (4 shapes, baselines/nvidia-h200.json has no entry); record
 * one with `npm run perf -- --backend cuda --update-baselines`" (`record`: the command that records into where
 * the run looked); undefined when every measured shape had one, or with `record` null (a run that records them).
 */
export function noBaselineHint(
  results: ResultsFile,
  record: string | null = recordCommand(results.device.backend),
): string | undefined {
  if (record === null) return undefined;
  const missing = results.cases.filter((c) => c.gate?.status === 'NO_BASELINE');
  if (missing.length === 0) return undefined;
  const file = missing.find((c) => c.gate?.baselineFile)?.gate?.baselineFile;
  const where = file ? `${logText(plain(file))} has no entry for them` : 'no baseline file';
  const shapes = `${missing.length} shape${missing.length === 1 ? '' : 's'}`;
  const command = `\`${logText(record)}\``;
  const how =
    results.device.backend === 'cpu'
      ? `No CPU baseline is shipped: CPU timings on a shared machine wander too far to gate on. On a quiet, dedicated machine, record one with ${command}`
      : `Record one with ${command}`;
  return `no baseline for ${logText(plain(results.device.name))} (${shapes}; ${where}): the run only reports. ${how}`;
}

/**
 * Once per run, where some shape's gate is nearly blind: "wide δ: 3 shapes judged with δ above ±5%, so a
 * slower fused kernel within it passes as SAME: …"; undefined when none is.
 */
export function wideDeltaNote(results: ResultsFile): string | undefined {
  const wide = wideDeltaShapes(results);
  if (wide.length === 0) return undefined;
  return logText(`wide δ: ${wideDeltaSentence(wide.length)}: ${wide.join(', ')}`);
}

/**
 * Once per run, what the table has no column for: "numerics: 17 shapes checked against their float64
 * references, unfused and fused within tolerance in every one" (or how many FAILED); undefined when no shape
 * was checked.
 */
export function numericsLine(results: ResultsFile): string | undefined {
  const checked = results.cases.filter((c) => c.numerics !== undefined);
  const failed = results.cases.filter((c) => c.status === 'failed').length;
  if (checked.length === 0 && failed === 0) return undefined;
  const one = checked.length === 1;
  const what = one
    ? '1 shape checked against its float64 reference'
    : `${checked.length} shapes checked against their float64 references`;
  const verdict =
    failed === 0
      ? `unfused and fused within tolerance${one ? '' : ' in every one'}`
      : `${failed} FAILED (above; --seed reproduces the inputs)`;
  return `numerics: ${what}, ${verdict}`;
}

/** Everything the reporter prints after the run's header: the table, the notes, the counts, the hints and the time split. */
export function renderRunConsole(results: ResultsFile, color = false, wide = false, record?: string | null): string {
  const notes = consoleNotes(results);
  const hint = noBaselineHint(results, record);
  const blind = wideDeltaNote(results);
  const numerics = numericsLine(results);
  const phases = phaseSplitLine(results);
  return [
    renderConsoleTable(results, color, wide),
    ...(notes.length > 0 ? ['', ...notes] : []),
    '',
    ...(numerics ? [numerics] : []),
    consoleCountsLine(results, color),
    ...(hint ? [hint] : []),
    ...(blind ? [blind] : []),
    ...(phases ? [`time: ${phases}`] : []),
  ].join('\n');
}
