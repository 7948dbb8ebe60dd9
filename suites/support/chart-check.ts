// Test helpers for the Vega-Lite charts: a named layer's data in a spec, and a named layer's marks in the SVG
// Vega draws from it (each mark group carries the class `<layer name>_marks`; mark groups hold no groups).
import type { VegaLiteSpec } from '../../src/report/charts/render-svg.ts';

type Layer = { name?: string; data?: { values?: Record<string, unknown>[] }; layer?: Layer[]; vconcat?: Layer[] };

/** The inline data of the layer called `name`, anywhere in the spec (undefined when there is no such layer). */
export function layerData(spec: VegaLiteSpec, name: string): Record<string, unknown>[] | undefined {
  const walk = (s: Layer): Layer | undefined =>
    s.name === name ? s : [...(s.vconcat ?? []), ...(s.layer ?? [])].map(walk).find((x) => x !== undefined);
  return walk(spec as Layer)?.data?.values;
}

/** The SVG of the mark group of layer `name` (empty when the layer drew nothing or is absent). */
export function markGroup(svg: string, name: string): string {
  const start = svg.search(new RegExp(`<g class="mark-[a-z]+ role-mark ${name}_marks"`));
  if (start < 0) return '';
  const end = svg.indexOf('</g>', start);
  return svg.slice(start, end);
}

/** How many items (symbols, texts, paths) the mark group of layer `name` drew. */
export function markCount(svg: string, name: string): number {
  const group = markGroup(svg, name);
  return (group.match(/<(path|text|line|rect)\b/g) ?? []).length;
}

/** The links (xlink:href) the mark group of layer `name` carries, in order. */
export function markLinks(svg: string, name: string): string[] {
  return [...markGroup(svg, name).matchAll(/xlink:href="([^"]*)"/g)].map((m) => m[1] ?? '');
}

/**
 * Raw markup a string from a file could inject into an SVG document: tags it never holds, and links that
 * are not http(s). Text from files is there escaped (`&lt;img …`), which is text, not markup.
 */
export function svgInjections(svg: string): string[] {
  const tags = ['<img', '<script', '<details', '<summary', '<!--', '<foreignobject', '<iframe', '<style'].filter((t) =>
    svg.toLowerCase().includes(t),
  );
  const links = [...svg.matchAll(/href="([^"]*)"/g)].map((m) => m[1] ?? '').filter((h) => !/^https?:\/\//.test(h));
  return [...tags, ...links.map((h) => `a link to ${h}`)];
}
