// The gate's power, proved by simulation with the real sampling protocol and the real decision:
// a fused kernel 10% slower than its baseline is flagged SLOWER in at least 95% of comparisons,
// at the default sample counts and also at the protocol's floor of 30 pairs.
import { describe, expect, test } from 'vitest';
import { compareRuns, REALISTIC, TRUTH } from '../support/noise-model.ts';

const TRIALS = 500;
const SLOW = { unfused: TRUTH.unfused, fused: TRUTH.fused * 1.1 };

describe('regression gate detects a 10% slowdown', () => {
  test.each([
    ['the default protocol (±1% target, 3 s budget)', 3000],
    ['only the first 30 pairs (budget spent at once)', 0],
  ])('with %s', (label, budgetMs) => {
    const counts = compareRuns(TRUTH, SLOW, REALISTIC, TRIALS, 7, budgetMs);
    const rate = (counts.SLOWER ?? 0) / TRIALS;
    console.log(
      `gate detection (${label}): 10% slowdown flagged SLOWER in ${(100 * rate).toFixed(1)}% of ${TRIALS}; verdicts ${JSON.stringify(counts)}`,
    );
    expect(rate).toBeGreaterThanOrEqual(0.95);
  });
});
