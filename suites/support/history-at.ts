// History records made from the recorded H200 gate run (suites/fixtures/h200-gate-run.json), as if it had
// been measured at other commits and dates with other speedups: the history tests' series.
import { join } from 'node:path';
import { type HistoryRecord, historyRecord } from '../../src/history/history-record.ts';
import { type ResultsFile, readResults } from '../../src/results/results.ts';

const run = readResults(join(import.meta.dirname, '..', 'fixtures', 'h200-gate-run.json'));

/**
 * The gate run as measured at `commit` (on 2026-11-`day` when given), each speedup (estimate and interval)
 * multiplied by `factor`, without the shapes labelled in `drop`.
 */
export function historyAt(
  commit: string,
  options: { day?: number; factor?: number; drop?: string[] } = {},
): HistoryRecord {
  const { day, factor = 1, drop = [] } = options;
  const r: ResultsFile = structuredClone(run);
  r.source = { commit, branch: 'main' };
  if (day !== undefined) r.createdAt = `2026-11-${String(day).padStart(2, '0')}T12:00:00.000Z`;
  r.cases = r.cases.filter((c) => !drop.includes(c.shape.label));
  for (const c of r.cases) {
    if (c.speedup) {
      const s = c.speedup;
      c.speedup = { ...s, estimate: s.estimate * factor, lo: s.lo * factor, hi: s.hi * factor };
    }
  }
  return historyRecord(r);
}
