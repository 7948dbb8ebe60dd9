// The sampling protocol on a simulated device: interleaving, warm-up, stopping, continuation, throttling.
import { describe, expect, test } from 'vitest';
import { MAX_PAIRS } from '../../src/results/results.ts';
import { measurePairs, THROTTLE_MASK } from '../../src/run/measure.ts';
import { REALISTIC, SimulatedDevice } from '../support/noise-model.ts';

const variants = { unfused: 'unfused', fused: 'fused' };
const truth = { unfused: 0.08, fused: 0.04 };

/** A simulated device that also records the order of calls. */
function recording(seed: number) {
  const dev = new SimulatedDevice(truth, REALISTIC, seed);
  const calls: string[] = [];
  return {
    dev,
    calls,
    timed: {
      time: (v: string) => {
        calls.push(v);
        return dev.time(v);
      },
    },
    clock: () => dev.elapsed,
  };
}

/** measurePairs on a recording device: 30 pairs, no warm-up, no budget past them, ±1%, unless overridden. */
function measure(r: ReturnType<typeof recording>, overrides: Partial<Parameters<typeof measurePairs>[2]> = {}) {
  return measurePairs(r.timed, variants, {
    minPairs: 30,
    warmupPairs: 0,
    budgetMs: 0,
    targetHalfWidth: 0.01,
    clock: r.clock,
    ...overrides,
  });
}

describe('measurePairs', () => {
  test('interleaves pairs, alternating which variant goes first, and keeps warm-up out of the samples', () => {
    const r = recording(1);
    const m = measure(r, { warmupPairs: 5 });
    expect(m.unfused).toHaveLength(30);
    // 5 warm-up pairs (tinybench may add one more unrecorded call pair of its own), then 30 recorded.
    expect(r.calls.length).toBeGreaterThanOrEqual(2 * (5 + 30));
    const measured = r.calls.slice(-60);
    for (let p = 0; p < 30; p++) {
      expect(measured[2 * p]).toBe(p % 2 === 0 ? 'unfused' : 'fused');
      expect(measured[2 * p + 1]).toBe(p % 2 === 0 ? 'fused' : 'unfused');
    }
    expect(m.stopReason).toBe('budget');
  });

  test('keeps sampling past the minimum until the interval is within the target, then says so', () => {
    const r = recording(2);
    const m = measure(r, { budgetMs: 1e6, targetHalfWidth: 0.005 });
    expect(m.stopReason).toBe('converged');
    expect(m.pairsTaken).toBeGreaterThan(30);
    expect((m.speedup.hi - m.speedup.lo) / 2 / m.speedup.estimate).toBeLessThanOrEqual(0.005);
  });

  test('stops at MAX_PAIRS pairs when neither the interval nor the budget stops it, and says so', () => {
    const r = recording(6);
    // A target no interval reaches and a budget no simulated clock spends: only the cap ends it.
    const m = measure(r, { minPairs: 1000, budgetMs: 1e12, targetHalfWidth: 1e-9 });
    expect(m.stopReason).toBe('pair cap');
    expect(m.pairsTaken).toBe(MAX_PAIRS);
    expect(m.unfused).toHaveLength(MAX_PAIRS);
    // Continued from pairs at the cap, it takes none.
    const c = measure(recording(7), {
      previous: { unfused: m.unfused, fused: m.fused },
      budgetMs: 1e12,
      targetHalfWidth: 1e-9,
    });
    expect(c.pairsTaken).toBe(MAX_PAIRS);
    expect(c.stopReason).toBe('pair cap');
  });

  test('continues from earlier pairs instead of starting over', () => {
    const first = recording(3);
    const a = measure(first);
    const second = recording(4);
    const b = measure(second, { previous: { unfused: a.unfused, fused: a.fused } });
    expect(b.unfused.slice(0, 30)).toEqual(a.unfused);
    expect(b.pairsTaken).toBe(60);
  });

  test('drops pairs taken while the GPU was throttled, when at least the minimum remain', () => {
    const r = recording(5);
    let n = 0;
    const sampleClocks = () => ({
      smClockMHz: 1980,
      memClockMHz: 3201,
      clockEventReasons: n++ % 4 === 0 ? THROTTLE_MASK & 0x4 : 0, // every 4th pair under the power cap
    });
    const m = measure(r, { budgetMs: 50, targetHalfWidth: 0.0001, sampleClocks });
    expect(m.pairsTaken).toBeGreaterThan(40);
    expect(m.droppedThrottled).toBe(Math.ceil(m.pairsTaken / 4));
    expect(m.clocks?.throttledPairs).toBe(m.droppedThrottled);
    expect(m.unfused).toHaveLength(m.pairsTaken - m.droppedThrottled);
  });
});

test('keeps throttled pairs when dropping them would leave fewer than the minimum', () => {
  const r = recording(6);
  const sampleClocks = () => ({
    smClockMHz: 1400,
    memClockMHz: 3201,
    clockEventReasons: 0x4,
  });
  const m = measure(r, { sampleClocks });
  expect(m.droppedThrottled).toBe(0);
  expect(m.clocks?.throttledPairs).toBe(30);
});
