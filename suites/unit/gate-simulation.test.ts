// The gate's false-alarm rate, proved by simulation with the real sampling protocol and the real
// decision: at most 1% false SLOWER over 1,000 A/A comparisons under realistic noise.
import { describe, expect, test } from 'vitest';
import { compareRuns, REALISTIC, TRUTH } from '../support/noise-model.ts';

const TRIALS = 1000;

describe('regression gate under realistic noise (log-normal jitter 3%, 2% outliers up to 2.5x)', () => {
  test(`false SLOWER rate over ${TRIALS} A/A comparisons is at most 1%`, () => {
    const counts = compareRuns(TRUTH, TRUTH, REALISTIC, TRIALS, 1);
    const rate = (counts.SLOWER ?? 0) / TRIALS;
    console.log(
      `gate A/A: false SLOWER rate ${(100 * rate).toFixed(2)}% over ${TRIALS} comparisons; verdicts ${JSON.stringify(counts)}`,
    );
    expect(rate).toBeLessThanOrEqual(0.01);
  });
});
