/**
 * The dashboard: one self-contained HTML file. Per GPU, the latest run's table, the roofline per precision
 * and each case's history over commits; every file or line that was left out is named at the top. Vega's
 * runtime and the compiled chart specs are inlined, so the page needs no server and no network; its
 * Content-Security-Policy lets it load nothing and run only its own two scripts (by hash). Every string
 * from a file goes through `html` (escaped) or `scriptJson` (JSON made safe inside <script>).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isPlainSlug } from '../base/device-slug.ts';
import { shortCommit } from '../history/history-series.ts';
import type { ResultsFile } from '../results/results.ts';
import { type Html, html, name, safeUrl, scriptJson } from './html.ts';
import { resultsTable } from './results-table.ts';
import type { SiteDevice, SiteInput } from './site-input.ts';
import { toVega, type VegaSpec, vegaRuntime } from './vega-runtime.ts';

/** A chart on the page: its title (the figure's accessible name; the chart draws its own) and its Vega-Lite spec. */
interface SiteChart {
  title: string;
  spec: Parameters<typeof toVega>[0];
  /** What the chart shows, as its figure's data attributes: a history series' key, a roofline's precision. */
  data: { key?: string; dtype?: string };
}

/** The charts of one GPU: a roofline per precision, and each case's history charts (a chart per series). */
export interface DeviceCharts {
  roofline: SiteChart[];
  history: { title: string; charts: SiteChart[] }[];
}

/** What the page says about where it came from, and where commits link to. */
export interface PageOptions {
  /** The history folder, as given (named when it is empty). */
  historyDir: string;
  /** https://github.com/<owner>/<repo>: commits link to <repo>/commit/<id>; none, no links. */
  repoUrl?: string;
}

const STYLE = readFileSync(new URL('site.css', import.meta.url), 'utf8');
const RENDER_CHARTS = readFileSync(new URL('render-charts.js', import.meta.url), 'utf8');

const sha256 = (s: string) => `'sha256-${createHash('sha256').update(s, 'utf8').digest('base64')}'`;

/** Gives each chart its element id and collects its compiled spec for the page's JSON. */
class ChartSlots {
  readonly specs: { id: string; spec: VegaSpec }[] = [];
  figure(chart: SiteChart, kind: 'roofline' | 'history'): Html {
    const id = `chart-${this.specs.length + 1}`;
    let spec: VegaSpec;
    try {
      spec = toVega(chart.spec);
    } catch (e) {
      throw new Error(`${chart.title}: ${(e as Error).message}`);
    }
    this.specs.push({ id, spec });
    const attrs = [
      chart.data.key !== undefined ? html` data-key="${chart.data.key}"` : '',
      chart.data.dtype !== undefined ? html` data-dtype="${chart.data.dtype}"` : '',
    ];
    // The chart draws its own title; the figure names it for screen readers.
    return html`<figure class="chart ${kind}" aria-label="${name(chart.title)}"${attrs}><div class="vega" id="${id}"></div></figure>`;
  }
}

/** A commit id, linked to the repository's page of it when the repository is known. */
function commitLink(commit: string, repoUrl: string | undefined): Html {
  const base = safeUrl(repoUrl);
  const sha = commit.replace(/\+dirty$/, '');
  if (!base || !/^[0-9a-f]{7,64}$/i.test(sha)) return html`<code>${shortCommit(commit)}</code>`;
  return html`<a href="${`${base.replace(/\/$/, '')}/commit/${sha}`}"><code>${shortCommit(commit)}</code></a>`;
}

function latestRun(run: ResultsFile | undefined, options: PageOptions): Html {
  if (!run) return html`<p class="empty">No results file of this GPU was given: no latest run to show.</p>`;
  const source = run.source
    ? html`commit ${commitLink(run.source.commit, options.repoUrl)}${run.source.branch ? html` on <code>${name(run.source.branch)}</code>` : ''}, `
    : '';
  return html`<p class="meta">${source}measured ${run.createdAt.slice(0, 16).replace('T', ' ')} UTC, ${run.cases.length} case shape${run.cases.length === 1 ? '' : 's'}.</p>
${resultsTable(run)}`;
}

function historyPart(device: SiteDevice, id: string, charts: DeviceCharts, slots: ChartSlots): Html {
  if (device.history.length === 0)
    return html`<p class="empty">No history of this GPU yet: its history file has no run.</p>`;
  if (charts.history.length === 0)
    return html`<p class="empty">This GPU's history has ${device.history.length} run${device.history.length === 1 ? '' : 's'} but no measured point to chart.</p>`;
  // An index first: a GPU with every case in three precisions has some forty groups of charts.
  const index = charts.history.map((group, i) => html`<a href="#${id}-history-${i + 1}">${name(group.title)}</a>`);
  return html`<p class="index">${index}</p>
${charts.history.map(
  (group, i) => html`<section class="case" id="${id}-history-${i + 1}"><h4>${name(group.title)}</h4>
<div class="charts">${group.charts.map((c) => slots.figure(c, 'history'))}</div></section>`,
)}`;
}

/** A GPU section's element id: `gpu-<device slug>` (a plain slug; any other gets its position instead). */
const sectionId = (d: SiteDevice, index: number) => `gpu-${isPlainSlug(d.slug) ? d.slug : index + 1}`;

function deviceSection(
  device: SiteDevice,
  index: number,
  charts: DeviceCharts,
  options: PageOptions,
  slots: ChartSlots,
): Html {
  const roofline =
    charts.roofline.length > 0
      ? html`<div class="charts">${charts.roofline.map((c) => slots.figure(c, 'roofline'))}</div>`
      : html`<p class="empty">No roofline: ${device.latest ? 'no measured case in the latest run.' : 'no latest run of this GPU.'}</p>`;
  const id = sectionId(device, index);
  return html`<section class="gpu" id="${id}">
<h2>${name(device.name)}</h2>
<h3>Latest run</h3>
${latestRun(device.latest, options)}
<h3>Roofline</h3>
${roofline}
<h3>History</h3>
${historyPart(device, id, charts, slots)}
</section>`;
}

function problemsPart(problems: string[]): Html | string {
  if (problems.length === 0) return '';
  return html`<section class="problems" id="problems" role="alert">
<h2>Left out: ${problems.length === 1 ? 'a file or line' : `${problems.length} files or lines`}</h2>
<p>Everything else is shown. Each is named, with why:</p>
<ul>${problems.map((p) => html`<li><code>${p}</code></li>`)}</ul>
</section>`;
}

function emptyHistoryPart(input: SiteInput, options: PageOptions): Html | string {
  if (input.devices.some((d) => d.history.length > 0)) return '';
  const why =
    input.historyFiles.length === 0
      ? html`<code>${options.historyDir}</code> holds no history file (<code>&lt;device-slug&gt;.jsonl</code>)`
      : html`its ${input.historyFiles.length} history file${input.historyFiles.length === 1 ? '' : 's'} hold${input.historyFiles.length === 1 ? 's' : ''} no readable run`;
  return html`<p class="empty" id="empty-history"><strong>The history is empty:</strong> ${why}. Each push to the default branch appends its GPU runs to it (perf.yml's history job); the charts over commits appear from the first run on.</p>`;
}

/** The dashboard's HTML: `charts` gives each device's charts (by device slug). */
export function renderSitePage(
  input: SiteInput,
  charts: (device: SiteDevice) => DeviceCharts,
  options: PageOptions,
): string {
  const slots = new ChartSlots();
  const sections = input.devices.map((d, i) => deviceSection(d, i, charts(d), options, slots));
  const nav =
    input.devices.length > 1
      ? html`<nav>${input.devices.map((d, i) => html`<a href="#${sectionId(d, i)}">${name(d.name)}</a>`)}</nav>`
      : '';
  const body = html`<header>
<h1>fusebench</h1>
<p>Fused GPU kernels against their unfused twins: each GPU's latest run, where each kernel sits under its roofline, and the speedup and fused time over commits.</p>
${nav}
</header>
${problemsPart([...input.fileProblems, ...input.historyProblems])}
${emptyHistoryPart(input, options)}
<main>
${input.devices.length > 0 ? sections : html`<p class="empty">No GPU to show: no history file holds a run and no results file was given.</p>`}
</main>`;
  const runtime = vegaRuntime();
  const csp = [
    "default-src 'none'",
    // Vega compiles its expressions with Function(): 'unsafe-eval'; no other script than these two runs.
    `script-src ${sha256(runtime)} ${sha256(RENDER_CHARTS)} 'unsafe-eval'`,
    "style-src 'unsafe-inline'",
  ].join('; ');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<title>fusebench dashboard</title>
<style>
${STYLE}</style>
</head>
<body>
${body}
<script type="application/json" id="fusebench-charts">${scriptJson(slots.specs)}</script>
<script>${runtime}</script>
<script>${RENDER_CHARTS}</script>
</body>
</html>
`;
}
