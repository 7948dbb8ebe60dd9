/**
 * The chart files a report writes beside its Markdown, named from data: the roofline of each GPU and
 * precision (`benchmark-charts/roofline-<device-slug>-<precision>.svg`). Names are made of letters,
 * digits, `.`, `_` and `-` only, so no name from a file becomes a path. Rendering only; writing is the
 * caller's (merge, the perf reporter).
 */
import { DTYPES } from '../base/dtype.ts';
import type { ResultsFile } from '../results/results.ts';
import { renderSvg } from './charts/render-svg.ts';
import { type RooflinePanel, rooflinePanels, rooflineSpec } from './charts/roofline.ts';

/** The folder of the report's charts, relative to BENCHMARK_RESULTS.md. */
export const CHARTS_DIR = 'benchmark-charts';

/** A chart file: its path relative to the Markdown file, and its SVG. */
export interface ChartFile {
  path: string;
  svg: string;
}

/** Text as part of a file name: runs of anything but letters, digits, `_` and `-` become one `-`; never empty. */
export function fileSafe(s: string, max = 80): string {
  return (
    s
      .replace(/[^A-Za-z0-9_-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, max) || 'x'
  );
}

/**
 * Each GPU and precision's roofline panel and where its SVG goes, relative to the Markdown file; two
 * devices whose slugs read alike as file names get distinct names (a second one gets `-2`).
 */
export function rooflineCharts(runs: ResultsFile[]): { panel: RooflinePanel; path: string }[] {
  const taken = new Set<string>();
  return rooflinePanels(runs).map((panel) => {
    const base = `${CHARTS_DIR}/roofline-${fileSafe(panel.device.slug)}-${panel.dtype}`;
    let path = `${base}.svg`;
    for (let i = 2; taken.has(path); i++) path = `${base}-${i}.svg`;
    taken.add(path);
    return { panel, path };
  });
}

/**
 * Whether a file name in CHARTS_DIR is one rooflineCharts gives (roofline-<fileSafe slug>-<precision>[-n].svg):
 * a chart a run drew, which a later run into the folder may remove; any other file there is the user's.
 */
export function isRooflineChartName(name: string): boolean {
  return ROOFLINE_NAME.test(name);
}
const ROOFLINE_NAME = new RegExp(`^roofline-[A-Za-z0-9_-]+-(${DTYPES.join('|')})(-\\d+)?\\.svg$`);

/** The roofline SVG of every GPU and precision of the runs. */
export async function renderRooflineFiles(runs: ResultsFile[]): Promise<ChartFile[]> {
  const files: ChartFile[] = [];
  for (const { panel, path } of rooflineCharts(runs)) files.push({ path, svg: await renderSvg(rooflineSpec(panel)) });
  return files;
}
