// δ against the machines it was recorded on (src/gate/tolerance.ts, DF_PER_MACHINE and FUSED_TIME_FLOOR),
// checked on measured runs instead of a model: the committed H100 file holds most entries from seven
// machines. For every set of 2–5 of them, the file is cut to the runs of that set (as if it had been recorded
// there), δ is derived by the gate's rule, and each machine outside the set is checked against it with the
// run it really measured. A check is a false SLOWER where that run's shift lies below −δ by more than the
// half-width of the decision's interval (its 99% width from the two runs' recorded 95% half-widths; the
// fused time borrows the speedup's). A suite run is one check machine against one set: it fails CI if any
// of its metrics is SLOWER. The rule without the cap and the fused time's own floor fails far more of them.
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { loadCases } from '../../cases/registry.ts';
import { type BaselineEntry, loadBaselineFile } from '../../src/gate/baseline-file.ts';
import {
  DELTA_FLOOR,
  DF_PER_MACHINE,
  entryDeltas,
  FUSED_TIME_FLOOR,
  type MachineRule,
  runNoise,
  runsCenter,
} from '../../src/gate/tolerance.ts';

const CASES = await loadCases();
const h100 = loadBaselineFile(
  join(import.meta.dirname, '..', '..', 'baselines', 'nvidia-h100-80gb-hbm3.json'),
  CASES.map((c) => c.name),
).data.entries;

/** The machines every entry with the most runs was recorded on. */
const MACHINES = (() => {
  const full = Object.values(h100).filter((e) => (e.runs?.length ?? 0) >= 7);
  const sets = full.map((e) => new Set((e.runs ?? []).map((r) => r.deviceUuid)));
  return [...(sets[0] ?? [])].filter((m): m is string => !!m && sets.every((s) => s.has(m))).sort();
})();

function* subsets<T>(xs: readonly T[], k: number, from = 0): Generator<T[]> {
  if (k === 0) yield [];
  else
    for (let i = from; i <= xs.length - k; i++)
      for (const rest of subsets(xs, k - 1, i + 1)) yield [xs[i] as T, ...rest];
}

const Z99_OVER_Z95 = 2.5758 / 1.96;

/** Suite runs (a check machine against a set) and those with a false SLOWER, for baselines of `size` machines. */
function crossValidate(size: number, rule?: MachineRule) {
  let suites = 0;
  let failed = 0;
  const slower = new Map<string, number>();
  for (const set of subsets(MACHINES, size)) {
    const file: Record<string, BaselineEntry> = {};
    for (const [key, e] of Object.entries(h100)) {
      const runs = (e.runs ?? []).filter((r) => set.includes(r.deviceUuid as string));
      if (runs.length >= size) file[key] = { ...e, runs, noise: runNoise(runs) };
    }
    // δ depends on the set alone: derived once, for every machine checked against it.
    const deltas = new Map(Object.entries(file).map(([key, e]) => [key, entryDeltas(e, file, rule)]));
    for (const machine of MACHINES.filter((m) => !set.includes(m))) {
      suites++;
      let any = false;
      for (const [key, e] of Object.entries(file)) {
        const check = h100[key]?.runs?.find((r) => r.deviceUuid === machine);
        const last = e.runs?.[e.runs.length - 1];
        const base = last && e.runs ? { ...last, ...runsCenter(e.runs) } : undefined; // centred as update.ts centres
        const d = deltas.get(key);
        if (!check || !base || !d) continue;
        const halfWidth = Z99_OVER_Z95 * Math.hypot(check.halfWidth, base.halfWidth);
        const shifts = {
          speedup: Math.log(check.speedup / base.speedup),
          fusedTime: -Math.log(check.fusedMedianMs / base.fusedMedianMs),
        };
        for (const m of ['speedup', 'fusedTime'] as const) {
          if (m === 'speedup' && e.ungatedSpeedup !== undefined) continue;
          if (shifts[m] + halfWidth < Math.log(1 - d[m])) {
            any = true;
            slower.set(`${key} ${m}`, (slower.get(`${key} ${m}`) ?? 0) + 1);
          }
        }
      }
      if (any) failed++;
    }
  }
  return { suites, failed, slower };
}

const pct = (x: number) => `${(100 * x).toFixed(0)}%`;
const UNCAPPED: MachineRule = { dfPerMachine: Number.POSITIVE_INFINITY, fusedTimeFloor: DELTA_FLOOR };

describe('δ checked on the H100 machines it was not recorded on (the committed file, leave machines out)', () => {
  test('the file has seven machines in common', () => {
    expect(MACHINES).toHaveLength(7);
  });

  test.each([2, 3, 4, 5])(
    `baselines from %i machines: an unchanged run on another fails in at most 5% of suite runs (${DF_PER_MACHINE} df a machine, fused time floor ${(100 * FUSED_TIME_FLOOR).toFixed(1)}%)`,
    (size) => {
      const now = crossValidate(size);
      const before = crossValidate(size, UNCAPPED);
      const worst = [...now.slower].sort((a, b) => b[1] - a[1]).slice(0, 3);
      console.log(
        `H100, baselines from ${size} machines: false SLOWER in ${now.failed} of ${now.suites} suite runs ` +
          `(${pct(now.failed / now.suites)}); without the machine rule ${before.failed} (${pct(before.failed / before.suites)}); ` +
          `most often ${JSON.stringify(worst)}`,
      );
      expect(now.failed / now.suites).toBeLessThanOrEqual(0.05);
      // What the cap and the fused time's floor are for: without them, two- to four-machine baselines fail often.
      if (size <= 4) expect(before.failed / before.suites).toBeGreaterThan(0.05);
    },
  );
});
