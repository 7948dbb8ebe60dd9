/**
 * Vega-Lite specs to SVG, headless in Node: compiled to Vega and drawn by Vega's string renderer (no
 * browser, no canvas). The output is a function of the spec: no timestamps, no random ids, and text
 * from data is escaped by the renderer (`&`, `<`, `>`, quotes), so a committed SVG diffs cleanly and a
 * case name from a file stays text.
 */
import * as vega from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';

/** A Vega-Lite specification, as the chart modules build them. */
export type VegaLiteSpec = TopLevelSpec;

/** The look every chart shares (the dashboard embeds the same specs). */
export const CHART_CONFIG = {
  font: 'Helvetica, Arial, sans-serif',
  background: '#ffffff',
  title: { fontSize: 14, anchor: 'start', subtitleFontSize: 11, subtitleColor: '#57606a' },
  axis: { labelFontSize: 10, titleFontSize: 11, titleFontWeight: 'normal', gridColor: '#e6e8eb' },
  legend: { labelFontSize: 10, titleFontSize: 11, labelLimit: 400 },
  view: { stroke: '#d0d7de' },
} as const;

/** The SVG document of a spec. Vega's own warnings are left out; an error in the spec throws. */
export async function renderSvg(spec: VegaLiteSpec): Promise<string> {
  const compiled = compile(spec, { logger: vega.logger(vega.Error) }).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: 'none', logLevel: vega.Error });
  try {
    return `${await view.toSVG()}\n`;
  } finally {
    view.finalize();
  }
}
