/**
 * The rule that turns a decision's interval into a verdict, and a shape's decisions into its verdict. The gate
 * decides by it (src/gate/decision.ts, gate.ts), compare judges two runs by it, and a results file is checked
 * against it when read (results-consistency.ts), so a verdict in a file always says what its numbers say.
 */
/** Verdicts of the regression gate: what the rule below gives a decision's interval (src/gate/decision.ts decides). */
export const VERDICTS = ['SLOWER', 'FASTER', 'SAME', 'AMBIGUOUS'] as const;
export type Verdict = (typeof VERDICTS)[number];

/**
 * The SAME band around a baseline value (1: as ratios of current to baseline; a fused time's runs the other
 * way, between the same edges): [value · (1 − δ), value / (1 − δ)], symmetric in log, as δ's bound is. The
 * decision and the history charts both draw it from here.
 */
export function sameBand(delta: number, value = 1): [number, number] {
  return [value * (1 - delta), value / (1 - delta)];
}

/** The verdict for an interval of D against the ±δ band. */
export function classify(lo: number, hi: number, delta: number): Verdict {
  const [down, up] = sameBand(delta).map(Math.log) as [number, number];
  if (hi < down) return 'SLOWER';
  if (lo > up) return 'FASTER';
  if (lo >= down && hi <= up) return 'SAME';
  return 'AMBIGUOUS';
}

/**
 * The fewest pairs a timing is decided on, in a run (perf takes at least this many: --min-pairs) and in a
 * baseline that keeps its samples: with fewer every decision is AMBIGUOUS (src/gate/decision.ts).
 */
export const MIN_DECISION_PAIRS = 10;

const ORDER: Verdict[] = ['SLOWER', 'AMBIGUOUS', 'FASTER', 'SAME'];

/** The worst of several verdicts: SLOWER beats AMBIGUOUS beats FASTER beats SAME. */
export function worst(verdicts: Verdict[]): Verdict {
  return ORDER.find((v) => verdicts.includes(v)) ?? 'SAME';
}

/**
 * The verdict of a speedup decision and a fused-time one: the worse of the two, or the fused time's alone
 * for a shape whose speedup the case calls ungated (it moves with the machine: `ungatedSpeedup`), when
 * there is a fused-time decision (a baseline or base run of the same device model); `note` then says so.
 * The gate and compare both judge this way.
 */
export function judgedVerdict(
  speedup: { verdict: Verdict },
  fusedTime: { verdict: Verdict } | undefined,
  ungatedSpeedup: string | undefined,
): { verdict: Verdict; note: string | undefined } {
  if (!ungatedSpeedup || fusedTime === undefined)
    return { verdict: worst([speedup.verdict, ...(fusedTime ? [fusedTime.verdict] : [])]), note: undefined };
  return {
    verdict: fusedTime.verdict,
    note: `The speedup is reported, not gated: ${ungatedSpeedup.replace(/\.$/, '')}.`,
  };
}
