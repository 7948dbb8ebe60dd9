/**
 * The roofline model of a run, as numbers: per GPU and precision, each measured case's fused and unfused
 * variants placed by arithmetic intensity (the case's useful flops over the bytes its traffic model says
 * that variant moves) and achieved throughput (flops over the median time of one call), under the GPU's
 * measured ceilings: the copy bandwidth, and the matrix peak in that precision where it was measured. A
 * point's share of its ceiling is achieved / min(bandwidth × intensity, peak), never clamped: a kernel
 * above its ceiling is shown above it (the ceilings are measurements, not bounds, and a traffic model
 * can count bytes the caches save). Cases without a flop model cannot be placed by intensity; their
 * variants are kept as bandwidth points, achieved GB/s against the copy ceiling. Pure.
 */

import type { Field, PositionDef, ShapeDef } from 'vega-lite/types_unstable/channeldef.js';
import type { LayerSpec } from 'vega-lite/types_unstable/spec/index.js';
import { DTYPES, type Dtype } from '../../base/dtype.ts';
import { asMeasured } from '../../results/judged-timing.ts';
import type { CaseResult, MeasuredCase, ResultsFile } from '../../results/results.ts';
import { plain } from '../escape.ts';
import { CHART_CONFIG, type VegaLiteSpec } from './render-svg.ts';

/** The two variants of a comparison. */
type Variant = 'unfused' | 'fused';
const VARIANTS: readonly Variant[] = ['unfused', 'fused'];

/** Which ceiling bounds a kernel at its intensity. */
export type CeilingKind = 'bandwidth' | 'matrix peak';

/** One variant of one case and shape, placed on the roofline. */
interface RooflinePoint {
  /** `<case>/<shape>/<dtype>`, as results and baselines key it. */
  key: string;
  case: string;
  title: string;
  shape: string;
  variant: Variant;
  /** Useful flops of one call (the case's flop model; the same for both variants). */
  flops: number;
  /** Bytes of one call by the variant's traffic model. */
  bytes: number;
  /** Median device time of one call (cache flushed before each), ms. */
  medianMs: number;
  /** flops / bytes. */
  intensity: number;
  /** flops / median time, TFLOP/s. */
  tflops: number;
  /** min(bandwidth × intensity, peak), TFLOP/s. */
  ceilingTFlops: number;
  ceiling: CeilingKind;
  /** tflops / ceilingTFlops: above 1 when the kernel beat the measured ceiling (not clamped). */
  share: number;
}

/** One variant of a case without a flop model: achieved bandwidth against the copy ceiling. */
interface BandwidthPoint {
  key: string;
  case: string;
  title: string;
  shape: string;
  variant: Variant;
  bytes: number;
  medianMs: number;
  /** bytes / median time, GB/s. */
  gbs: number;
  /** gbs / copy bandwidth (not clamped). */
  share: number;
}

/** The roofline of one GPU in one precision. */
export interface RooflinePanel {
  device: { name: string; slug: string };
  dtype: Dtype;
  /** The commit measured, when the results record it. */
  commit?: string;
  /** When the run was made (ISO 8601). */
  date: string;
  /** Measured copy bandwidth, GB/s (bytes read + written). */
  copyBandwidthGBs: number;
  /** Measured matrix peak in this precision, TFLOP/s; absent when not measured (no cuBLAS, the CPU). */
  matrixPeakTFlops?: number;
  /** Variants of cases with a flop model. */
  points: RooflinePoint[];
  /** Variants of cases without one. */
  bandwidthOnly: BandwidthPoint[];
  /** Measured shapes left out, with why (a file's zero or non-finite bytes, time or flops). */
  excluded: { key: string; why: string }[];
}

const positive = (v: number | undefined): v is number => v !== undefined && Number.isFinite(v) && v > 0;

/** The ceiling at `intensity` (flop/byte): bandwidth × intensity, or the peak where that is lower, TFLOP/s. */
export function rooflineCeiling(
  intensity: number,
  copyBandwidthGBs: number,
  matrixPeakTFlops?: number,
): { tflops: number; ceiling: CeilingKind } {
  const memory = (copyBandwidthGBs * intensity) / 1000;
  return matrixPeakTFlops !== undefined && matrixPeakTFlops < memory
    ? { tflops: matrixPeakTFlops, ceiling: 'matrix peak' }
    : { tflops: memory, ceiling: 'bandwidth' };
}

/**
 * A measured case's useful flops of one call: recorded by the run (`flops`), or in files written before
 * it was, recovered from the fused TFLOP/s and its median time; undefined for cases without a flop model.
 */
export function flopsOf(c: CaseResult): number | undefined {
  if (c.flops !== undefined) return c.flops;
  if (!c.tflops || !c.timing) return undefined;
  return c.tflops.fused * 1e12 * (c.timing.fused.median / 1e3);
}

/** Why a variant cannot be placed, or undefined when it can. */
function unplaceable(bytes: number, medianMs: number, flops: number | undefined): string | undefined {
  if (!positive(bytes)) return `its traffic model gives ${bytes} bytes`;
  if (!positive(medianMs)) return `its median time is ${medianMs} ms`;
  if (flops !== undefined && !positive(flops)) return `its flop model gives ${flops} flops`;
  return undefined;
}

function placed(c: MeasuredCase, v: Variant, device: ResultsFile['device']): RooflinePoint | BandwidthPoint {
  const bytes = c.traffic[v].bytes;
  const medianMs = c.timing[v].median;
  const seconds = medianMs / 1e3;
  const base = { key: c.key, case: c.case, title: c.title, shape: c.shape.label, variant: v, bytes, medianMs };
  const flops = flopsOf(c);
  if (flops === undefined) {
    const gbs = bytes / seconds / 1e9;
    return { ...base, gbs, share: gbs / device.copyBandwidthGBs };
  }
  const intensity = flops / bytes;
  const tflops = flops / seconds / 1e12;
  const roof = rooflineCeiling(intensity, device.copyBandwidthGBs, device.matrixPeakTFlops?.[c.dtype]);
  return {
    ...base,
    flops,
    intensity,
    tflops,
    ceilingTFlops: roof.tflops,
    ceiling: roof.ceiling,
    share: tflops / roof.tflops,
  };
}

/** The roofline of one run in one precision; undefined when nothing of that precision was measured. */
function panelOf(run: ResultsFile, dtype: Dtype): RooflinePanel | undefined {
  const measured = run.cases
    .filter((c) => c.dtype === dtype)
    .map(asMeasured)
    .filter((c) => c !== undefined);
  if (measured.length === 0) return undefined;
  const points: RooflinePoint[] = [];
  const bandwidthOnly: BandwidthPoint[] = [];
  const excluded: RooflinePanel['excluded'] = [];
  for (const c of measured) {
    const why = VARIANTS.map((v) => unplaceable(c.traffic[v].bytes, c.timing[v].median, flopsOf(c))).find(Boolean);
    if (why) {
      excluded.push({ key: c.key, why });
      continue;
    }
    const both = VARIANTS.map((v) => placed(c, v, run.device));
    // Each number in range can still give none in the chart (a flop count of 5e-324: an intensity that
    // underflows, a share of NaN): such a case is left out, named, as one the models cannot place.
    const bad = both.find(
      (p) => !positive(p.share) || Object.values(p).some((x) => typeof x === 'number' && !Number.isFinite(x)),
    );
    if (bad) {
      excluded.push({
        key: c.key,
        why: `its numbers give no point in the chart (a share of the ceiling of ${bad.share})`,
      });
      continue;
    }
    for (const p of both) {
      if ('intensity' in p) points.push(p);
      else bandwidthOnly.push(p);
    }
  }
  const peak = run.device.matrixPeakTFlops?.[dtype];
  return {
    device: { name: run.device.name, slug: run.device.slug },
    dtype,
    ...(run.source?.commit ? { commit: run.source.commit } : {}),
    date: run.createdAt,
    copyBandwidthGBs: run.device.copyBandwidthGBs,
    ...(positive(peak) ? { matrixPeakTFlops: peak } : {}),
    points,
    bandwidthOnly,
    excluded,
  };
}

/** One panel per GPU and precision with a measured shape, GPUs in the given order, precisions in DTYPES order. */
export function rooflinePanels(runs: ResultsFile[]): RooflinePanel[] {
  return runs.flatMap((run) => DTYPES.map((t) => panelOf(run, t)).filter((p) => p !== undefined));
}

/** The fused kernel's place under its ceiling, as the report's table quotes it. */
export interface FusedShare {
  share: number;
  /** The ceiling that bounds it; `copy` for a case without a flop model (achieved bandwidth over copy). */
  ceiling: CeilingKind | 'copy';
}

/** The fused kernel's share of its roofline ceiling; undefined when not measured or not placeable. */
export function fusedShare(c: CaseResult, device: ResultsFile['device']): FusedShare | undefined {
  const m = asMeasured(c);
  if (!m) return undefined;
  const flops = flopsOf(m);
  if (unplaceable(m.traffic.fused.bytes, m.timing.fused.median, flops)) return undefined;
  const p = placed(m, 'fused', device);
  if (!Number.isFinite(p.share)) return undefined;
  return { share: p.share, ceiling: 'intensity' in p ? p.ceiling : 'copy' };
}

/** Drawing size of the roofline plot, px. */
const WIDTH = 620;
const HEIGHT = 400;
/** Axis bounds stay within 10^±30: a file's absurd value cannot make a zero or infinite log domain. */
const MAX_DECADE = 30;

/** The nearest 1, 2 or 5 × 10^k at or below `v` (`up`: at or above), within 10^±MAX_DECADE. */
function niceLog(v: number, up: boolean): number {
  const k = Math.min(MAX_DECADE, Math.max(-MAX_DECADE, Math.floor(Math.log10(v))));
  const steps = [1, 2, 5, 10].map((m) => m * 10 ** k);
  return (up ? steps.find((t) => t >= v) : steps.findLast((t) => t <= v)) ?? (up ? 10 ** (k + 1) : 10 ** k);
}

/** "3123 GB/s", "790 TFLOP/s", "0.42": short numbers for labels. */
const short = (v: number) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : Number(v.toPrecision(2)).toString());

/** "nvidia-h200 bf16 at 1a2b3c4 on 2026-11-25", for titles. */
function runLabel(panel: RooflinePanel): string {
  const at = panel.commit ? ` at ${panel.commit.slice(0, 12)}` : '';
  return `${panel.dtype}${at} on ${panel.date.slice(0, 10)}`;
}

/** Text a chart takes from a file: one line, cut (the renderer escapes it). */
const label = (s: string, max = 60) => plain(s, max);

/** Colour by case (one scale for the whole chart), shape by variant. */
const caseColor = {
  field: 'case',
  type: 'nominal',
  title: 'case',
  sort: null,
  scale: { scheme: 'tableau20' },
} as const;
const variantShape: ShapeDef<Field> = {
  field: 'variant',
  type: 'nominal',
  title: 'variant',
  scale: { domain: [...VARIANTS], range: ['square', 'circle'] },
};

/**
 * The points of both variants, one layer each (`<name>_unfused`, `<name>_fused`): the unfused twin a hollow
 * square, the fused kernel a filled circle, both in their case's colour; one symbol per datum.
 */
function variantLayers(
  name: string,
  values: { variant: Variant }[],
  x: PositionDef<Field>,
  y: PositionDef<Field>,
  tooltip: { field: string; title?: string; format?: string }[],
): LayerSpec<Field>['layer'] {
  return VARIANTS.map((v) => ({
    name: `${name}_${v}`,
    data: { values: values.filter((d) => d.variant === v) },
    mark: { type: 'point' as const, size: 70, strokeWidth: 1.5, opacity: 1, filled: v === 'fused' },
    encoding: { x, y, color: caseColor, shape: variantShape, tooltip },
  }));
}

/** The roofline plot of the placed points: ceilings, the move from unfused to fused, the points, labels. */
function rooflineLayer(panel: RooflinePanel): LayerSpec<Field> {
  const bw = panel.copyBandwidthGBs;
  const peak = panel.matrixPeakTFlops;
  const ridge = peak !== undefined ? (peak * 1000) / bw : undefined;
  const xs = panel.points.map((p) => p.intensity);
  const xLo = niceLog(Math.min(...xs) / 1.2, false);
  let xHi = niceLog(Math.max(...xs, ...(ridge !== undefined ? [ridge * 1.5] : [])) * 1.2, true);
  if (xHi <= xLo) xHi = xLo * 10;
  const roofAt = (i: number) => rooflineCeiling(i, bw, peak).tflops;
  const ys = panel.points.map((p) => p.tflops);
  const yLo = niceLog(Math.min(...ys, roofAt(xLo)) / 1.2, false);
  let yHi = niceLog(Math.max(...ys, roofAt(xHi)) * 1.15, true);
  if (yHi <= yLo) yHi = yLo * 10;
  const ceilingLine = [xLo, ...(ridge !== undefined && ridge > xLo && ridge < xHi ? [ridge] : []), xHi].map((i) => ({
    intensity: i,
    tflops: roofAt(i),
  }));
  // The bandwidth ceiling's label runs along its slope: one decade of intensity is one of throughput.
  const dx = WIDTH / Math.log10(xHi / xLo);
  const dy = HEIGHT / Math.log10(yHi / yLo);
  const angle = (-Math.atan2(dy, dx) * 180) / Math.PI;
  const at = xLo * (xHi / xLo) ** 0.04;
  const x: PositionDef<Field> = {
    field: 'intensity',
    type: 'quantitative',
    title: 'arithmetic intensity (flop/byte): useful flops / bytes of the traffic model',
    scale: { type: 'log', domain: [xLo, xHi], nice: false },
    axis: { format: '~g', grid: true },
  };
  const y: PositionDef<Field> = {
    field: 'tflops',
    type: 'quantitative',
    title: 'achieved TFLOP/s: flops / median time of one call',
    scale: { type: 'log', domain: [yLo, yHi], nice: false },
    axis: { format: '~g', grid: true },
  };
  const points = panel.points.map((p) => ({
    key: p.key,
    case: label(p.title),
    shape: label(p.shape, 40),
    variant: p.variant,
    intensity: p.intensity,
    tflops: p.tflops,
    share: p.share,
    ceiling: p.ceiling,
    ms: p.medianMs,
  }));
  const tooltip = [
    { field: 'case', title: 'case' },
    { field: 'shape', title: 'shape' },
    { field: 'variant', title: 'variant' },
    { field: 'intensity', title: 'flop/byte', format: '.3~g' },
    { field: 'tflops', title: 'TFLOP/s', format: '.3~g' },
    { field: 'share', title: 'share of ceiling', format: '.0%' },
    { field: 'ceiling', title: 'bound by' },
    { field: 'ms', title: 'median ms', format: '.4~g' },
  ];
  return {
    width: WIDTH,
    height: HEIGHT,
    layer: [
      {
        name: 'ceiling',
        data: { values: ceilingLine },
        mark: { type: 'line', color: '#24292f', strokeWidth: 2 },
        encoding: { x, y },
      },
      {
        name: 'bandwidth_label',
        data: { values: [{ intensity: at, tflops: roofAt(at), text: `copy bandwidth ${short(bw)} GB/s` }] },
        mark: { type: 'text', align: 'left', baseline: 'bottom', dy: -4, angle, fontSize: 11, color: '#24292f' },
        encoding: { x, y, text: { field: 'text' } },
      },
      ...(peak !== undefined
        ? [
            {
              name: 'peak_label',
              data: {
                values: [{ intensity: xHi, tflops: peak, text: `${panel.dtype} matrix peak ${short(peak)} TFLOP/s` }],
              },
              mark: {
                type: 'text' as const,
                align: 'right' as const,
                baseline: 'bottom' as const,
                dy: -4,
                fontSize: 11,
                color: '#24292f',
              },
              encoding: { x, y, text: { field: 'text' } },
            },
          ]
        : []),
      {
        name: 'fusion',
        data: { values: points },
        mark: { type: 'line', color: '#8c959f', strokeWidth: 1, strokeDash: [3, 2] },
        encoding: { x, y, detail: { field: 'key' }, order: { field: 'variant', sort: 'descending' } },
      },
      ...variantLayers('roofline', points, x, y, tooltip),
    ],
  };
}

/** Cases without a flop model: achieved bandwidth of both variants against the copy ceiling, a row per shape. */
function bandwidthLayer(panel: RooflinePanel): LayerSpec<Field> {
  const bw = panel.copyBandwidthGBs;
  const rows = panel.bandwidthOnly.map((p) => ({
    key: p.key,
    row: `${label(p.title)} · ${label(p.shape, 40)}`,
    case: label(p.title),
    shape: label(p.shape, 40),
    variant: p.variant,
    gbs: p.gbs,
    share: p.share,
    ms: p.medianMs,
  }));
  const top = Math.max(bw, ...rows.map((r) => r.gbs)) * 1.08;
  const x: PositionDef<Field> = {
    field: 'gbs',
    type: 'quantitative',
    title: 'achieved GB/s: bytes of the traffic model / median time of one call',
    scale: { domain: [0, top], nice: false },
  };
  const y: PositionDef<Field> = { field: 'row', type: 'nominal', title: null, sort: null, axis: { labelLimit: 420 } };
  return {
    width: WIDTH,
    height: { step: 16 },
    layer: [
      {
        name: 'copy_ceiling',
        data: { values: [{ gbs: bw }] },
        mark: { type: 'rule', color: '#24292f', strokeWidth: 2 },
        encoding: { x },
      },
      {
        name: 'copy_label',
        data: { values: [{ gbs: bw, text: `copy bandwidth ${short(bw)} GB/s` }] },
        mark: { type: 'text', align: 'right', baseline: 'top', dx: -4, dy: 2, fontSize: 11, color: '#24292f' },
        encoding: { x, y: { value: 0 }, text: { field: 'text' } },
      },
      ...variantLayers('bandwidth', rows, x, y, [
        { field: 'case' },
        { field: 'shape' },
        { field: 'variant' },
        { field: 'gbs', title: 'GB/s', format: '.4~g' },
        { field: 'share', title: 'share of copy', format: '.0%' },
        { field: 'ms', title: 'median ms', format: '.4~g' },
      ]),
    ],
  };
}

/**
 * The roofline chart of one GPU and precision: the roofline of the cases with a flop model and, below it,
 * the achieved bandwidth of those without one (a precision with only one kind draws only that part).
 */
export function rooflineSpec(panel: RooflinePanel): VegaLiteSpec {
  const parts: LayerSpec<Field>[] = [];
  if (panel.points.length > 0)
    parts.push({ title: { text: 'Roofline: cases with a flop model', fontSize: 12 }, ...rooflineLayer(panel) });
  if (panel.bandwidthOnly.length > 0) {
    const what =
      panel.points.length > 0 ? 'Cases without a flop model (not on the roofline)' : 'Cases without a flop model';
    parts.push({
      title: { text: `${what}: achieved bandwidth against the copy ceiling`, fontSize: 12 },
      ...bandwidthLayer(panel),
    });
  }
  const ceilings =
    panel.matrixPeakTFlops === undefined
      ? `Ceiling: the measured copy bandwidth (no ${panel.dtype} matrix peak was measured).`
      : `Ceilings: the measured copy bandwidth and ${panel.dtype} matrix peak (cuBLAS).`;
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: `${label(panel.device.name)}, ${runLabel(panel)}`,
      subtitle: [
        `Filled circle: the fused kernel; hollow square: its unfused twin${panel.points.length > 0 ? '; dashed: the move fusion makes' : ''}.`,
        ceilings,
        ...panel.excluded.slice(0, 3).map((e) => `Not placed: ${label(e.key, 80)} (${label(e.why, 80)}).`),
      ],
    },
    config: CHART_CONFIG,
    vconcat:
      parts.length > 0
        ? parts
        : [{ mark: 'text', data: { values: [{ t: 'nothing was measured' }] }, encoding: { text: { field: 't' } } }],
    resolve: { scale: { color: 'shared', shape: 'shared' } },
  };
}
