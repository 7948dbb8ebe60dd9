// --inject <case>:<p>%: the spin is calibrated on the workspace, and what it measured is reported. A noisy
// look at the fixed part of the spin (a burst while a 5 µs kernel was timed on a busy CPU) made it look as
// large as the target, and the spin came out at nothing: the self-check then injected nothing.
import { expect, test } from 'vitest';
import type { Workspace } from '../../src/addon/native.ts';
import { calibrateSpin } from '../../src/run/inject.ts';

/**
 * A variant of `baseMs` whose spin costs `perUnitMs` a unit; the first `burst.calls` calls with the spin
 * `burst.spin` take `burst.ms` more (a burst of load while they were timed).
 */
function fakeWorkspace(baseMs: number, perUnitMs: number, burst = { spin: -1, ms: 0, calls: 0 }) {
  let spin = 0;
  let left = burst.calls;
  return {
    setSpin: (s: number) => {
      spin = s;
    },
    time: () => baseMs + spin * perUnitMs + (spin === burst.spin && left-- > 0 ? burst.ms : 0),
  } as unknown as Workspace;
}

test('a quiet variant is slowed by what was asked', () => {
  const c = calibrateSpin(fakeWorkspace(0.005, 1e-6), 'fused', 50, 'cpu');
  expect(c.measuredPct).toBeCloseTo(50, 0);
});

test('a fixed part that looked as large as the target: the spin grows until half the slowdown asked is measured', () => {
  // The one-unit look took 4 µs more than it costs: the fixed part seemed to be 1.6× the 2.5 µs target.
  const c = calibrateSpin(fakeWorkspace(0.005, 1e-6, { spin: 1, ms: 0.004, calls: 22 }), 'fused', 50, 'cpu');
  expect(c.spin).toBeGreaterThan(1);
  expect(c.measuredPct).toBeGreaterThanOrEqual(25);
  expect(c.askedPct).toBe(50);
});
