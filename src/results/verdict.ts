/**
 * One verdict per case and shape, as reports show it: the gate's verdict when the case was measured,
 * the case's status (SKIPPED, FAILED, ERRORED) when it was not. Shared by every renderer so the
 * Markdown, the PR comment and the Actions annotations never disagree.
 */
import type { CaseResult, ResultsFile } from './results.ts';

/** A verdict of the gate, or why there is none. */
export type RowVerdict = 'SLOWER' | 'FASTER' | 'SAME' | 'AMBIGUOUS' | 'NO_BASELINE' | 'SKIPPED' | 'FAILED' | 'ERRORED';

/** Worst first: what a truncated comment keeps longest. */
export const VERDICT_ORDER: readonly RowVerdict[] = [
  'FAILED',
  'ERRORED',
  'SLOWER',
  'AMBIGUOUS',
  'NO_BASELINE',
  'FASTER',
  'SAME',
  'SKIPPED',
];

const LABELS: Record<RowVerdict, string> = {
  SLOWER: '🔴 SLOWER',
  FASTER: '🟢 FASTER',
  SAME: '⚪ SAME',
  AMBIGUOUS: '🟡 AMBIGUOUS',
  NO_BASELINE: '⚫ NO BASELINE',
  SKIPPED: '⏭️ SKIPPED',
  FAILED: '❌ FAILED',
  ERRORED: '❌ ERRORED',
};

/** The verdict of one case: a measured case without a gate entry counts as having no baseline. */
export function caseVerdict(c: CaseResult): RowVerdict {
  if (c.status === 'skipped') return 'SKIPPED';
  if (c.status === 'failed') return 'FAILED';
  if (c.status === 'errored') return 'ERRORED';
  return c.gate?.status ?? 'NO_BASELINE';
}

/** The verdict with its marker, for tables: "🔴 SLOWER". */
export function verdictLabel(v: RowVerdict): string {
  return LABELS[v];
}

/**
 * Whether a case's verdict gates the run. Not when it was judged against a baseline entry that does not
 * gate (`gating: false`: a number reported by someone else, such as the tutorial's V100 claims, until this
 * device measures its own): perf then exits 0 whatever the verdict, so every report says so beside it.
 */
export function verdictGates(c: CaseResult): boolean {
  return !(c.status === 'measured' && c.gate && !c.gate.gating && c.gate.status !== 'NO_BASELINE');
}

/** What every report writes after a verdict that does not gate: " (not gating)"; '' after one that gates. */
export function notGatingNote(gates: boolean): string {
  return gates ? '' : ' (not gating)';
}

/** A case's verdict with its marker, and "(not gating)" when it does not gate: "🔴 SLOWER (not gating)". */
export function caseVerdictLabel(c: CaseResult): string {
  return `${verdictLabel(caseVerdict(c))}${notGatingNote(verdictGates(c))}`;
}

/** Rank for sorting, 0 = worst. */
export function verdictRank(v: RowVerdict): number {
  return VERDICT_ORDER.indexOf(v);
}

/** Verdict counts, named as the Actions outputs are. */
export interface VerdictCounts {
  slower: number;
  faster: number;
  same: number;
  ambiguous: number;
  no_baseline: number;
  skipped: number;
  /** Failed (wrong result) and errored (could not run) cases together. */
  errored: number;
  /** Cases judged against a baseline that does not gate (counted here, not under their verdict). */
  not_gating: number;
}

/** Counts of nothing yet, to add to. */
export function noVerdicts(): VerdictCounts {
  return { slower: 0, faster: 0, same: 0, ambiguous: 0, no_baseline: 0, skipped: 0, errored: 0, not_gating: 0 };
}

/** Counts the verdicts of a run. */
export function countVerdicts(results: ResultsFile): VerdictCounts {
  const n = noVerdicts();
  for (const c of results.cases) {
    const v = caseVerdict(c);
    if (!verdictGates(c)) n.not_gating++;
    else if (v === 'FAILED' || v === 'ERRORED') n.errored++;
    else n[v.toLowerCase() as Exclude<keyof VerdictCounts, 'errored' | 'not_gating'>]++;
  }
  return n;
}

/** "**1 slower** · 1 ambiguous · 2 faster · 1 same": the counts in words, worst first, zeros left out. */
export function countsLine(n: VerdictCounts): string {
  const parts: [number, string, boolean][] = [
    [n.errored, 'failed or errored', true],
    [n.slower, 'slower', true],
    [n.ambiguous, 'ambiguous', false],
    [n.faster, 'faster', false],
    [n.same, 'same', false],
    [n.no_baseline, 'without a baseline', false],
    [n.not_gating, 'against a baseline that does not gate', false],
    [n.skipped, 'skipped', false],
  ];
  const shown = parts.filter(([k]) => k > 0).map(([k, w, bad]) => (bad ? `**${k} ${w}**` : `${k} ${w}`));
  return shown.length > 0 ? shown.join(' · ') : 'no cases';
}
