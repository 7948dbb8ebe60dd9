// The per-device history: records made from real runs, JSON Lines that survive broken lines, the series
// charted, the Markdown section (the charts themselves: history-chart.test.ts), and the CLIs that append,
// render and merge it.

import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { UsageError } from '../../src/base/cli-args.ts';
import { currentBranch, currentCommit, runSource } from '../../src/base/source.ts';
import { baselinePath } from '../../src/gate/baseline-file.ts';
import { appendHistory, historyFileFor, parseHistory, readHistory } from '../../src/history/history-file.ts';
import { type HistoryRecord, historyRecord } from '../../src/history/history-record.ts';
import { caseHistories, lastCommits, shortCommit } from '../../src/history/history-series.ts';
import { renderHistorySection } from '../../src/report/history-markdown.ts';
import { asMeasured } from '../../src/results/judged-timing.ts';
import { type ResultsFile, readResults } from '../../src/results/results.ts';
import { historyAt } from '../support/history-at.ts';
import { hostile, injections } from '../support/hostile-results.ts';
import { rederived } from '../support/measured-case.ts';

const root = join(import.meta.dirname, '..', '..');
const fixtures = join(root, 'suites', 'fixtures');
const mixed = readResults(join(fixtures, 'h200-mixed-verdicts.json'));
const run = readResults(join(fixtures, 'h200-gate-run.json'));
const tmp = () => mkdtempSync(join(tmpdir(), 'fusebench-history-'));

/** The gate run as measured at `commit`, each speedup (estimate and interval) multiplied by `factor`. */
const at = (commit: string, factor = 1, drop: string[] = []) => historyAt(commit, { factor, drop });

function cli(args: string[]) {
  const r = spawnSync(process.execPath, ['--experimental-strip-types', '--no-warnings=ExperimentalWarning', ...args], {
    cwd: root,
    encoding: 'utf8',
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('a history record', () => {
  test('is one compact line per run: date, commit, branch, device, and per key speedup, fused median and verdict', () => {
    const r = structuredClone(mixed);
    r.source = { commit: 'abc123def456', branch: 'main' };
    const rec = historyRecord(r);
    expect(rec).toMatchObject({
      v: 1,
      date: mixed.createdAt,
      commit: 'abc123def456',
      branch: 'main',
      device: { name: 'NVIDIA H200', slug: 'nvidia-h200' },
    });
    const c = mixed.cases.find((x) => x.key === 'gelu_scale/32x512x768/fp32');
    expect(rec.cases['gelu_scale/32x512x768/fp32']).toEqual({
      case: 'gelu_scale',
      shape: '32x512x768',
      dtype: 'fp32',
      verdict: 'SLOWER',
      speedup: [1.52, Number(c?.speedup?.lo.toPrecision(5)), Number(c?.speedup?.hi.toPrecision(5))],
      fusedMs: Number(c?.timing?.fused.median.toPrecision(5)),
    });
    expect(rec.cases['gelu_scale/256M/fp32']).toEqual({
      case: 'gelu_scale',
      shape: '256M',
      dtype: 'fp32',
      verdict: 'SKIPPED',
    });
    expect(JSON.stringify(rec)).not.toContain('\n');
  });

  test('a run without a source says its commit is unknown and names no branch', () => {
    const rec = historyRecord(mixed);
    expect(rec.commit).toBe('unknown');
    expect(rec.branch).toBeUndefined();
  });
});

describe('a history file', () => {
  test('with broken lines: each is named (file:line and why) and skipped, the others are read', () => {
    const good = JSON.stringify(at('aaaaaaa1'));
    const wrongField = JSON.stringify({ ...at('aaaaaaa2'), commit: 42 });
    const newer = JSON.stringify({ ...at('aaaaaaa3'), v: 2 });
    const text = [good, '{"v": 1, "date": "2026-11-', '', wrongField, newer, JSON.stringify(at('aaaaaaa4'))].join('\n');
    const { records, problems } = parseHistory(text, 'history/nvidia-h200.jsonl');
    expect(records.map((r) => [r.line, r.record.commit])).toEqual([
      [1, 'aaaaaaa1'],
      [6, 'aaaaaaa4'],
    ]);
    expect(problems).toHaveLength(3);
    expect(problems[0]).toMatch(/^history\/nvidia-h200\.jsonl:2: not valid JSON \(.+\); skipped$/);
    expect(problems[1]).toMatch(
      /^history\/nvidia-h200\.jsonl:4: not a history record \(commit: .*string.*\); skipped$/,
    );
    expect(problems[2]).toContain('history/nvidia-h200.jsonl:5: not a history record (v: written by a newer fusebench');
  });

  test('appending keeps every byte that was there, broken lines included, and puts the record on its own line', async () => {
    const dir = tmp();
    const file = join(dir, 'history', 'nvidia-h200.jsonl');
    expect(await appendHistory(file, at('aaaaaaa1'))).toEqual({ problems: [], appended: true });
    const cut = `${readFileSync(file, 'utf8')}{"v": 1, "date": "2026-11-`; // a write cut short, no newline
    writeFileSync(file, cut);
    const { problems } = await appendHistory(file, at('aaaaaaa2'));
    expect(problems).toEqual([expect.stringMatching(new RegExp(`^${file}:2: not valid JSON`))]);
    const after = readFileSync(file, 'utf8');
    expect(after.startsWith(`${cut}\n`)).toBe(true);
    expect(readHistory(file).records.map((r) => r.record.commit)).toEqual(['aaaaaaa1', 'aaaaaaa2']);
    // Written through a temporary file and a rename: nothing is left beside it.
    expect(readdirSync(join(dir, 'history'))).toEqual(['nvidia-h200.jsonl']);
    // The same run appended again (a re-run job) is not a second point.
    expect(await appendHistory(file, at('aaaaaaa2'))).toMatchObject({ appended: false });
    expect(readFileSync(file, 'utf8')).toBe(after);
  });

  test('appending keeps bytes that are not UTF-8 as they are (a decode and re-encode replaced them)', async () => {
    const file = join(tmp(), 'nvidia-h200.jsonl');
    const garbage = Buffer.from([0x67, 0xff, 0xfe, 0xc3, 0x0d, 0x0a, 0x00, 0x62, 0x0a]); // g ÿ þ Ã \r\n \0 b
    writeFileSync(file, garbage);
    const { problems, appended } = await appendHistory(file, at('aaaaaaa1'));
    expect(appended).toBe(true);
    expect(problems.length).toBeGreaterThan(0);
    const after = readFileSync(file);
    expect(after.subarray(0, garbage.length)).toEqual(garbage);
    expect(after.subarray(garbage.length).toString('utf8')).toBe(`${JSON.stringify(at('aaaaaaa1'))}\n`);
  });

  test('a missing file is an empty history; a device slug that is not a plain name is refused as a file name', () => {
    expect(readHistory(join(tmp(), 'none.jsonl'))).toEqual({ records: [], problems: [], broken: 0 });
    expect(historyFileFor('history', 'nvidia-h200')).toBe(join('history', 'nvidia-h200.jsonl'));
    expect(() => historyFileFor('history', '../../etc/passwd')).toThrow(
      'device.slug "../../etc/passwd" is not a plain device slug',
    );
    // Nor a baseline file: `history --out` read the band's baselines through a record's slug, and quoted
    // the start of any .json file it reached.
    expect(baselinePath('baselines', 'nvidia-h200')).toBe(join('baselines', 'nvidia-h200.json'));
    expect(() => baselinePath('baselines', '../../tmp/secret/creds')).toThrow(
      'device slug "../../tmp/secret/creds" is not a plain name',
    );
  });
});

describe('the charted series', () => {
  test('the last N commits in run order, a commit measured twice counted once with its latest run', () => {
    const records = [at('c1'), at('c2'), at('c3', 0.5), at('c2', 2), at('c4')];
    expect(lastCommits(records, 3).map((r) => r.commit)).toEqual(['c3', 'c2', 'c4']);
    const [gelu] = caseHistories(records, 3).filter((h) => h.case === 'gelu_scale');
    const oneK = gelu?.series.find((s) => s.shape === '1K');
    expect(oneK?.points.map((p) => p.index)).toEqual([0, 1, 2]);
    expect(oneK?.points[1]?.estimate).toBeCloseTo(2 * 1.6723, 3);
  });

  test('runs whose commit is unknown are not one commit: each keeps its point', () => {
    const records = [at('unknown'), at('c1'), at('unknown', 2), at('c1', 3), at('unknown', 4)];
    expect(lastCommits(records).map((r) => r.commit)).toEqual(['unknown', 'unknown', 'c1', 'unknown']);
    const oneK = caseHistories(records)
      .find((h) => h.case === 'gelu_scale')
      ?.series.find((s) => s.shape === '1K');
    expect(oneK?.points.map((p) => p.estimate / 1.6723).map((f) => Number(f.toFixed(3)))).toEqual([1, 2, 3, 4]);
  });

  test('a shape not measured at a commit has no point there', () => {
    const records = [at('c1'), at('c2', 1, ['1M']), at('c3')];
    const gelu = caseHistories(records).find((h) => h.case === 'gelu_scale');
    expect(gelu?.series.find((s) => s.shape === '1M')?.points.map((p) => p.index)).toEqual([0, 2]);
    expect(gelu?.series.find((s) => s.shape === '16M')?.points.map((p) => p.index)).toEqual([0, 1, 2]);
  });

  test('short commit ids: seven characters, + for a dirty tree', () => {
    expect(shortCommit('3f6141c8923b')).toBe('3f6141c');
    expect(shortCommit('3f6141c8923b+dirty')).toBe('3f6141c+');
  });
});

describe('the history section', () => {
  test('a collapsed block per case and precision, a line and a linked chart per shape, escaped alt text', async () => {
    const { markdown, images } = await renderHistorySection([at('c1aaaaaa'), at('c2aaaaaa', 0.5)], {
      imageDir: 'benchmark-history/nvidia-h200',
    });
    expect(images.map((i) => i.path).sort()).toEqual(
      run.cases.map((c) => `benchmark-history/nvidia-h200/${c.case}-${c.shape.label}-fp32.svg`).sort(),
    );
    for (const i of images) expect(i.svg).toMatch(/^<svg /);
    expect(markdown).toContain('<summary>gelu&#x5f;scale · fp32: 4 shapes</summary>');
    expect(markdown).toContain(
      '![gelu\\_scale 1K (fp32) over the last 2 commits](benchmark-history/nvidia-h200/gelu_scale-1K-fp32.svg)',
    );
    expect(markdown).toMatch(/\*\*1K\*\*: 2 of 2 commits, 0\.84x to 1\.67x; latest 0\.84x at c2aaaaa/);
    expect(markdown.match(/^<details>$/gm)).toHaveLength(4);
  });

  test('skipped lines are named in the section, and the rest is charted', async () => {
    const { markdown, images } = await renderHistorySection([at('c1aaaaaa')], {
      imageDir: 'x',
      problems: ['history/nvidia-h200.jsonl:7: not valid JSON (Unexpected end of JSON input); skipped'],
    });
    expect(markdown).toContain('> **1 line of the history skipped** (not a history record; the rest is charted):');
    expect(markdown).toContain(
      '> - history/nvidia-h200.jsonl:7: not valid JSON \\(Unexpected end of JSON input\\); skipped',
    );
    expect(images).toHaveLength(run.cases.length);
  });

  test('a history with no measured run says so, names its file, and draws no empty chart', async () => {
    const none = structuredClone(run);
    none.cases = [];
    for (const records of [[historyRecord(none)], []]) {
      const { markdown, images } = await renderHistorySection(records, {
        imageDir: 'x',
        device: 'NVIDIA H200',
        files: ['history/nvidia-h200.jsonl'],
      });
      expect(markdown).toBe('No measured run of NVIDIA H200 in `history/nvidia-h200.jsonl` yet: nothing to chart.\n');
      expect(images).toEqual([]);
    }
  });

  test('strings from a history file reach the section escaped', async () => {
    const evil = at('c1aaaaaa');
    for (const c of Object.values(evil.cases)) {
      c.case = hostile('case');
      c.shape = hostile('shape');
    }
    const { markdown } = await renderHistorySection([evil], { imageDir: 'x', device: hostile('device') });
    expect(markdown).toContain('img src=x');
    expect(injections(markdown)).toEqual([]);
  });
});

describe('npm run history and npm run merge --history', () => {
  function historyOf(dir: string): string {
    const files = [1, 2, 3].map((i) => {
      const r: ResultsFile = structuredClone(run);
      r.source = { commit: `${i}${'0'.repeat(11)}`, branch: 'main' };
      const f = join(dir, `run${i}.json`);
      writeFileSync(f, JSON.stringify(r));
      return f;
    });
    const r = cli(['src/cli/history.ts', 'append', '--dir', join(dir, 'history'), ...files]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`to ${join(dir, 'history', 'nvidia-h200.jsonl')}`);
    return join(dir, 'history', 'nvidia-h200.jsonl');
  }

  test('append of several results files writes all of them or none: a record its readers would skip stops it', () => {
    const dir = tmp();
    const files = [1, 2].map((i) => {
      const r: ResultsFile = structuredClone(run);
      r.source = { commit: `${i}${'0'.repeat(11)}`, branch: 'main' };
      // The second run's calls took 5,000 s: a valid results file (times up to a day), but no history
      // record (an hour per call is no kernel), so its readers would skip it.
      const at = r.cases.findIndex((x) => x.speedup);
      const c = asMeasured(r.cases[at]);
      if (i === 2 && c) {
        c.timing.samples = {
          unfused: c.timing.samples.unfused.map((x) => x * 5e7),
          fused: c.timing.samples.fused.map((x) => x * 5e7),
        };
        r.cases[at] = rederived(c, r.device.copyBandwidthGBs);
      }
      const f = join(dir, `run${i}.json`);
      writeFileSync(f, JSON.stringify(r));
      return f;
    });
    const history = join(dir, 'history');
    const r = cli(['src/cli/history.ts', 'append', '--dir', history, ...files]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `${join(history, 'nvidia-h200.jsonl')}: the record to append is not a history record (cases.`,
    );
    expect(r.stderr).toContain('fusedMs');
    expect(existsSync(history)).toBe(false);
  });

  test("append of two GPUs' runs where one history file cannot be written appends neither; the same run twice is one point", () => {
    const dir = tmp();
    const history = join(dir, 'history');
    const files = ['nvidia-h200', 'other-gpu'].map((slug) => {
      const r: ResultsFile = structuredClone(run);
      r.device = { ...r.device, slug };
      const f = join(dir, `${slug}.json`);
      writeFileSync(f, JSON.stringify(r));
      return f;
    });
    mkdirSync(join(history, 'other-gpu.jsonl'), { recursive: true });
    const r = cli(['src/cli/history.ts', 'append', '--dir', history, ...files]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${join(history, 'other-gpu.jsonl')} cannot take the run of ${files[1]}`);
    expect(existsSync(join(history, 'nvidia-h200.jsonl'))).toBe(false);
    const once = cli(['src/cli/history.ts', 'append', '--dir', history, files[0] as string]);
    const again = cli(['src/cli/history.ts', 'append', '--dir', history, files[0] as string]);
    expect([once.code, again.code]).toEqual([0, 0]);
    expect(again.stdout).toContain('already holds NVIDIA H200');
    expect(readHistory(join(history, 'nvidia-h200.jsonl')).records).toHaveLength(1);
  });

  test('append refuses a run made with --inject: a kernel slowed on purpose is no point of the history', () => {
    const dir = tmp();
    const r: ResultsFile = structuredClone(run);
    const at = r.cases.findIndex((c) => c.status === 'measured');
    r.cases[at] = { ...(r.cases[at] as ResultsFile['cases'][number]), injection: { kind: 'passes', passes: 3 } };
    const f = join(dir, 'injected.json');
    writeFileSync(f, JSON.stringify(r));
    const history = join(dir, 'history');
    const out = cli(['src/cli/history.ts', 'append', '--dir', history, f]);
    expect(out.code).toBe(2);
    expect(out.stderr).toContain(`${f} is a run made with --inject (${r.cases[at]?.key} slowed on purpose)`);
    expect(existsSync(history)).toBe(false);
  });

  test('append, then render: a broken line is named on stderr and skipped, the charts are written', () => {
    const dir = tmp();
    const file = historyOf(dir);
    writeFileSync(file, `${readFileSync(file, 'utf8')}not json\n`);
    const text = cli(['src/cli/history.ts', file, '--last', '2']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stderr).toContain(`${file}:4: not valid JSON`);
    expect(text.stdout).toMatch(/gelu_scale fp32 \(speedup, oldest first\)\ncommit +date +1M/);
    expect(text.stdout).not.toContain('1000000'); // --last 2: the first commit is left out
    const out = join(dir, 'report', 'history.md');
    const md = cli(['src/cli/history.ts', file, '--out', out]);
    expect(md.code, md.stderr).toBe(0);
    expect(readFileSync(out, 'utf8')).toContain('](history-charts/gelu_scale-1M-fp32.svg)');
    expect(readFileSync(join(dir, 'report', 'history-charts', 'gelu_scale-1M-fp32.svg'), 'utf8')).toMatch(/^<svg /);
    expect(readFileSync(file, 'utf8')).toContain('not json\n'); // reading never rewrites the file
    // -1 as its own word too: parseArgs took it for another option ("ambiguous"), as perf's flags once did.
    for (const v of ['0', '-1']) {
      expect(cli(['src/cli/history.ts', file, '--last', v]).stderr).toContain(
        `Expected a positive integer up to 1000 for --last but received '${v}'`,
      );
    }
  });

  test('merge --history puts each GPU’s charts into BENCHMARK_RESULTS.md and writes the SVGs beside it', () => {
    const dir = tmp();
    const file = historyOf(dir);
    const out = join(dir, 'merged');
    const r = cli(['src/cli/merge.ts', '--out-dir', out, '--history', file, join(fixtures, 'h200-gate-run.json')]);
    expect(r.code, r.stderr).toBe(0);
    const md = readFileSync(join(out, 'BENCHMARK_RESULTS.md'), 'utf8');
    expect(md).toMatch(/^## History$/m);
    expect(md).toContain('](benchmark-history/nvidia-h200/gelu_scale-1M-fp32.svg)');
    expect(existsSync(join(out, 'benchmark-history', 'nvidia-h200', 'gelu_scale-1M-fp32.svg'))).toBe(true);
    // The band: the repository's baseline of the H200 (baselines/nvidia-h200.json, read from the working folder).
    const band = readFileSync(join(out, 'benchmark-history', 'nvidia-h200', 'gelu_scale-16M-fp32.svg'), 'utf8');
    expect(band).toContain('where the gate says SAME (baselines/nvidia-h200.json).');
    // The 1M baseline is of batched timing, the recorded run's 1M was per call: no band, and the chart says why.
    const none = readFileSync(join(out, 'benchmark-history', 'nvidia-h200', 'gelu_scale-1M-fp32.svg'), 'utf8');
    expect(none).toContain('No baseline band: the baseline in baselines/nvidia-h200.json is of batched timing');
  });
});

describe('the source of a run', () => {
  test('the commit and branch come from the environment first', () => {
    expect(runSource(root, { FUSEBENCH_COMMIT: 'abc1234', GITHUB_REF_NAME: 'main' })).toEqual({
      commit: 'abc1234',
      branch: 'main',
    });
    expect(currentBranch(root, { FUSEBENCH_BRANCH: 'feature', GITHUB_REF_NAME: 'main' })).toBe('feature');
  });

  test('a value that is not what its variable names is refused, naming the variable', () => {
    for (const commit of ['4bb25af', '4BB25AF0C1D2+dirty', 'a'.repeat(40), 'b'.repeat(64)]) {
      expect(currentCommit(root, { FUSEBENCH_COMMIT: commit })).toBe(commit);
    }
    for (const commit of ['abc', 'ref: refs/he', 'unknown', '4bb25af+clean', 'a'.repeat(65), '4bb25af\n']) {
      expect(() => currentCommit(root, { FUSEBENCH_COMMIT: commit })).toThrow(UsageError);
    }
    expect(() => currentCommit(root, { GITHUB_SHA: 'main' })).toThrow(/^Expected GITHUB_SHA to be a commit id/);
    // FUSEBENCH_COMMIT comes first, so a good one is used and GITHUB_SHA is not looked at.
    expect(currentCommit(root, { FUSEBENCH_COMMIT: '4bb25af', GITHUB_SHA: 'x' })).toBe('4bb25af');
    for (const branch of ['main', 'perf/decode-step', '123/merge', 'ünïcode']) {
      expect(currentBranch(root, { FUSEBENCH_BRANCH: branch })).toBe(branch);
    }
    // git's forbidden characters, and whitespace or control characters git allows (a C1 control, U+009B,
    // is a terminal's CSI).
    const refused = ['a b', 'x\r::error::y', 'a~1', 'a^', 'a:b', 'a?', 'a*', 'a[', 'a\\b', 'a\u00a0b', 'a\u009bb'];
    for (const branch of [...refused, 'x'.repeat(256)]) {
      expect(() => currentBranch(root, { GITHUB_REF_NAME: branch }), branch).toThrow(
        /^Expected GITHUB_REF_NAME to be a branch name/,
      );
    }
  });

  test('else git: the current branch, and none on a detached HEAD or outside a repository', () => {
    const dir = tmp();
    const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'ignore' });
    git('init', '-q', '-b', 'perf-work');
    git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', 'x');
    expect(currentBranch(dir, {})).toBe('perf-work');
    git('checkout', '-q', '--detach');
    expect(currentBranch(dir, {})).toBeUndefined();
    expect(currentBranch(tmp(), {})).toBeUndefined();
  });
});

describe('history by precision', () => {
  const record = (commit: string, cases: HistoryRecord['cases']): HistoryRecord => ({
    v: 1,
    date: '2026-11-23T00:00:00Z',
    commit,
    device: { name: 'NVIDIA H100 80GB HBM3', slug: 'nvidia-h100-80gb-hbm3' },
    cases,
  });
  const point = (dtype: 'bf16' | 'fp32' | undefined, estimate: number) => ({
    case: 'gelu_scale',
    shape: '16M',
    ...(dtype ? { dtype } : {}),
    verdict: 'SAME' as const,
    speedup: [estimate, estimate - 0.01, estimate + 0.01] as [number, number, number],
  });

  test('fp32 and bf16 of one case and shape are two charts; a record without a precision is fp32', () => {
    const histories = caseHistories([
      record('a'.repeat(40), { 'gelu_scale/16M/fp32': point(undefined, 2.1) }),
      record('b'.repeat(40), { 'gelu_scale/16M/fp32': point('fp32', 2.2), 'gelu_scale/16M/bf16': point('bf16', 1.9) }),
    ]);
    expect(histories.map((h) => [h.case, h.dtype, h.series[0]?.points.map((p) => p.estimate)])).toEqual([
      ['gelu_scale', 'fp32', [2.1, 2.2]],
      ['gelu_scale', 'bf16', [1.9]],
    ]);
  });
});
