// The dashboard in a real browser: `fusebench site` builds it from recorded runs (suites/fixtures/site/: real
// H100 runs at six commits and H200 runs, a line that fails its schema, a record with hostile strings), and
// Chromium loads the page from its file. Nothing may log an error, reach the network or open a dialog; each
// chart draws one mark per data point; a file's strings show as text, never as markup; what was left out is
// named; an empty history says so. Screenshots go to .ci/artifacts/ (CI keeps them).
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { readHistory } from '../../src/history/history-file.ts';
import { lastCommits } from '../../src/history/history-series.ts';
import { readResults } from '../../src/results/results.ts';
import { launchChromium } from '../support/browser.ts';
import { hostileResults } from '../support/hostile-results.ts';

const root = join(import.meta.dirname, '..', '..');
const fixtures = join(root, 'suites', 'fixtures');
const historyDir = join(fixtures, 'site', 'history');
const h100Results = join(fixtures, 'h100-results-cb047cf.json');
const h200Results = join(fixtures, 'h200-mixed-verdicts.json');
/** Where CI keeps the screenshots (.ci/run runs this suite; ci.yml uploads the folder). */
const artifacts = join(root, '.ci', 'artifacts');
const HOSTILE = '<img src=x onerror=alert(1)>';

const tmp = mkdtempSync(join(tmpdir(), 'fusebench-site-'));

function site(args: string[]) {
  const r = spawnSync(
    process.execPath,
    [join(root, 'bin', 'fusebench.mjs'), 'site', ...args],
    // Killed after two minutes: a build that hangs fails the test instead of the suite.
    { cwd: root, encoding: 'utf8', timeout: 120_000, killSignal: 'SIGKILL' },
  );
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** What a page did while it loaded and drew its charts. */
interface Visit {
  page: Page;
  /** Console errors and warnings, page errors, dialogs, and requests for anything but the page's own file. */
  trouble: string[];
}

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

async function visit(file: string): Promise<Visit> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  const trouble: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') trouble.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => trouble.push(`page error: ${e.message}`));
  page.on('dialog', (d) => {
    trouble.push(`dialog: ${d.type()} ${d.message()}`);
    void d.dismiss();
  });
  const own = pathToFileURL(file).href;
  page.on('request', (r) => {
    if (r.url() !== own) trouble.push(`request: ${r.url()}`);
  });
  await page.goto(own);
  await page.waitForSelector('html[data-charts]', { timeout: 120_000 });
  expect(await page.getAttribute('html', 'data-charts')).toBe('rendered');
  return { page, trouble };
}

/** Saves a screenshot where CI keeps it, and beside the other pictures of issue 28 when that folder exists. */
async function screenshot(page: Page, name: string, options: Parameters<Page['screenshot']>[0] = {}) {
  mkdirSync(artifacts, { recursive: true });
  const path = join(artifacts, name);
  await page.screenshot({ ...options, path });
  if (existsSync('/work/pngs-28')) copyFileSync(path, join('/work/pngs-28', name));
}

/** The marks a chart drew under a Vega mark name: the items of its SVG's `g.role-mark.<name>` groups. */
function markCount(page: Page, figure: string, markName: string): Promise<number> {
  return page.locator(`${figure} svg g.role-mark.${markName} > *`).count();
}

/** Every on* attribute in the page, as "TAG name" (the suite's TypeScript has no DOM types: a string runs in the page). */
const HANDLERS = `[...document.querySelectorAll('*')].flatMap((el) =>
  [...el.attributes].filter((a) => a.name.toLowerCase().startsWith('on')).map((a) => el.tagName + ' ' + a.name))`;

describe('the dashboard, built from real runs with a broken line and hostile strings', () => {
  const out = join(tmp, 'site');
  const hostileFile = join(tmp, 'hostile-results.json');
  let built: ReturnType<typeof site>;
  let v: Visit;

  beforeAll(async () => {
    writeFileSync(hostileFile, JSON.stringify(hostileResults('gpu')));
    built = site([
      ...['--history', historyDir, '--results', h100Results, h200Results, hostileFile],
      ...['--baselines', join(root, 'baselines'), '--repo-url', 'https://github.com/example/fusebench', '--out', out],
    ]);
    expect(built.code, built.stderr).toBe(0);
    v = await visit(join(out, 'index.html'));
  });

  test('loads from its file with no console error, page error, dialog or network request', async () => {
    expect(v.trouble).toEqual([]);
    await screenshot(v.page, 'site.png');
  });

  test('names the history line that failed its schema, on the page and on stderr, and renders the rest', async () => {
    const bad = `${join(historyDir, 'nvidia-h200.jsonl')}:3: not a history record`;
    expect(built.stderr).toContain(bad);
    expect(await v.page.textContent('#problems')).toContain(bad);
    // The H200's other runs are charted: its history has a chart per measured series.
    expect(await v.page.locator('#gpu-nvidia-h200 figure.history').count()).toBeGreaterThan(0);
  });

  test('a hostile string from a results or history file shows as text, never as markup', async () => {
    const text = (await v.page.textContent('body')) ?? '';
    // The hostile results file's device name, and the history record's case name.
    expect(text).toContain(`gpu-name ${HOSTILE}`);
    expect(await v.page.locator('h4', { hasText: HOSTILE }).count()).toBe(1);
    const injected = {
      images: await v.page.locator('img, iframe, object, embed').count(),
      scripts: await v.page.locator('script').count(),
      handlers: await v.page.evaluate(HANDLERS),
      details: await v.page.locator('details').count(),
    };
    // Our three scripts (the charts' JSON, Vega, the renderer) and nothing else.
    expect(injected).toEqual({ images: 0, scripts: 3, handlers: [], details: 0 });
  });

  test('every roofline draws one point per variant of each measured case', async () => {
    const run = readResults(h100Results);
    for (const dtype of ['fp32', 'bf16', 'fp16'] as const) {
      const measured = run.cases.filter((c) => c.dtype === dtype && c.status === 'measured').length;
      const figure = `#gpu-nvidia-h100-80gb-hbm3 figure.roofline[data-dtype="${dtype}"]`;
      for (const variant of ['unfused', 'fused']) {
        const drawn =
          (await markCount(v.page, figure, `roofline_${variant}_marks`)) +
          (await markCount(v.page, figure, `bandwidth_${variant}_marks`));
        expect(drawn, `H100 ${dtype} ${variant}`).toBe(measured);
      }
    }
    await v.page.locator('#gpu-nvidia-h100-80gb-hbm3 figure.roofline').first().scrollIntoViewIfNeeded();
    await screenshot(v.page, 'site-roofline.png');
  });

  test('every history chart draws one point per commit its series was measured at', async () => {
    // The last run of each of the six commits (two runs measured 276898e): the default window of 50 holds them all.
    const records = lastCommits(
      readHistory(join(historyDir, 'nvidia-h100-80gb-hbm3.jsonl')).records.map((r) => r.record),
      50,
    );
    expect(records).toHaveLength(6);
    const figures = await v.page
      .locator('#gpu-nvidia-h100-80gb-hbm3 figure.history')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-key')));
    expect(figures.length).toBeGreaterThan(40);
    for (const key of figures) {
      const expected = records.filter((r) => r.cases[key ?? '']?.speedup).length;
      expect(
        await markCount(v.page, `#gpu-nvidia-h100-80gb-hbm3 figure.history[data-key="${key}"]`, 'speedup_points_marks'),
        String(key),
      ).toBe(expected);
    }
  });

  test('hovering a point shows its commit, date and values', async () => {
    const figure = v.page.locator('#gpu-nvidia-h100-80gb-hbm3 figure.history').first();
    await figure.scrollIntoViewIfNeeded();
    await figure.locator('svg g.role-mark.speedup_points_marks > path').last().hover({ force: true });
    const title = await figure.locator('[title]').first().getAttribute('title');
    // The last commit of the H100's history, its date and its numbers.
    expect(title).toMatch(/^commit: cb047cf$/m);
    expect(title).toMatch(/^date: 2026-11-25T15:57/m);
    expect(title).toMatch(/^speedup: \d+\.\d{3}$/m);
    expect(title).toMatch(/^fused ms: \d/m);
    await screenshot(v.page, 'site-history.png');
  });
});

describe('bad input: a results file that fails its schema', () => {
  test('is named on the page and on stderr (exit 2); the rest is rendered', async () => {
    const broken = join(tmp, 'broken-results.json');
    const r = readResults(h200Results) as unknown as { device: { name: unknown } };
    r.device.name = 42;
    writeFileSync(broken, JSON.stringify(r));
    const out = join(tmp, 'site-broken');
    const built = site(['--history', historyDir, '--results', h100Results, broken, '--out', out]);
    expect(built.code).toBe(2);
    expect(built.stderr).toContain(`${broken} could not be read: is not valid:`);
    const v = await visit(join(out, 'index.html'));
    expect(v.trouble).toEqual([]);
    const problems = (await v.page.textContent('#problems')) ?? '';
    expect(problems).toContain(`${broken} could not be read: is not valid:`);
    expect(problems).toContain('device.name');
    // The H100's table is there.
    expect(await v.page.locator('#gpu-nvidia-h100-80gb-hbm3 table.results tbody tr').count()).toBe(
      readResults(h100Results).cases.length,
    );
    await v.page.close();
  });
});

describe('an empty history', () => {
  test('gives a page that says so, not an empty chart; the latest run is still shown', async () => {
    const empty = join(tmp, 'empty-history');
    mkdirSync(empty);
    const out = join(tmp, 'site-empty');
    const built = site(['--history', empty, '--results', h100Results, '--out', out]);
    expect(built.code, built.stderr).toBe(0);
    expect(built.stderr).toContain('holds no run');
    const v = await visit(join(out, 'index.html'));
    expect(v.trouble).toEqual([]);
    expect(await v.page.textContent('#empty-history')).toContain('The history is empty');
    expect(await v.page.locator('figure.history').count()).toBe(0);
    expect(await v.page.locator('figure.roofline').count()).toBeGreaterThan(0);
    await screenshot(v.page, 'site-empty-history.png');
    await v.page.close();
  });

  test('a history folder that does not exist is an input error, not an empty history', () => {
    const built = site(['--history', join(tmp, 'no-such-folder'), '--out', join(tmp, 'site-none')]);
    expect(built.code).toBe(2);
    expect(built.stderr).toContain('no such history folder');
  });
});
