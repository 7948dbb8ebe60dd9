/**
 * What a history chart shows: for each case, the last N commits in run order (a commit measured twice
 * counts once, with its latest run; runs whose commit is unknown count once each) and one series per
 * shape, with a point only where that shape was measured at that commit. Pure.
 */
import type { Dtype } from '../base/dtype.ts';
import { UNKNOWN_COMMIT } from '../base/source.ts';
import type { RowVerdict } from '../results/verdict.ts';
import type { HistoryCase, HistoryRecord } from './history-record.ts';

/** How many commits a history chart shows unless told otherwise. */
export const DEFAULT_HISTORY_COMMITS = 20;

/** One measured point: the commit's position on the x axis and the speedup with its interval. */
interface HistoryPoint {
  /** Position among the chart's commits, 0 = oldest. */
  index: number;
  estimate: number;
  lo: number;
  hi: number;
  verdict: RowVerdict;
  /** Median time of one fused call, ms, when recorded. */
  fusedMs?: number;
  /** Whether the numbers are of batched timing (launch-bound shapes the gate judged that way). */
  batched: boolean;
}

/** One shape's points, oldest first; commits where it was not measured have no point. */
interface HistorySeries {
  shape: string;
  points: HistoryPoint[];
}

/** One case's chart: the commits on the x axis and a series per shape measured at any of them. */
export interface CaseHistory {
  case: string;
  /** The precision of every point of the chart. */
  dtype: Dtype;
  /** Commit ids in order, oldest first (full ids; shortCommit() labels them). */
  commits: string[];
  /** The date of each commit's run. */
  dates: string[];
  series: HistorySeries[];
}

/** A commit id as an axis label: its first 7 characters, with `+` when it was measured dirty. */
export function shortCommit(commit: string): string {
  const dirty = commit.endsWith('+dirty');
  const sha = dirty ? commit.slice(0, -'+dirty'.length) : commit;
  return `${sha.slice(0, 7)}${dirty ? '+' : ''}`;
}

/**
 * The runs to chart: the last run of each commit, in the order of those runs, the last `last` of them.
 * Runs whose commit is unknown (no git, no FUSEBENCH_COMMIT) are not one commit: each keeps its own point.
 */
export function lastCommits(records: HistoryRecord[], last = DEFAULT_HISTORY_COMMITS): HistoryRecord[] {
  const key = (r: HistoryRecord, i: number) => (r.commit === UNKNOWN_COMMIT ? i : r.commit);
  const latest = new Map<string | number, number>();
  records.forEach((r, i) => {
    latest.set(key(r, i), i);
  });
  const kept = records.filter((r, i) => latest.get(key(r, i)) === i);
  return kept.slice(Math.max(0, kept.length - last));
}

/**
 * One chart per case and precision measured at any of the last `last` commits, in order of appearance
 * (records from before precisions were recorded count as fp32).
 */
export function caseHistories(records: HistoryRecord[], last = DEFAULT_HISTORY_COMMITS): CaseHistory[] {
  const runs = lastCommits(records, last);
  const dtypeOf = (c: HistoryCase): Dtype => c.dtype ?? 'fp32';
  const charts = new Map<string, { name: string; dtype: Dtype; shapes: string[] }>();
  for (const r of runs) {
    for (const c of Object.values(r.cases)) {
      if (!c.speedup) continue;
      const key = `${c.case}/${dtypeOf(c)}`;
      const chart = charts.get(key) ?? { name: c.case, dtype: dtypeOf(c), shapes: [] };
      if (!chart.shapes.includes(c.shape)) chart.shapes.push(c.shape);
      charts.set(key, chart);
    }
  }
  return [...charts.values()].map(({ name, dtype, shapes }) => ({
    case: name,
    dtype,
    commits: runs.map((r) => r.commit),
    dates: runs.map((r) => r.date),
    series: shapes.map((shape) => ({
      shape,
      points: runs.flatMap((r, index) => {
        const c = Object.values(r.cases).find(
          (x) => x.case === name && dtypeOf(x) === dtype && x.shape === shape && x.speedup,
        );
        if (!c?.speedup) return [];
        const [estimate, lo, hi] = c.speedup;
        return [
          {
            index,
            estimate,
            lo,
            hi,
            verdict: c.verdict,
            ...(c.fusedMs !== undefined ? { fusedMs: c.fusedMs } : {}),
            batched: c.batched === true,
          },
        ];
      }),
    })),
  }));
}
