// The PR comment rendered from recorded results: deltas against a base run and the stored baseline.
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { pairWithBases } from '../../src/report/load-runs.ts';
import { GITHUB_COMMENT_LIMIT, PR_COMMENT_MARKER, renderPrComment } from '../../src/report/pr-comment.ts';
import { type ResultsFile, readResults } from '../../src/results/results.ts';
import { hostileResults, injections } from '../support/hostile-results.ts';
import { markdownTables, tableProblems } from '../support/markdown-check.ts';

const fixtures = join(import.meta.dirname, '..', 'fixtures');
const mixed = readResults(join(fixtures, 'h200-mixed-verdicts.json'));
const h200 = readResults(join(fixtures, 'h200-results.json'));

/**
 * The base branch's run: the same cases with every fused time multiplied by `factor` (samples, medians),
 * so each speedup is divided by it: PR/base = factor, as the samples the decision resamples say too.
 */
function baseOf(r: ResultsFile, factor: number, drop: string[] = []): ResultsFile {
  const b = structuredClone(r);
  b.cases = b.cases.filter((c) => !drop.includes(c.shape.label));
  for (const c of b.cases) {
    if (c.speedup) {
      const s = c.speedup;
      c.speedup = { ...s, estimate: s.estimate / factor, lo: s.lo / factor, hi: s.hi / factor };
    }
    if (c.timing) {
      c.timing.samples.fused = c.timing.samples.fused.map((x) => x * factor);
      c.timing.fused = { ...c.timing.fused, median: c.timing.fused.median * factor };
    }
  }
  return b;
}

/** "🔴 SLOWER speedup −20.0% [−22.9%, −17.1%], fused time …": the verdict, the speedup's change and its interval. */
function versusBase(cell: string | undefined): { label: string; change: number; lo: number; hi: number } {
  const pct = (s: string) => Number(s.replace('−', '-').replace('±', '').replace('%', ''));
  const m = /^(\S+ \w+) speedup ([−+±][\d.]+%) \[([−+±][\d.]+%), ([−+±][\d.]+%)\]/.exec(cell ?? '');
  if (!m) throw new Error(`not a decision against the base run: ${cell}`);
  return { label: m[1] as string, change: pct(m[2] as string), lo: pct(m[3] as string), hi: pct(m[4] as string) };
}

/** A run with `n` case×shape rows, cycling through the mixed fixture's verdicts, with long titles. */
function manyCases(n: number): ResultsFile {
  const r = structuredClone(mixed);
  r.cases = Array.from({ length: n }, (_, i) => {
    const c = structuredClone(mixed.cases[i % mixed.cases.length] as ResultsFile['cases'][number]);
    c.case = `fused_kernel_${Math.floor(i / 8)}`;
    c.title = `Fused kernel number ${Math.floor(i / 8)} with a long descriptive title`;
    c.key = `${c.case}/${c.shape.label}/fp32`;
    return c;
  });
  return r;
}

const rowOf = (md: string, shape: string) => markdownTables(md)[0]?.rows.find((r) => r[1] === shape);

describe('the PR comment against a base run', () => {
  const md = renderPrComment([{ results: mixed, base: { results: baseOf(mixed, 0.8, ['4M']) } }], {
    runUrl: 'https://github.com/o/r/actions/runs/1',
  });

  test('starts with the hidden marker and says which GPU produced it', () => {
    expect(md.split('\n')[0]).toBe(PR_COMMENT_MARKER);
    expect(md).toContain('GPU: NVIDIA H200. [Workflow run](https://github.com/o/r/actions/runs/1)');
    expect(md).toContain('Measured on **NVIDIA H200** (cuda; driver 580.159.04; CUDA 13.0; compute capability 9.0)');
  });

  test('says, above the table, the commit measured, its counts against the baseline and against the base run', () => {
    const pr = { ...mixed, source: { commit: '4bb25af0c1d2', branch: 'perf/<b>x' } };
    const base = { ...baseOf(mixed, 0.8, ['4M']), source: { commit: '1a2b3c4d5e6f', branch: 'main' } };
    const out = renderPrComment([{ results: pr, base: { results: base } }]);
    expect(out).toContain('2026-11-21 at `4bb25af0c1d2` (perf/&lt;b&gt;x), seed');
    expect(out).toContain('Against the stored baseline: **2 failed or errored** · **1 slower** · 1 ambiguous');
    // Every shape measured in both is 20% slower than in the base run (its fused times ×0.8).
    const versus = out.split('\n').find((l) => l.startsWith('Against the base run')) ?? '';
    expect(versus).toMatch(/^Against the base run at `1a2b3c4d5e6f` \(main\), 2026-11-21: \*\*\d+ slower\*\*/);
    expect(out.indexOf(versus)).toBeLessThan(out.indexOf('| Case |'));
    // A file written before runs named their commit says none.
    expect(md).toMatch(/compute capability 9\.0\), 2026-11-21, seed/);
  });

  test('names the shapes of the base run this run lacks', () => {
    const fewer = structuredClone(mixed);
    fewer.cases = fewer.cases.filter((c) => c.shape.label !== '1M');
    const out = renderPrComment([{ results: fewer, base: { results: baseOf(mixed, 1) } }]);
    expect(out).toContain('> **Not in this run:** 1 shape of the base run: GELU + scale 1M fp32.');
  });

  test('has base speedup, PR speedup, the decision against the base run, baseline and verdict for each case and shape', () => {
    expect(markdownTables(md)[0]?.header).toEqual([
      'Case',
      'Shape',
      'Precision',
      'Base speedup',
      'PR speedup [95% CI]',
      'Δ vs base',
      'Baseline',
      'Verdict vs baseline',
    ]);
    const row = rowOf(md, '32x512x768');
    expect(row?.slice(0, 5)).toEqual(['GELU + scale', '32x512x768', 'fp32', '1.90x', '1.52x [1.50, 1.53]']);
    expect(row?.slice(6)).toEqual(['1.91x', '🔴 SLOWER (−20.4%)']);
    // Δ vs base is the gate's decision on the samples: −20% with a 99% interval around it, wholly below −2%.
    const d = versusBase(row?.[5]);
    expect(d.label).toBe('🔴 SLOWER');
    expect(d.change).toBe(-20);
    expect(d.lo).toBeLessThanOrEqual(-20);
    expect(d.hi).toBeGreaterThanOrEqual(-20);
    expect(d.hi).toBeLessThan(-2);
  });

  test('a run the same as its base is SAME against it where the samples are tight enough, AMBIGUOUS where not', () => {
    const same = renderPrComment([{ results: mixed, base: { results: baseOf(mixed, 1) } }]);
    // 16M kept all its 30 pairs (tight); 1K kept 40 of 16,946 in the fixture, too few for a ±2% call.
    expect(versusBase(rowOf(same, '1K')?.[5]).label).toBe('🟡 AMBIGUOUS');
    const d = versusBase(rowOf(same, '16M')?.[5]);
    expect(d.label).toBe('⚪ SAME');
    expect(d.lo).toBeGreaterThanOrEqual(-2);
    expect(d.hi).toBeLessThanOrEqual(2);
  });

  test('a faster run is FASTER against its base, on the fused time too', () => {
    const faster = renderPrComment([{ results: mixed, base: { results: baseOf(mixed, 1.25) } }]);
    expect(versusBase(rowOf(faster, '32x512x768')?.[5])).toMatchObject({ label: '🟢 FASTER', change: 25 });
  });

  test('a case missing from the base run is new; one not measured there has no delta', () => {
    expect(rowOf(md, '4M')?.slice(3, 6)).toEqual(['new', '1.58x [1.57, 1.59]', '—']);
    expect(rowOf(md, '4K')?.slice(3, 6)).toEqual(['—', '—', '—']);
  });

  test('rows come worst first, by the worse of the verdict and the decision against the base run', () => {
    // Every shape measured in both runs is SLOWER than in the base run, so 16M (AMBIGUOUS against the baseline),
    // 1K (SAME) and 1M (FASTER) come with 32x512x768, before 4M (no baseline, not in the base run).
    expect(markdownTables(md)[0]?.rows.map((r) => r[1])).toEqual([
      '2M',
      '4K',
      '32x512x768',
      '16M',
      '1K',
      '1M',
      '4M',
      '256M',
    ]);
  });

  test('the gate’s messages and the reasons of failed cases follow the table', () => {
    expect(md).toContain('- **GELU + scale 32x512x768 fp32** — SLOWER: speedup 1.52x vs baseline 1.91x');
    expect(md).toContain('- **GELU + scale 2M fp32** — FAILED: fused output\\[1048577\\] = 0.25');
    expect(md).not.toContain('- **GELU + scale 1K fp32**');
  });

  test('every table row has the header’s column count', () => {
    expect(tableProblems(md)).toEqual([]);
  });
});

describe('the PR comment without a base run', () => {
  const md = renderPrComment([
    { results: h200, base: { results: null, why: 'the base branch has no perf results to compare with.' } },
  ]);

  test('says there is no base run and compares with the baseline only', () => {
    expect(md).toContain(
      '> **No base run:** the base branch has no perf results to compare with. This compares with the stored baseline only.',
    );
    expect(markdownTables(md)[0]?.header).toEqual([
      'Case',
      'Shape',
      'Precision',
      'Speedup [95% CI]',
      'Baseline',
      'Verdict vs baseline',
    ]);
    // The footer explains no column the table lacks.
    expect(md).not.toContain('Δ vs base');
    expect(md).toContain('the verdict compares with the stored baseline');
    expect(md.startsWith(`${PR_COMMENT_MARKER}\n`)).toBe(true);
  });
});

describe('the PR comment of several GPUs', () => {
  const v100 = structuredClone(h200);
  v100.device = { ...v100.device, name: 'Tesla V100-SXM2-32GB', slug: 'tesla-v100-sxm2-32gb' };
  const md = renderPrComment(pairWithBases([mixed, v100], [{ results: baseOf(mixed, 1.1) }]));

  test('has a section per GPU, each against the base run of its own device', () => {
    expect(md).toContain('2 GPUs: NVIDIA H200, Tesla V100-SXM2-32GB.');
    const [h, v] = md.split(/^### /m).slice(1);
    expect(h).toMatch(/^NVIDIA H200\n/);
    expect(h).toContain('| Δ vs base |');
    expect(v).toMatch(/^Tesla V100-SXM2-32GB\n/);
    expect(v).toContain("**No base run:** the base branch's perf results include none of Tesla V100-SXM2-32GB.");
    expect(tableProblems(md)).toEqual([]);
  });
});

describe('the PR comment with many cases', () => {
  const big = manyCases(500);
  const md = renderPrComment([{ results: big, base: { results: baseOf(big, 1.02) } }]);

  test(`stays under GitHub’s ${GITHUB_COMMENT_LIMIT}-character limit and says how many rows it left out`, () => {
    expect(md.length).toBeLessThanOrEqual(GITHUB_COMMENT_LIMIT);
    expect(md.split('\n')[0]).toBe(PR_COMMENT_MARKER);
    const shown = markdownTables(md)[0]?.rows.length ?? 0;
    expect(shown).toBeGreaterThan(50);
    expect(shown).toBeLessThan(500);
    expect(md).toContain(
      `_${500 - shown} more rows left out to stay under the size limit; the mildest verdicts went first._`,
    );
    expect(tableProblems(md)).toEqual([]);
  });

  test('keeps the worst verdicts: every failure, then the regressions as room allows', () => {
    const verdicts = (markdownTables(md)[0]?.rows ?? []).map((r) => r[7] ?? '');
    const count = (s: string) => verdicts.filter((v) => v.includes(s)).length;
    expect(count('FAILED')).toBe(63);
    expect(count('ERRORED')).toBe(63);
    // The regressions fill the rest of the room (62 in the fixture; the milder verdicts went first).
    expect(count('SLOWER')).toBe(Math.min(62, verdicts.length - 126));
    expect(count('SLOWER')).toBeGreaterThan(50);
    expect(count('SKIPPED')).toBe(0);
  });

  test('a tighter limit keeps fewer rows but still the worst first', () => {
    const small = renderPrComment([{ results: big, base: { results: null, why: 'none.' } }], { maxChars: 5_000 });
    expect(small.length).toBeLessThanOrEqual(5_000);
    const rows = markdownTables(small)[0]?.rows ?? [];
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r[5]?.includes('FAILED'))).toBe(true);
  });
});

describe('the PR comment of results with hostile text in every field', () => {
  const hostile = hostileResults();
  const runUrl = 'https://github.com/o/r/actions/runs/1';
  const md = renderPrComment([{ results: hostile, base: { results: hostileResults() } }], { runUrl });

  test('shows the text escaped and cut: no tag, link, image, mention or second marker gets through', () => {
    expect(md.split('\n')[0]).toBe(PR_COMMENT_MARKER);
    expect(injections(md, `[Workflow run](${runUrl})`)).toEqual([]);
  });

  test('keeps one row per case, each with the header’s column count', () => {
    expect(markdownTables(md)[0]?.rows).toHaveLength(hostile.cases.length);
    expect(tableProblems(md)).toEqual([]);
  });
});

describe('the PR comment when one GPU or one row carries oversized data', () => {
  const v100 = structuredClone(h200);
  v100.device = { ...v100.device, name: 'Tesla V100-SXM2-32GB', slug: 'tesla-v100-sxm2-32gb' };
  const noBase = { results: null, why: 'none.' } as const;

  test('a GPU with a 100,000-character name no longer empties the comment: its name is cut, every section stays', () => {
    const huge = structuredClone(mixed);
    huge.device = { ...huge.device, name: `NVIDIA ${'H'.repeat(100_000)}`, slug: 'huge' };
    const md = renderPrComment([
      { results: huge, base: noBase },
      { results: v100, base: noBase },
    ]);
    expect(md.length).toBeLessThanOrEqual(GITHUB_COMMENT_LIMIT);
    const [hugeSection, v100Section] = md.split(/^### /m).slice(1);
    expect(hugeSection?.split('\n')[0]).toHaveLength(120);
    expect(markdownTables(hugeSection ?? '')[0]?.rows).toHaveLength(mixed.cases.length);
    expect(markdownTables(v100Section ?? '')[0]?.rows).toHaveLength(h200.cases.length);
  });

  test('one row with a 200,000-character title no longer drops the milder rows after it', () => {
    const long = structuredClone(mixed);
    const slower = long.cases.find((c) => c.gate?.status === 'SLOWER');
    if (slower) slower.title = `GELU + scale ${'x'.repeat(200_000)}`;
    const md = renderPrComment([{ results: long, base: noBase }]);
    const rows = markdownTables(md)[0]?.rows ?? [];
    expect(rows.map((r) => r[1])).toEqual(['2M', '4K', '32x512x768', '16M', '4M', '1M', '1K', '256M']);
    expect(rows[2]?.[0]).toHaveLength(120);
    expect(rows[2]?.[0]?.endsWith('…')).toBe(true);
    expect(md).not.toContain('left out to stay under the size limit');
  });

  test('a GPU section too large even without rows becomes a one-line notice, and the other GPU keeps its section', () => {
    const big = structuredClone(mixed);
    const long = (what: string) => `${what} ${'z'.repeat(5_000)}`;
    big.device = {
      ...big.device,
      name: long('Big GPU'),
      slug: 'big',
      fingerprint: { driver: long('driver'), cudaRuntime: long('cuda'), computeCapability: long('cc') },
    };
    const alone = renderPrComment([{ results: v100, base: noBase }]);
    const maxChars = alone.length + 600;
    const md = renderPrComment(
      [
        { results: big, base: { results: null, why: long('the base branch said') } },
        { results: v100, base: noBase },
      ],
      { maxChars },
    );
    expect(md.length).toBeLessThanOrEqual(maxChars);
    expect(md).toMatch(/^_\*\*Big GPU z+…:\*\* this GPU's section does not fit in a comment even without its table/m);
    const sections = md.split(/^### /m).slice(1);
    expect(sections).toHaveLength(1);
    expect(sections[0]).toMatch(/^Tesla V100-SXM2-32GB\n/);
    expect(markdownTables(md)[0]?.rows).toHaveLength(h200.cases.length);
    expect(tableProblems(md)).toEqual([]);
  });
});

describe('results files left out of the comment', () => {
  test('past ten are counted in one line, so 400 broken files cannot push the results out of the comment', () => {
    const leftOut = Array.from({ length: 400 }, (_, i) => ({
      file: `artifacts/broken-${i}/fusebench-results.json`,
      why: `could not be read: is not valid JSON: ${'x'.repeat(300)}`,
    }));
    const md = renderPrComment([{ results: mixed, base: { results: null, why: 'no base run' } }], { leftOut });
    expect(md.match(/^> \*\*Left out:\*\* `artifacts\/broken-/gm)).toHaveLength(10);
    expect(md).toContain("> **Left out:** 390 more results files (the run's log names each).");
    expect(markdownTables(md)[0]?.rows).toHaveLength(mixed.cases.length);
  });
});
