/**
 * The calibrated regression injection of `--inject <case>:<p>%`: a spin after the fused variant sized
 * so the variant's median time grows by p%, measured, not assumed. The spin's cost is a fixed part (the
 * extra launch on CUDA) plus a part linear in its length; both are measured on the workspace itself,
 * and the result reports the slowdown asked for and the one measured (a launch-bound kernel may not
 * be slowed by less than one extra launch costs: the measured figure then says so).
 */
import type { BackendName } from '../addon/device.ts';
import type { Workspace } from '../addon/native.ts';
import { median } from '../base/stats.ts';

/** Timed calls per median of the calibration. */
const CALLS = 21;
/** Times a spin that slowed the variant by less than half the slowdown asked for is grown (doubled at least). */
const MAX_REGROWS = 8;
/** Spin units per millisecond to start from: SM clock cycles at ~1.5 GHz (CUDA), nanoseconds (CPU). */
const UNITS_PER_MS: Record<BackendName, number> = { cuda: 1.5e6, cpu: 1e6 };

/** The spin that slows the fused variant by `percent`, and the slowdown measured with it. */
export interface Calibration {
  spin: number;
  askedPct: number;
  measuredPct: number;
}

/** Calibrates the spin of `ws`'s injected variant `fused`; leaves the workspace injecting it. */
export function calibrateSpin(ws: Workspace, fused: string, percent: number, backend: BackendName): Calibration {
  const timed = (spin: number) => {
    ws.setSpin(spin);
    ws.time(fused); // warm
    return median(Array.from({ length: CALLS }, () => ws.time(fused)));
  };
  const base = timed(0);
  const target = (percent / 100) * base;
  const fixed = timed(1) - base;
  const probe = Math.max(1, Math.round(2 * target * UNITS_PER_MS[backend]));
  const perUnit = Math.max((timed(probe) - base - fixed) / probe, 1e-12);
  let spin = Math.max(1, Math.round((target - fixed) / perUnit));
  let measuredPct = 100 * (timed(spin) / base - 1);
  // The short medians' noise can make the fixed part look as large as the target (a kernel of a few
  // microseconds on a busy CPU), and the spin come out at nothing: an injection that injects nothing. The
  // spin grows until at least half the slowdown asked for is measured.
  for (let tries = 0; measuredPct < percent / 2 && tries < MAX_REGROWS; tries++) {
    spin = Math.max(2 * spin, Math.round(target / perUnit));
    measuredPct = 100 * (timed(spin) / base - 1);
  }
  return { spin, askedPct: percent, measuredPct };
}
