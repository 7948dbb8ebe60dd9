// The roofline: its arithmetic (properties), its panels from a real H100 run of every case (checked against
// what the run itself recorded), the Vega-Lite spec's data, and the SVG Vega draws from it.
import { join } from 'node:path';
import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, test } from 'vitest';
import { renderSvg } from '../../src/report/charts/render-svg.ts';
import {
  flopsOf,
  fusedShare,
  type RooflinePanel,
  rooflineCeiling,
  rooflinePanels,
  rooflineSpec,
} from '../../src/report/charts/roofline.ts';
import { type CaseResult, type ResultsFile, readResults } from '../../src/results/results.ts';
import { layerData, markCount, markGroup, svgInjections } from '../support/chart-check.ts';
import { hostile, hostileResults } from '../support/hostile-results.ts';

const fixtures = join(import.meta.dirname, '..', 'fixtures');
const h100 = readResults(join(fixtures, 'h100-results-cb047cf.json'));
const h200 = readResults(join(fixtures, 'h200-results.json'));

/** The H100 run reduced to one measured GEMM shape with the given bytes, flops, median time and ceilings. */
function oneShape(bytes: number, flops: number, ms: number, copyGBs: number, peak?: number): ResultsFile {
  const r = structuredClone(h100);
  const c = structuredClone(r.cases.find((x) => x.key === 'gemm/16384x3072x768/fp32')) as CaseResult;
  c.traffic.fused.bytes = bytes;
  c.flops = flops;
  (c.timing as NonNullable<CaseResult['timing']>).fused.median = ms;
  r.cases = [c];
  r.device.copyBandwidthGBs = copyGBs;
  r.device.matrixPeakTFlops = peak === undefined ? undefined : { fp32: peak };
  return r;
}

const positive = (min: number, max: number) => fc.double({ min, max, noNaN: true, noDefaultInfinity: true });

describe('the roofline arithmetic', () => {
  fcTest.prop([positive(1e-3, 1e4), positive(1, 1e4), fc.option(positive(0.1, 2000), { nil: undefined })])(
    'the ceiling at an intensity is min(bandwidth × intensity, peak), and names the one that binds',
    (intensity, bw, peak) => {
      const roof = rooflineCeiling(intensity, bw, peak);
      const memory = (bw * intensity) / 1000;
      expect(roof.tflops).toBe(peak === undefined ? memory : Math.min(memory, peak));
      expect(roof.ceiling).toBe(peak !== undefined && peak < memory ? 'matrix peak' : 'bandwidth');
    },
  );

  fcTest.prop([positive(1e3, 1e10), positive(1e3, 1e13), positive(1e-4, 1e3), positive(100, 5000), positive(1, 1000)])(
    'intensity is flops / bytes, throughput flops / time, and the share is ≤ 100% exactly when the time is physically possible',
    (bytes, flops, ms, bw, peak) => {
      const [panel] = rooflinePanels([oneShape(bytes, flops, ms, bw, peak)]);
      const p = panel?.points.find((x) => x.variant === 'fused');
      if (!p) throw new Error('a measured shape with a flop model is a roofline point');
      expect(p.intensity).toBeCloseTo(flops / bytes, 9);
      expect(p.tflops / (flops / (ms / 1e3) / 1e12)).toBeCloseTo(1, 12);
      expect(p.share).toBeCloseTo(p.tflops / Math.min((bw * p.intensity) / 1000, peak), 9);
      // The least time the ceilings allow: moving the bytes at the copy bandwidth, doing the flops at the peak.
      const least = Math.max(bytes / (bw * 1e9), flops / (peak * 1e12)) * 1e3;
      if (ms >= least * (1 + 1e-9)) expect(p.share).toBeLessThanOrEqual(1);
      if (ms <= least * (1 - 1e-9)) expect(p.share).toBeGreaterThan(1); // shown above the roof, not clamped
    },
  );

  test('a kernel faster than its ceilings is shown above them: twice too fast is a share of 200%', () => {
    // 1 GB at 1000 GB/s takes at least 1 ms; 0.5 ms is twice too fast.
    const [panel] = rooflinePanels([oneShape(1e9, 1e9, 0.5, 1000, 100)]);
    expect(panel?.points.find((p) => p.variant === 'fused')?.share).toBeCloseTo(2, 12);
  });

  test('a flop count in range that gives no point (5e-324: a share of NaN) leaves the shape out, named', () => {
    const [panel] = rooflinePanels([oneShape(1e9, 5e-324, 1, 1000, 100)]);
    expect(panel?.points).toEqual([]);
    expect(panel?.excluded).toEqual([
      {
        key: 'gemm/16384x3072x768/fp32',
        why: 'its numbers give no point in the chart (a share of the ceiling of NaN)',
      },
    ]);
  });

  test('a file’s zero bytes or time leave the shape out, named with why, instead of an infinite point', () => {
    const [panel] = rooflinePanels([oneShape(0, 1e9, 1, 1000, 100)]);
    expect(panel?.points).toEqual([]);
    expect(panel?.excluded).toEqual([{ key: 'gemm/16384x3072x768/fp32', why: 'its traffic model gives 0 bytes' }]);
  });
});

describe('the panels of the H100 run', () => {
  const panels = rooflinePanels([h100]);

  test('one per precision, each with both variants of every measured shape', () => {
    expect(panels.map((p) => [p.device.slug, p.dtype, p.commit])).toEqual([
      ['nvidia-h100-80gb-hbm3', 'fp32', 'cb047cf'],
      ['nvidia-h100-80gb-hbm3', 'bf16', 'cb047cf'],
      ['nvidia-h100-80gb-hbm3', 'fp16', 'cb047cf'],
    ]);
    for (const panel of panels) {
      const cases = h100.cases.filter((c) => c.dtype === panel.dtype);
      expect(panel.points.length + panel.bandwidthOnly.length).toBe(2 * cases.length);
      expect(panel.points.length).toBe(2 * cases.filter((c) => c.tflops).length);
      expect(panel.excluded).toEqual([]);
      expect(panel.copyBandwidthGBs).toBe(h100.device.copyBandwidthGBs);
      expect(panel.matrixPeakTFlops).toBe(h100.device.matrixPeakTFlops?.[panel.dtype]);
    }
  });

  test('every point is the run’s own numbers: traffic bytes, median times, and the flop rate the run recorded', () => {
    for (const panel of panels) {
      for (const p of [...panel.points, ...panel.bandwidthOnly]) {
        const c = h100.cases.find((x) => x.key === p.key) as CaseResult;
        expect(p.bytes).toBe(c.traffic[p.variant].bytes);
        expect(p.medianMs).toBe(c.timing?.[p.variant].median);
      }
      for (const p of panel.points) {
        const c = h100.cases.find((x) => x.key === p.key) as CaseResult;
        expect(p.tflops / (c.tflops?.[p.variant] ?? Number.NaN)).toBeCloseTo(1, 9);
      }
    }
  });

  test('files written before flops were recorded: the flops are recovered from the flop rate and the time', () => {
    const gemm = h100.cases.find((c) => c.key === 'gemm/16384x3072x768/fp32') as CaseResult;
    expect(gemm.flops).toBeUndefined();
    expect((flopsOf(gemm) ?? 0) / (2 * 16384 * 3072 * 768)).toBeCloseTo(1, 9);
  });

  test('the fused share agrees with the percentages the run recorded: of copy when memory-bound, of the peak when not', () => {
    for (const c of h100.cases) {
      const s = fusedShare(c, h100.device);
      if (!s) throw new Error(`${c.key} was measured`);
      const recorded = s.ceiling === 'matrix peak' ? c.fusedPctOfMatrixPeak : c.fusedPctOfCopy;
      expect(100 * s.share, c.key).toBeCloseTo(recorded ?? Number.NaN, 6);
    }
    expect(
      fusedShare(h100.cases.find((c) => c.key === 'ffn/16384x768x3072/bf16') as CaseResult, h100.device)?.ceiling,
    ).toBe('matrix peak');
  });

  test('every point is under its ceilings but three the run measured just above them, shown as measured', () => {
    // The ceilings are measurements (the copy kernel's bandwidth, cuBLAS's 8192³ GEMM), not bounds: the 16M
    // GELU streams a hair faster than the copy, and cuBLAS at 16384x768x3072 beats its own 8192³ rate by 1.4%.
    const above = panels.flatMap((p) => [...p.points, ...p.bandwidthOnly].filter((x) => x.share > 1));
    expect(above.map((x) => `${x.key} ${x.variant}`).sort()).toEqual([
      'gelu_scale/16M/fp16 fused',
      'gelu_scale/16M/fp32 fused',
      'gemm/16384x768x3072/fp32 unfused',
    ]);
    for (const x of above) expect(x.share).toBeLessThan(1.02);
  });
});

describe('the roofline chart', () => {
  const panels = rooflinePanels([h100]);
  const bf16 = panels.find((p) => p.dtype === 'bf16') as RooflinePanel;

  test('the spec’s data points are the panel’s points', () => {
    const spec = rooflineSpec(bf16);
    for (const v of ['unfused', 'fused'] as const) {
      const data = layerData(spec, `roofline_${v}`);
      const points = bf16.points.filter((p) => p.variant === v);
      expect(data?.map((d) => [d.key, d.intensity, d.tflops, d.share])).toEqual(
        points.map((p) => [p.key, p.intensity, p.tflops, p.share]),
      );
      expect(layerData(spec, `bandwidth_${v}`)?.map((d) => d.gbs)).toEqual(
        bf16.bandwidthOnly.filter((p) => p.variant === v).map((p) => p.gbs),
      );
    }
    // The roof: the copy bandwidth up to the ridge point, then flat at the bf16 peak.
    const roof = layerData(spec, 'ceiling') ?? [];
    const peak = h100.device.matrixPeakTFlops?.bf16 ?? 0;
    expect(roof).toHaveLength(3);
    expect(roof[1]?.intensity).toBeCloseTo((peak * 1000) / h100.device.copyBandwidthGBs, 9);
    expect(roof.at(-1)?.tflops).toBe(peak);
  });

  test('the SVG draws one symbol per point, the roof, and its labelled ceilings', async () => {
    const svg = await renderSvg(rooflineSpec(bf16));
    expect(svg.startsWith('<svg ')).toBe(true);
    for (const v of ['unfused', 'fused'] as const) {
      expect(markCount(svg, `roofline_${v}`)).toBe(bf16.points.filter((p) => p.variant === v).length);
      expect(markCount(svg, `bandwidth_${v}`)).toBe(bf16.bandwidthOnly.filter((p) => p.variant === v).length);
    }
    expect(markCount(svg, 'ceiling')).toBe(1);
    expect(markGroup(svg, 'bandwidth_label')).toContain('>copy bandwidth 3123 GB/s</text>');
    expect(markGroup(svg, 'peak_label')).toContain('>bf16 matrix peak 790 TFLOP/s</text>');
    expect(svg).toContain('>NVIDIA H100 80GB HBM3, bf16 at cb047cf on 2026-11-25</text>');
  });

  test('is the same SVG every time it is drawn (committed charts diff cleanly)', async () => {
    const fp32 = panels[0] as RooflinePanel;
    expect(await renderSvg(rooflineSpec(fp32))).toBe(await renderSvg(rooflineSpec(fp32)));
  });

  test('a precision without a flop model or a matrix peak draws the bandwidth strip alone', async () => {
    const [panel] = rooflinePanels([h200]);
    if (!panel) throw new Error('the H200 run measured fp32');
    expect(panel.points).toEqual([]);
    const svg = await renderSvg(rooflineSpec(panel));
    expect(markCount(svg, 'roofline_fused')).toBe(0);
    expect(markCount(svg, 'bandwidth_fused')).toBe(h200.cases.length);
    expect(svg).toContain('no fp32 matrix peak was measured');
  });

  test('case names, shapes and device names from a file are drawn as text, never as markup', async () => {
    const evil = hostileResults();
    const withFlops = structuredClone(h100);
    withFlops.device.name = hostile('device');
    for (const c of withFlops.cases) {
      c.title = hostile(`title-${c.case}`);
      c.shape.label = hostile('shape');
      c.key = hostile('key');
    }
    for (const run of [evil, withFlops]) {
      for (const panel of rooflinePanels([run])) {
        const svg = await renderSvg(rooflineSpec(panel));
        expect(svgInjections(svg)).toEqual([]);
        expect(svg).toContain('&lt;img src=x onerror=alert(1)&gt;'); // there, as text
      }
    }
  });
});
