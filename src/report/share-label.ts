/**
 * The fused kernel's share of its roofline ceiling in words, as BENCHMARK_RESULTS.md and the dashboard
 * state it: "97% of copy bandwidth (no flop model)", "84% of bf16 matrix peak", "<0.1% of copy bandwidth
 * (no flop model)"; a share above 100% is shown and said so, never rounded to read as 100%.
 */
import { pct } from '../base/format.ts';
import type { FusedShare } from './charts/roofline.ts';

export function shareLabel(s: FusedShare | undefined, dtype: string): string {
  if (!s) return '—';
  const of =
    s.ceiling === 'matrix peak'
      ? `of ${dtype} matrix peak`
      : s.ceiling === 'bandwidth'
        ? 'of copy bandwidth (memory-bound)'
        : 'of copy bandwidth (no flop model)';
  if (s.share < 0.001) return `<0.1% ${of}`;
  if (s.share <= 1) return `${pct(s.share, s.share < 0.1 ? 1 : 0)} ${of}`;
  // Above 100%, as many decimals as it takes (up to 3) not to read as a rounded 100%.
  const digits = [1, 2, 3].find((d) => Number((100 * s.share).toFixed(d)) > 100) ?? 3;
  return `${pct(s.share, digits)} ${of}, above the measured ceiling`;
}
