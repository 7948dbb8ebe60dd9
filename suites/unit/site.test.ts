// The dashboard's page as HTML text, without a browser (suites/e2e/site.test.ts loads it in Chromium): what it
// reads and leaves out, what it says about an empty history, and that no string from a file becomes markup.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { historyRecord } from '../../src/history/history-record.ts';
import { readResults } from '../../src/results/results.ts';
import { resultsTable } from '../../src/site/results-table.ts';
import { deviceCharts } from '../../src/site/site-charts.ts';
import { loadSiteInput } from '../../src/site/site-input.ts';
import { renderSitePage } from '../../src/site/site-page.ts';
import { hostileResults } from '../support/hostile-results.ts';

const fixtures = join(import.meta.dirname, '..', 'fixtures');
const historyDir = join(fixtures, 'site', 'history');
const h100 = join(fixtures, 'h100-results-cb047cf.json');
const h200 = join(fixtures, 'h200-mixed-verdicts.json');
const tmp = () => mkdtempSync(join(tmpdir(), 'fusebench-site-unit-'));

/** The page without the contents of its three <script> elements (the charts' JSON, Vega, the renderer). */
function markupOf(page: string): string {
  const scripts = [...page.matchAll(/<script[^>]*>/g)];
  expect(scripts).toHaveLength(3);
  return page.replace(/(<script[^>]*>)[\s\S]*?<\/script>/g, '$1</script>');
}

/** The elements the page is made of. */
const OUR_TAGS = [
  ...['html', 'head', 'meta', 'title', 'style', 'body', 'header', 'h1', 'p', 'nav', 'a', 'main', 'section', 'h2'],
  ...['h3', 'h4', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'span', 'code', 'div', 'figure', 'ul', 'li', 'script'],
];

const render = (input: ReturnType<typeof loadSiteInput>) =>
  renderSitePage(input, (d) => deviceCharts(d, {}), { historyDir: 'history' });

describe('the dashboard’s inputs', () => {
  test('reads every history file and results file, a device per slug, and names the line that failed its schema', () => {
    const input = loadSiteInput({ historyDir, resultsFiles: [h100, h200] });
    expect(input.devices.map((d) => [d.slug, d.history.length, d.latest?.device.slug])).toEqual([
      ['nvidia-h100-80gb-hbm3', 7, 'nvidia-h100-80gb-hbm3'],
      ['nvidia-h200', 4, 'nvidia-h200'],
    ]);
    expect(input.historyProblems).toEqual([
      expect.stringMatching(
        /nvidia-h200\.jsonl:3: not a history record \(cases\.bias_gelu\/16384x3072\/fp32\.speedup\[0\]/,
      ),
    ]);
    expect(input.fileProblems).toEqual([]);
  });

  test('a results file that fails its schema and a broken baseline file are named and left out', () => {
    const dir = tmp();
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, JSON.stringify({ ...readResults(h200), device: null }));
    const baselines = join(dir, 'baselines');
    mkdirSync(baselines);
    writeFileSync(join(baselines, 'nvidia-h100-80gb-hbm3.json'), '{"schemaVersion": 1, "device": 3');
    const input = loadSiteInput({ historyDir, resultsFiles: [h100, broken, h200], baselinesDir: baselines });
    expect(input.fileProblems).toEqual([
      expect.stringContaining(`${broken} could not be read: is not valid:\n  device:`),
      expect.stringMatching(
        /nvidia-h100-80gb-hbm3\.json is not valid JSON.*\n\(the history charts of NVIDIA H100 80GB HBM3 have no baseline band\)/,
      ),
    ]);
    expect(input.devices.map((d) => d.latest?.device.slug)).toEqual(['nvidia-h100-80gb-hbm3', 'nvidia-h200']);
    expect(input.devices.map((d) => d.baselines?.file)).toEqual([undefined, undefined]);
  });

  test('of two results files of one GPU, the older is left out with why, as merge leaves it out', () => {
    const older = join(tmp(), 'older-h200.json');
    writeFileSync(older, JSON.stringify({ ...readResults(h200), createdAt: '2026-11-20T00:00:00.000Z' }));
    const input = loadSiteInput({ historyDir, resultsFiles: [h200, older] });
    // The H100 is there by its history alone; the H200 by one of its two runs.
    expect(input.devices.map((d) => d.latest?.device.slug)).toEqual([undefined, 'nvidia-h200']);
    expect(input.fileProblems).toEqual([
      `${older} is another run of NVIDIA H200 (made 2026-11-20T00:00:00.000Z), not newer than ${h200}: one run a GPU is kept`,
    ]);
  });

  test('the baselines of each device are read from --baselines for the SAME band', () => {
    const input = loadSiteInput({
      historyDir,
      resultsFiles: [],
      baselinesDir: join(fixtures, '..', '..', 'baselines'),
    });
    expect(input.devices.map((d) => Object.keys(d.baselines?.data.entries ?? {}).length > 0)).toEqual([true, true]);
  });

  test('a history folder that does not exist, or a file given for it, is an error naming it', () => {
    expect(() => loadSiteInput({ historyDir: join(tmp(), 'nope'), resultsFiles: [] })).toThrow(
      /nope: no such history folder/,
    );
    expect(() => loadSiteInput({ historyDir: h100, resultsFiles: [] })).toThrow(/is not a folder/);
  });
});

describe('the dashboard’s page', () => {
  test('an empty history says so, with no history chart; the latest run still has its table and roofline', () => {
    const page = render(loadSiteInput({ historyDir: tmp(), resultsFiles: [h100] }));
    expect(page).toContain('<strong>The history is empty:</strong> <code>history</code> holds no history file');
    expect(page).not.toContain('figure class="chart history"');
    expect(page).toContain('figure class="chart roofline"');
    expect(page).toContain('<table class="results">');
  });

  test('history files with no readable run say so too', () => {
    const dir = tmp();
    writeFileSync(join(dir, 'gpu.jsonl'), 'not json\n');
    const input = loadSiteInput({ historyDir: dir, resultsFiles: [] });
    const page = render(input);
    expect(page).toContain('its 1 history file holds no readable run');
    expect(page).toContain('No GPU to show');
    expect(page).toContain(`${join(dir, 'gpu.jsonl')}:1: not valid JSON`);
  });

  test('hostile strings from a results file and a history record are escaped: no markup of theirs survives', () => {
    const dir = tmp();
    const results = hostileResults('gpu');
    const file = join(dir, 'hostile.json');
    writeFileSync(file, JSON.stringify(results));
    const history = join(dir, 'history');
    mkdirSync(history);
    const record = historyRecord(results);
    record.branch = '<script>alert(1)</script>';
    record.commit = '"><img src=x onerror=alert(1)>';
    writeFileSync(join(history, 'hostile-gpu.jsonl'), `${JSON.stringify(record)}\n`);
    const page = render(loadSiteInput({ historyDir: history, resultsFiles: [file] }));
    const markup = markupOf(page);
    expect(markup).toContain('gpu-name &lt;img src=x onerror=alert(1)&gt; &lt;details open&gt;');
    // Every tag left is one the page writes itself, and none has an event-handler attribute.
    const tags = [...markup.matchAll(/<\/?([a-zA-Z][\w-]*)([^>]*)>/g)];
    expect(tags.map((t) => t[1]?.toLowerCase() ?? '').filter((t) => !OUR_TAGS.includes(t))).toEqual([]);
    expect(tags.length).toBeGreaterThan(100);
    // (Attribute values are double-quoted, with `"` escaped inside: outside the quotes is the tag's own.)
    const handlers = tags.filter((t) => /\son\w+\s*=/i.test((t[2] ?? '').replace(/"[^"]*"/g, '""')));
    expect(handlers.map((t) => t[0])).toEqual([]);
    expect(markup).not.toMatch(/<!--/);
    // The charts' JSON carries the strings, with < > & escaped so none can end its <script>.
    const json = /<script type="application\/json" id="fusebench-charts">([\s\S]*?)<\/script>/.exec(page)?.[1] ?? '';
    expect(json).not.toMatch(/[<>&]/);
    expect(JSON.stringify(JSON.parse(json))).toContain('<img src=x onerror=alert(1)>');
  });
});

describe('the latest run’s table', () => {
  test('a shape with a graph twin shows the fused speedup over it; the others a dash', () => {
    const run = readResults(h200);
    const measured = run.cases.findIndex((c) => c.status === 'measured');
    const c = run.cases[measured];
    if (!c?.timing) throw new Error('fixture: a measured case');
    c.graphTwin = {
      status: 'measured',
      callsPerSample: 1,
      graph: { ...c.timing.unfused, median: 0.0061 },
      fused: { ...c.timing.fused, median: 0.0042 },
      speedup: { estimate: 1.45, lo: 1.43, hi: 1.47, confidence: 0.95 },
      samples: { graph: [0.0061], fused: [0.0042] },
    };
    const table = resultsTable(run).toString();
    expect(table).toContain('<th>Over its CUDA graph</th>');
    const rows = table.split('<tr class=').slice(1);
    const twin = rows.filter((r) => r.includes('>1.45x [1.43, 1.47]</td>'));
    expect(twin).toHaveLength(1);
    expect(twin[0]).toContain(`<td class="shape">${c.shape.label}</td>`);
    // The column is the second number of each row: a dash in every row but that one.
    const graphCell = (r: string) => [...r.matchAll(/<td class="num">([^<]*)<\/td>/g)].map((m) => m[1])[1];
    expect(rows).toHaveLength(run.cases.length);
    expect(rows.map(graphCell).filter((x) => x === '—')).toHaveLength(rows.length - 1);
  });
});
