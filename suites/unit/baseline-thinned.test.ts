// A baseline entry keeps a random 200 of its pairs while its medians and interval come from all of them.
// What `--update-baselines` writes must load again, whatever the distribution of its samples (a CPU run
// in CI wrote a bimodal 1K entry whose kept median sat 11% above the full one, and the old 10% rule
// refused the file it had just written); and an edit that the kept samples contradict is still refused.
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { normal, seedStream, uniform } from '../../src/base/rng.ts';
import { median, medianBand } from '../../src/base/stats.ts';
import { type EntryNumbers, entryContradictions, MAX_BASELINE_PAIRS } from '../../src/gate/baseline-consistency.ts';
import { thin } from '../../src/gate/update.ts';

/** An entry as `--update-baselines` records it: medians and estimate from all pairs, samples thinned. */
function recorded(unfused: number[], fused: number[]): EntryNumbers {
  const [mu, mf] = [median(unfused), median(fused)];
  // The interval at its narrowest (the estimate itself): the strictest case for the ratio check.
  const estimate = mu / mf;
  return {
    unfusedMedianMs: mu,
    fusedMedianMs: mf,
    speedup: { estimate, lo: estimate, hi: estimate },
    sampleCount: unfused.length,
    samples: thin(unfused, fused),
    provenance: { kind: 'measured' },
  };
}

/** A population of pair timings: two modes `gap` apart, jitter, and outliers up to 3x. */
interface Population {
  n: number;
  seed: number;
  base: number;
  gap: number;
  upperShare: number;
  jitter: number;
  outliers: number;
}

/** The indices `thin` keeps of n pairs (it is seeded, so they depend on n alone). */
function keptIndices(n: number): Set<number> {
  const indices = Array.from({ length: n }, (_, i) => i);
  return new Set(thin(indices, indices).unfused);
}

describe('a thinned entry as recorded', () => {
  test('two modes 13% apart, the kept median in the upper and the full one in the lower, loads', () => {
    // 2000 pairs: 1020 in the lower mode (0.0037 ms), 980 in the upper (0.0042 ms); 110 of the 200 kept
    // pairs fall in the upper mode, 1.8 standard deviations (hypergeometric) from the 98 expected.
    const n = 2000;
    const kept = keptIndices(n);
    const z = normal(uniform(7));
    let upperKept = 0;
    let upperRest = 0;
    const unfused = Array.from({ length: n }, (_, i) => {
      const upper = kept.has(i) ? upperKept++ < 110 : upperRest++ < 980 - 110;
      return (upper ? 0.0042 : 0.0037) * (1 + 0.005 * z());
    });
    const fused = Array.from({ length: n }, () => 0.0021 * (1 + 0.01 * z()));
    const e = recorded(unfused, fused);
    const keptMedian = median(e.samples?.unfused ?? []);
    expect(keptMedian / (e.unfusedMedianMs ?? 1)).toBeGreaterThan(1.1);
    expect(entryContradictions(e)).toEqual([]);
  });

  // Any population: two modes of any weight and gap, jitter, outliers up to 3x. The band's odds of a
  // false refusal are at most 9e-8 a side at 200 kept pairs; the seed is fixed so that CI is
  // deterministic all the same.
  const population = fc.record({
    n: fc.integer({ min: MAX_BASELINE_PAIRS + 1, max: 4000 }),
    seed: fc.integer({ min: 0, max: 2 ** 31 }),
    base: fc.double({ min: 1e-4, max: 100, noNaN: true }),
    gap: fc.double({ min: 1, max: 2, noNaN: true }),
    upperShare: fc.double({ min: 0, max: 1, noNaN: true }),
    jitter: fc.double({ min: 0, max: 0.1, noNaN: true }),
    outliers: fc.double({ min: 0, max: 0.1, noNaN: true }),
  });
  const draw = (p: Population, salt: number) => {
    const u = uniform(seedStream(p.seed, 2 * salt));
    const z = normal(uniform(seedStream(p.seed, 2 * salt + 1)));
    return Array.from({ length: p.n }, () => {
      const mode = u() < p.upperShare ? p.base * p.gap : p.base;
      const outlier = u() < p.outliers ? 1 + 2 * u() : 1;
      return mode * Math.exp(p.jitter * z()) * outlier;
    });
  };
  test.prop([population], { numRuns: 300, seed: 0x7415 })('whatever its distribution, it loads', (p) => {
    const e = recorded(draw(p, 1), draw({ ...p, base: p.base / 2 }, 2));
    expect(entryContradictions(e)).toEqual([]);
  });
});

describe('the band of the median of all pairs', () => {
  test('reaches 5 standard deviations of rank (√k / 2 each) either side of the middle, widened for rounding', () => {
    const ranks = (k: number) => Array.from({ length: k }, (_, i) => i + 1);
    // k = 200: ⌈5·√200 / 2⌉ = 36 ranks either side of the middle pair (ranks 100 and 101).
    expect(medianBand(ranks(200))).toEqual([64 * (1 - 1e-4), 137 * (1 + 1e-4)]);
    // k = 199: 36 ranks either side of the middle (rank 100).
    expect(medianBand(ranks(199))).toEqual([64 * (1 - 1e-4), 136 * (1 + 1e-4)]);
    // Below ~22 kept samples it is their whole range.
    expect(medianBand(ranks(9))).toEqual([1 * (1 - 1e-4), 9 * (1 + 1e-4)]);
  });

  test('holds a median stored unrounded beside samples rounded to 5 digits, all equal', () => {
    const e = recorded(Array(1000).fill(0.00123456), Array(1000).fill(0.00061728));
    expect(e.samples?.unfused[0]).toBe(0.0012346);
    expect(entryContradictions(e)).toEqual([]);
  });

  test('is only used for the 200 pairs recording keeps: another count is refused, naming the samples', () => {
    const e = recorded(Array(1000).fill(1), Array(1000).fill(0.5));
    const s = e.samples ?? { unfused: [], fused: [] };
    const fewer = { ...e, samples: { unfused: s.unfused.slice(0, 9), fused: s.fused.slice(0, 9) } };
    expect(entryContradictions(fewer)).toEqual([
      {
        path: ['samples'],
        message: '9 pairs kept of 1000; a recorded entry keeps 200 (every pair up to 200, else a random 200)',
      },
    ]);
  });
});

describe('a thinned entry edited by hand', () => {
  const z = normal(uniform(3));
  const tight = (ms: number) => Array.from({ length: 1000 }, () => ms * (1 + 0.01 * z()));
  const honest = recorded(tight(0.0765), tight(0.0395));

  test('the honest entry loads', () => {
    expect(entryContradictions(honest)).toEqual([]);
  });

  test('a median moved 5% beyond where its kept samples put it is refused, naming the field and the band', () => {
    const [, high] = medianBand(honest.samples?.fused ?? []);
    const fusedMedianMs = high * 1.05;
    // The estimate follows the edit, as a careful hand would make it.
    const estimate = (honest.unfusedMedianMs ?? 0) / fusedMedianMs;
    const e = { ...honest, fusedMedianMs, speedup: { estimate, lo: estimate, hi: estimate } };
    const found = entryContradictions(e).filter((c) => c.path[0] === 'fusedMedianMs');
    expect(found).toHaveLength(1);
    expect(found[0]?.message).toMatch(
      /^0\.0\d+ ms lies outside \[0\.0\d+, 0\.0\d+\], where the entry's 200 kept samples \(of 1000 pairs\) put the median of all pairs$/,
    );
  });

  test('an interval the kept samples rule out is refused, even with no medians stored', () => {
    const { unfusedMedianMs: _u, fusedMedianMs: _f, ...rest } = honest;
    const e = { ...rest, speedup: { estimate: 2.5, lo: 2.45, hi: 2.55 } };
    expect(entryContradictions(e)).toEqual([
      {
        path: ['speedup', 'estimate'],
        message: expect.stringMatching(
          /^2\.5 is contradicted by the entry's samples: its interval \[2\.45, 2\.55\] misses \[1\.9\d+, 1\.9\d+\], where the entry's 200 kept samples \(of 1000 pairs\) put median\(unfused\) \/ median\(fused\)$/,
        ),
      },
    ]);
  });
});
