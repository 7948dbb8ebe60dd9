// `npm run compare`: two recorded H200 runs (unchanged, then with --inject gelu_scale:4) compared with the
// gate's statistics, the cases only one run has, batched timing, and the pairs it must refuse.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { COMPARE_DEFAULT_DELTA, compareResults, comparisonCounts } from '../../src/compare/compare-runs.ts';
import { FUSED_TIME_FLOOR } from '../../src/gate/tolerance.ts';
import { renderCompareConsole, renderCompareMarkdown } from '../../src/report/compare-report.ts';
import { type ResultsFile, readResults } from '../../src/results/results.ts';
import { hostile } from '../support/hostile-results.ts';
import { markdownTables, tableProblems } from '../support/markdown-check.ts';

const root = join(import.meta.dirname, '..', '..');
const fixtures = join(root, 'suites', 'fixtures');
const runFile = join(fixtures, 'h200-gate-run.json');
const injectFile = join(fixtures, 'h200-gate-inject.json');
const run = readResults(runFile);
const inject = readResults(injectFile);
const named = (file: string, results: ResultsFile) => ({ file, results });

function cli(args: string[]) {
  const r = spawnSync(
    process.execPath,
    ['--experimental-strip-types', '--no-warnings=ExperimentalWarning', 'src/cli/compare.ts', ...args],
    { cwd: root, encoding: 'utf8', env: { ...process.env, NO_COLOR: '' } },
  );
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const tmp = () => mkdtempSync(join(tmpdir(), 'fusebench-compare-'));
const write = (dir: string, name: string, value: unknown) => {
  const f = join(dir, name);
  writeFileSync(f, JSON.stringify(value));
  return f;
};

/** A copy of a run whose `case/shape` has its fused samples (per call and batched) multiplied by `factor`. */
function slower(r: ResultsFile, shape: string, factor: number): ResultsFile {
  const o = structuredClone(r);
  for (const c of o.cases.filter((x) => x.shape.label === shape && x.timing)) {
    const t = c.timing as NonNullable<typeof c.timing>;
    t.samples.fused = t.samples.fused.map((x) => x * factor);
    t.fused = { ...t.fused, median: t.fused.median * factor };
  }
  return o;
}

describe('compareResults', () => {
  const cmp = compareResults(run, inject);

  test('finds the injected regression in every gelu_scale shape and nothing else', () => {
    const verdicts = Object.fromEntries(cmp.compared.map((c) => [c.key, c.verdict]));
    expect(verdicts).toMatchObject({
      'gelu_scale/1K/fp32': 'SLOWER',
      'gelu_scale/1M/fp32': 'SLOWER',
      'gelu_scale/32x512x768/fp32': 'SLOWER',
      'gelu_scale/16M/fp32': 'SLOWER',
      'bias_gelu/16384x3072/fp32': 'SAME',
      'scale_mask_softmax/32x12x512x512/fp32': 'SAME',
    });
    expect(comparisonCounts(cmp).SLOWER).toBe(4);
    // Both metrics decided; D < 0 is worse for both (the fused time got longer).
    const g = cmp.compared.find((c) => c.key === 'gelu_scale/16M/fp32');
    expect(g?.speedup.diff.hi).toBeLessThan(Math.log(0.98));
    expect(g?.fusedTime?.verdict).toBe('SLOWER');
    expect(g?.fusedTime?.current).toBeGreaterThan(g?.fusedTime?.baseline ?? Number.POSITIVE_INFINITY);
  });

  test('without --delta each case has the δ its gate used on this GPU, per metric; the default without a measured baseline', () => {
    // The fixture run was gated against one-run baselines: δ ±5% (the default) on both metrics.
    expect(cmp.compared.every((c) => c.speedup.delta === 0.05 && c.fusedTime?.delta === 0.05)).toBe(true);
    expect(cmp.delta).toBeUndefined();
    const head = structuredClone(inject);
    const g = head.cases.find((c) => c.key === 'gelu_scale/1K/fp32');
    if (!g?.gate?.speedup || !g.gate.fusedTime) throw new Error('fixture: gelu_scale 1K has no gate decisions');
    g.gate.speedup.delta = 0.054;
    g.gate.fusedTime.delta = 0.181;
    const r = head.cases.find((c) => c.key === 'residual_layernorm/16384x768/fp32');
    if (r?.gate) r.gate.baselineSource = 'reported';
    const per = compareResults(run, head);
    const of = (key: string) => per.compared.find((c) => c.key === key);
    expect([of('gelu_scale/1K/fp32')?.speedup.delta, of('gelu_scale/1K/fp32')?.fusedTime?.delta]).toEqual([
      0.054, 0.181,
    ]);
    expect(of('residual_layernorm/16384x768/fp32')?.speedup.delta).toBe(COMPARE_DEFAULT_DELTA);
    // A gate with no fused-time decision (it judged against another model's file): the fused time's own floor,
    // not the speedup's δ, which a whole machine 2% slower would fail.
    const m = head.cases.find((c) => c.key === 'gelu_scale/16M/fp32');
    if (!m?.gate?.speedup) throw new Error('fixture: gelu_scale 16M has no gate decision');
    m.gate.speedup.delta = 0.015;
    m.gate.fusedTime = undefined;
    expect(compareResults(run, head).compared.find((c) => c.key === m.key)?.fusedTime?.delta).toBe(FUSED_TIME_FLOOR);
    // A δ given applies to every case and metric.
    const given = compareResults(run, head, 0.02).compared;
    expect(given.every((c) => c.speedup.delta === 0.02 && (c.fusedTime?.delta ?? 0.02) === 0.02)).toBe(true);
  });

  test('fewer than 10 pairs in either run decide nothing: AMBIGUOUS, however far the runs lie', () => {
    const cut = (r: ResultsFile, n: number) => {
      const o = structuredClone(r);
      for (const c of o.cases) {
        if (!c.timing) continue;
        c.timing.samples = { unfused: c.timing.samples.unfused.slice(0, n), fused: c.timing.samples.fused.slice(0, n) };
        c.batched = undefined;
      }
      return o;
    };
    const far = slower(run, '16M', 1.5);
    const verdicts = (base: ResultsFile, head: ResultsFile) =>
      compareResults(base, head).compared.map((c) => c.verdict);
    expect(new Set(verdicts(cut(run, 2), far))).toEqual(new Set(['AMBIGUOUS']));
    expect(compareResults(cut(run, 2), far).compared[0]?.methodNote).toMatch(
      /too few pairs to decide \(base 2; at least 10\)/,
    );
    expect(new Set(verdicts(run, cut(far, 9)))).toEqual(new Set(['AMBIGUOUS']));
    expect(verdicts(cut(run, 10), cut(far, 10))).toContain('SLOWER');
  });

  test('a run against itself is never SLOWER or FASTER', () => {
    const n = comparisonCounts(compareResults(run, run));
    expect(n.SLOWER + n.FASTER).toBe(0);
    expect(n.SAME).toBeGreaterThan(0);
  });

  test('a run against itself changes by nothing, even where its file kept only some of its pairs', () => {
    // The fixture's 1K shape holds 40 samples whose ratio of medians (1.59x) is not its recorded 1.65x; the head's
    // point had come from the samples and the base's from the record: −3.3% of a file against itself.
    const thinned = readResults(join(fixtures, 'h200-results.json'));
    const { compared } = compareResults(thinned, thinned);
    for (const r of compared) {
      expect(Math.abs(r.speedup.diff.estimate)).toBe(0);
      expect(r.speedup.current).toBe(r.speedup.baseline);
      expect(Math.abs(r.fusedTime?.diff.estimate ?? Number.NaN)).toBe(0);
    }
    expect(compared.map((r) => r.shape)).toContain('1K');
  });

  test('δ widens the SAME band: a 5% slowdown is SLOWER at ±2% and SAME at ±10%', () => {
    const head = slower(run, '1M', 1.05);
    const at = (delta: number) => compareResults(run, head, delta).compared.find((c) => c.shape === '1M')?.verdict;
    expect(at(0.02)).toBe('SLOWER');
    expect(at(0.1)).toBe('SAME');
  });

  test('keys only in one run are listed as added or removed; keys not measured in both are not compared', () => {
    const head = structuredClone(run);
    const base = structuredClone(run);
    head.cases = head.cases.filter((c) => c.case !== 'bias_gelu');
    base.cases = base.cases.filter((c) => c.case !== 'residual_layernorm');
    const skipped = head.cases.find((c) => c.key === 'gelu_scale/16M/fp32');
    if (skipped) Object.assign(skipped, { status: 'skipped', reason: 'over --max-elements' });
    const c = compareResults(base, head);
    expect(c.added).toEqual(['residual_layernorm/16384x768/fp32']);
    expect(c.removed).toEqual(['bias_gelu/16384x3072/fp32']);
    expect(c.notCompared).toEqual([{ key: 'gelu_scale/16M/fp32', base: 'measured', head: 'skipped' }]);
    expect(c.compared.map((x) => x.key)).not.toContain('gelu_scale/16M/fp32');
  });
});

describe('batched timing', () => {
  /** `r` with gelu_scale 1K gated on batched samples: per-call samples unchanged, batched fused × `factor`. */
  function batched(r: ResultsFile, factor: number, gatedOn: 'batched' | 'per-call' = 'batched'): ResultsFile {
    const o = structuredClone(r);
    const c = o.cases.find((x) => x.key === 'gelu_scale/1K/fp32');
    if (!c?.timing || !c.speedup) throw new Error('fixture: gelu_scale 1K is measured');
    const unfused = c.timing.samples.unfused.map((x) => x / 10);
    const fused = c.timing.samples.fused.map((x) => (x / 10) * factor);
    c.batched = {
      callsPerSample: 64,
      unfused: c.timing.unfused,
      fused: c.timing.fused,
      speedup: c.speedup,
      samples: { unfused, fused },
    };
    c.gatedOn = gatedOn;
    return o;
  }

  test('a case gated on batched timing is compared on its batched samples', () => {
    const c = compareResults(batched(run, 1), batched(run, 1.3)).compared.find((x) => x.shape === '1K');
    expect(c?.method).toBe('batched');
    expect(c?.callsPerSample).toBe(64);
    expect(c?.verdict).toBe('SLOWER');
    // The per-call samples alone are unchanged: compared per call, the same pair is not SLOWER.
    const perCall = compareResults(batched(run, 1, 'per-call'), batched(run, 1.3, 'per-call')).compared.find(
      (x) => x.shape === '1K',
    );
    expect(perCall?.method).toBe('per-call');
    expect(perCall?.verdict).not.toBe('SLOWER');
  });

  test('when the base has no batched samples the comparison is per call, and says why', () => {
    const c = compareResults(run, batched(run, 1.3)).compared.find((x) => x.shape === '1K');
    expect(c?.method).toBe('per-call');
    expect(c?.methodNote).toBe('gated on batched timing, but the base run has no batched samples: compared per call');
  });
});

describe('the comparison rendered', () => {
  const cmp = compareResults(run, inject);
  const base = named(runFile, run);
  const head = named(injectFile, inject);

  test('the console table shows both intervals and the verdict, without colour codes unless asked', () => {
    const text = renderCompareConsole(cmp, base, head, false);
    const row = text.split('\n').find((l) => l.startsWith('gelu_scale') && l.includes(' 16M '));
    expect(row).toMatch(
      /2\.04x → 0\.39x +−80\.\d% \[−8\d\.\d%, −8\d\.\d%\] +0\.03490 ms → 0\.1821 ms +\+4\d\d\.\d% \[.*\] +±5\.0% +SLOWER$/,
    );
    expect(text).not.toContain('\u001b[');
    expect(text.split('\n').at(-1)).toBe('SLOWER 4 · FASTER 0 · SAME 3 · AMBIGUOUS 0');
    expect(renderCompareConsole(cmp, base, head, true)).toContain('\u001b[31mSLOWER\u001b[39m');
  });

  test('the Markdown has the same rows, and escapes the names that come from the files', () => {
    const evil = structuredClone(inject);
    const c = evil.cases.find((x) => x.key === 'bias_gelu/16384x3072/fp32');
    if (c) Object.assign(c, { case: hostile('case'), key: `${hostile('case')}/16384x3072/fp32` });
    const evilBase = structuredClone(run);
    const b = evilBase.cases.find((x) => x.key === 'bias_gelu/16384x3072/fp32');
    if (b) Object.assign(b, { case: hostile('case'), key: `${hostile('case')}/16384x3072/fp32` });
    const md = renderCompareMarkdown(compareResults(evilBase, evil), named(runFile, evilBase), named(injectFile, evil));
    const rows = markdownTables(md)[0]?.rows ?? [];
    expect(rows).toHaveLength(7);
    expect(rows.find((r) => r[1] === '16M')?.slice(0, 4)).toEqual(['gelu\\_scale', '16M', 'fp32', '2.04x → 0.39x']);
    expect(md).not.toMatch(/<img|<details|<script|\]\(https/);
    expect(md).not.toMatch(/@everyone(?!\u200b)/);
    expect(tableProblems(md)).toEqual([]);
    expect(md).toContain('**SLOWER 4 · FASTER 0 · SAME 3 · AMBIGUOUS 0**');
  });
});

describe('npm run compare', () => {
  test('prints the table and exits 1 when a case is SLOWER (4 of them here, not 4); --markdown writes the same', () => {
    const out = join(tmp(), 'compare.md');
    const r = cli([runFile, injectFile, '--markdown', out]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toContain('fusebench compare on NVIDIA H200');
    expect(r.stdout).toContain('SLOWER 4 · FASTER 0 · SAME 3 · AMBIGUOUS 0');
    expect(readFileSync(out, 'utf8')).toContain('## fusebench compare on NVIDIA H200');
  });

  test('a run against itself exits 0', () => {
    expect(cli([runFile, runFile]).code).toBe(0);
  });

  test('refuses two device models, naming the files and both devices', () => {
    const dir = tmp();
    const v100 = structuredClone(inject);
    v100.device = { ...v100.device, name: 'Tesla V100-SXM2-32GB', slug: 'tesla-v100-sxm2-32gb' };
    const f = write(dir, 'v100.json', v100);
    const r = cli([runFile, f]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `${f} was measured on Tesla V100-SXM2-32GB (device.slug tesla-v100-sxm2-32gb) but ${runFile} on NVIDIA H200 (device.slug nvidia-h200): compare two runs of the same device model`,
    );
  });

  test('refuses two schema versions, naming the file of each', () => {
    const dir = tmp();
    const f = write(dir, 'newer.json', { ...JSON.parse(readFileSync(injectFile, 'utf8')), schemaVersion: 2 });
    const r = cli([runFile, f]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${f} has results schemaVersion 2 but ${runFile} has 1`);
  });

  test('refuses a file with no schemaVersion as no results file, and shows a version of 1e999 as Infinity', () => {
    const dir = tmp();
    // A history record: it was "an older results file" to re-run.
    const record = join(dir, 'history.jsonl');
    writeFileSync(record, `${JSON.stringify({ commit: 'abc', date: '2026-11-28', entries: {} })}\n`);
    const r = cli([runFile, record]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `${record} has no schemaVersion: it is not a fusebench results file (perf writes fusebench-results.json)`,
    );
    const huge = join(dir, 'huge.json');
    writeFileSync(huge, readFileSync(injectFile, 'utf8').replace(/"schemaVersion": ?1/, '"schemaVersion":1e999'));
    expect(cli([runFile, huge]).stderr).toContain(`${huge} has results schemaVersion Infinity but ${runFile} has 1`);
  });

  test('refuses two runs with no case measured in both', () => {
    const dir = tmp();
    const other = structuredClone(inject);
    other.cases = other.cases.filter((c) => c.case === 'gelu_scale');
    const base = structuredClone(run);
    base.cases = base.cases.filter((c) => c.case !== 'gelu_scale');
    const fb = write(dir, 'base.json', base);
    const fh = write(dir, 'head.json', other);
    const r = cli([fb, fh]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      new RegExp(`${fb} and ${fh} have no case/shape/dtype measured in both \\(${fb}: bias_gelu/16384x3072/fp32, `),
    );
  });

  test('a missing file, a broken file and a bad --delta are refused with exit 2 and the reason', () => {
    const dir = tmp();
    const cut = join(dir, 'cut.json');
    writeFileSync(cut, readFileSync(runFile, 'utf8').slice(0, 500));
    expect(cli([runFile])).toMatchObject({ code: 2 });
    expect(cli([runFile]).stderr).toMatch(/Expected two results files, base then head; got 1/);
    expect(cli([runFile, cut]).stderr).toContain(`${cut} is not valid JSON`);
    expect(cli([runFile, cut]).code).toBe(2);
    expect(cli([runFile, injectFile, '--delta', '5']).stderr).toContain(
      "Expected a fraction between 0 and 1 for --delta (0.05 = ±5%) but received '5'",
    );
  });
});
