import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { isTempFile, writeFileAtomic } from '../../src/base/atomic-write.ts';
import { formatJson } from '../../src/base/json-format.ts';
import { median } from '../../src/base/stats.ts';
import { entryContradictions, MAX_BASELINE_PAIRS } from '../../src/gate/baseline-consistency.ts';
import {
  type BaselineEntry,
  baselineFileSchema,
  loadBaselineFile,
  validateBaselineDir,
} from '../../src/gate/baseline-file.ts';
import { outcomeLines, recordBaselines } from '../../src/gate/record-baselines.ts';
import { DELTA_FLOOR, FUSED_TIME_FLOOR } from '../../src/gate/tolerance.ts';
import { thin, updateBaselines } from '../../src/gate/update.ts';
import type { CaseResult, ResultsFile } from '../../src/results/results.ts';
import { measuredCase } from '../support/measured-case.ts';

const v100 = loadBaselineFile('baselines/tesla-v100-sxm2-32gb.json', ['gelu_scale']).data;

function measured(label: string, u: number, f: number, n = 300): CaseResult {
  const us = Array.from({ length: n }, (_, i) => u * (1 + 0.01 * Math.sin(i)));
  const fs = Array.from({ length: n }, (_, i) => f * (1 + 0.01 * Math.cos(i)));
  return measuredCase(label, us, fs);
}

const results = {
  schemaVersion: 1,
  tool: { name: 'fusebench', version: '0.1.0' },
  createdAt: '2026-11-21T23:00:00.000Z',
  command: 'npm run perf -- --update-baselines',
  backendReason: 'test',
  settings: { budgetMs: 3000, minPairs: 30, targetHalfWidth: 0.01, seed: 1 },
  device: {
    backend: 'cuda',
    name: 'Tesla V100-SXM2-32GB',
    slug: 'tesla-v100-sxm2-32gb',
    details: {},
    fingerprint: { driver: '550.54', cudaRuntime: '12.8', maxSmClockMHz: 1530 },
    copyBandwidthGBs: 800,
    freeMemoryBytes: 3e10,
  },
  cases: [
    measured('16M', 0.33, 0.17),
    { ...measured('1K', 1, 1), status: 'skipped', timing: undefined, speedup: undefined },
  ],
} satisfies ResultsFile;

describe('the update flow', () => {
  const { file, changes } = updateBaselines(v100, results, 'abc123');

  test('replaces only the measured entry and keeps every other one', () => {
    expect(Object.keys(file.entries).sort()).toEqual(Object.keys(v100.entries).sort());
    expect(file.entries['gelu_scale/1K/fp32']).toEqual(v100.entries['gelu_scale/1K/fp32']);
    expect(file.entries['gelu_scale/16M/fp32']).toMatchObject({
      fusedMedianMs: expect.closeTo(0.17, 4),
      gating: true,
      provenance: { kind: 'measured', commit: 'abc123', driver: '550.54', cudaRuntime: '12.8', maxSmClockMHz: 1530 },
    });
  });

  test("an entry keeps the result's ungated-speedup reason, and only then", () => {
    const ungated = { ...results, cases: results.cases.map((c) => ({ ...c, ungatedSpeedup: 'host-bound twin' })) };
    expect(updateBaselines(v100, ungated, 'abc123').file.entries['gelu_scale/16M/fp32']?.ungatedSpeedup).toBe(
      'host-bound twin',
    );
    expect(file.entries['gelu_scale/16M/fp32']).not.toHaveProperty('ungatedSpeedup');
  });

  test('lists old → new for each entry it changed, and nothing else', () => {
    expect(changes).toEqual([
      'gelu_scale/16M/fp32: 1.91x, fused 0.1752 ms, δ ±5.0% (reported) → 1.94x, fused 0.1700 ms, δ ±5.0% (default) (measured)',
    ]);
  });

  test('an update the loader would refuse is refused before the file is written, naming the field', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fusebench-refused-'));
    const target = join(dir, 'tesla-v100-sxm2-32gb.json');
    writeFileSync(target, formatJson(v100));
    const before = readFileSync(target, 'utf8');
    // An interval that misses its estimate, as a percentile interval could before it was widened to hold it.
    const good = measured('16M', 0.33, 0.17);
    const iv = good.speedup as NonNullable<CaseResult['speedup']>;
    const broken = { ...good, speedup: { ...iv, lo: iv.estimate * 1.01, hi: iv.estimate * 1.02 } };
    await expect(recordBaselines(target, { ...results, cases: [broken] }, 'abc123')).rejects.toThrow(
      `${target}, as this update would write it, is not valid:\n  entries.gelu_scale/16M/fp32.speedup.estimate: `,
    );
    expect(readFileSync(target, 'utf8')).toBe(before);
    expect(readdirSync(dir)).toEqual(['tesla-v100-sxm2-32gb.json']);
  });

  test('a run that measured nothing creates no file; one entry changed is one entry', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fusebench-empty-'));
    const target = join(dir, 'tesla-v100-sxm2-32gb.json');
    const skipped = { ...results, cases: [results.cases[1] as CaseResult] };
    await expect(recordBaselines(target, skipped, 'abc123')).rejects.toThrow(
      `no shape was measured (every one was skipped or failed), so ${target} was not created`,
    );
    expect(readdirSync(dir)).toEqual([]);
    const outcome = await recordBaselines(target, results, 'abc123');
    expect(outcomeLines(outcome)[0]).toBe(`\nfusebench: created ${target} (1 entry changed)`);
  });

  test('keeps at most 200 pairs, chosen at random, and the file validates', () => {
    expect(file.entries['gelu_scale/16M/fp32']?.samples?.unfused).toHaveLength(MAX_BASELINE_PAIRS);
    expect(thin([1, 2, 3], [4, 5, 6])).toEqual({ unfused: [1, 2, 3], fused: [4, 5, 6] });
    expect(baselineFileSchema.safeParse(JSON.parse(formatJson(file))).success).toBe(true);
  });

  test('writes atomically: the new content replaces the file and no temporary file is left', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fusebench-atomic-'));
    const target = join(dir, 'tesla-v100-sxm2-32gb.json');
    writeFileAtomic(target, formatJson(v100));
    writeFileAtomic(target, formatJson(file));
    expect(readdirSync(dir)).toEqual(['tesla-v100-sxm2-32gb.json']);
    expect(JSON.parse(readFileSync(target, 'utf8')).entries['gelu_scale/16M/fp32'].provenance.commit).toBe('abc123');
  });
});

describe('fields this fusebench does not know', () => {
  test('survive an update (file, device, re-measured entry and untouched entries), and the update names them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fusebench-unknown-'));
    const file = join(dir, 'tesla-v100-sxm2-32gb.json');
    const data = JSON.parse(readFileSync('baselines/tesla-v100-sxm2-32gb.json', 'utf8'));
    data.comment = 'reviewed by the perf team';
    data.device.owner = 'lab 3';
    Object.assign(data.entries['gelu_scale/16M/fp32'], { reviewedBy: 'alice' });
    Object.assign(data.entries['gelu_scale/16M/fp32'].shape, { layout: 'row-major' });
    Object.assign(data.entries['gelu_scale/16M/fp32'].speedup, { method: 'bca' });
    Object.assign(data.entries['gelu_scale/1K/fp32'], { note: 'keep me' });
    Object.assign(data.entries['gelu_scale/1K/fp32'].provenance, { page: 12 });
    writeFileSync(file, JSON.stringify(data));

    const outcome = await recordBaselines(file, results, 'abc123');
    const after = JSON.parse(readFileSync(file, 'utf8'));
    expect(after.comment).toBe('reviewed by the perf team');
    expect(after.device.owner).toBe('lab 3');
    expect(after.entries['gelu_scale/16M/fp32']).toMatchObject({
      reviewedBy: 'alice',
      shape: { layout: 'row-major' },
      provenance: { kind: 'measured', commit: 'abc123' },
    });
    expect(after.entries['gelu_scale/1K/fp32']).toMatchObject({ note: 'keep me', provenance: { page: 12 } });
    expect(outcome.keptUnknown).toEqual([
      'gelu_scale/16M/fp32: reviewedBy, shape.layout',
      'the file: comment',
      'device: owner',
    ]);
    // The old measurement's own fields go with it, and the update says so.
    expect(after.entries['gelu_scale/16M/fp32'].speedup.method).toBeUndefined();
    expect(outcome.droppedUnknown).toEqual(['gelu_scale/16M/fp32: speedup.method']);
    const printed = outcomeLines(outcome).join('\n');
    expect(printed).toContain(
      'kept fields this fusebench does not know:\n    gelu_scale/16M/fp32: reviewedBy, shape.layout',
    );
    expect(printed).toContain(
      'not carried over (unknown fields of a replaced measurement):\n    gelu_scale/16M/fp32: speedup.method',
    );
  });
});

describe('what an update prints from the baseline file', () => {
  test('field names and keys pass through logText: no workflow command, no escape sequence, one line each', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fusebench-hostile-fields-'));
    const file = join(dir, 'tesla-v100-sxm2-32gb.json');
    const data = JSON.parse(readFileSync('baselines/tesla-v100-sxm2-32gb.json', 'utf8'));
    data['\n::error title=pwned::file field\u001b[31m'] = 1;
    Object.assign(data.entries['gelu_scale/1K/fp32'], { '\n##[error]entry field': 2 });
    writeFileSync(file, JSON.stringify(data));
    const printed = outcomeLines(await recordBaselines(file, results, 'abc123'));
    expect(printed.length).toBeGreaterThan(2);
    for (const line of printed.flatMap((l) => l.split('\n'))) {
      expect(line.trimStart()).not.toMatch(/^::/);
      expect(line).not.toContain('##[');
      expect(line).not.toContain('\u001b');
    }
    expect(printed.join('\n')).toContain(':\\:error title=pwned:\\:file field\\x1b[31m');
  });
});

describe('temporary files of atomic writes', () => {
  test('are named .<name>.<pid>.<random>.tmp and recognized as such', () => {
    expect(isTempFile('.nvidia-h200.json.4242.9f8e7d6c.tmp')).toBe(true);
    expect(isTempFile('baselines/.nvidia-h200.json.4242.9f8e7d6c.tmp')).toBe(true);
    expect(isTempFile('nvidia-h200.json')).toBe(false);
    expect(isTempFile('nvidia-h200.json.lock')).toBe(false);
  });

  test('a folder as the target is refused, naming it, before any temporary file is made', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fusebench-atomic-'));
    const target = join(dir, 'target.json');
    mkdirSync(target);
    expect(() => writeFileAtomic(target, '{}')).toThrow(`${target} is a folder; expected the path of a file to write`);
    expect(readdirSync(dir)).toEqual(['target.json']);
  });

  test('and lock files are never read as baseline files', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fusebench-baselines-dir-'));
    writeFileSync(join(dir, 'tesla-v100-sxm2-32gb.json'), readFileSync('baselines/tesla-v100-sxm2-32gb.json'));
    writeFileSync(join(dir, '.tesla-v100-sxm2-32gb.json.4242.9f8e7d6c.tmp'), '{"schemaVersion": 1, "entr');
    writeFileSync(join(dir, 'tesla-v100-sxm2-32gb.json.lock'), '{"pid": 4242}');
    writeFileSync(join(dir, '.editor-backup.json'), 'not json');
    expect(() => validateBaselineDir(dir)).not.toThrow();
  });
});

describe('a baseline recorded from several runs: noise-aware δ', () => {
  const second = {
    ...results,
    createdAt: '2026-11-22T23:00:00.000Z',
    device: { ...results.device, fingerprint: { ...results.device.fingerprint, uuid: 'GPU-2' } },
    cases: [measured('16M', 0.33, 0.1717)],
  } satisfies ResultsFile;
  const one = updateBaselines(v100, results, 'abc123').file;
  const two = updateBaselines(one, second, 'abc123', 'add-run').file;

  test('one run: the between-run noise is unknown, so δ keeps the default 5%', () => {
    expect(one.entries['gelu_scale/16M/fp32']).toMatchObject({
      tolerance: 0.05,
      toleranceSource: 'default',
      method: 'per-call',
      noise: { betweenRuns: null, runs: 1 },
    });
  });

  test('a second run adds its estimate; δ = max(its floor, 3 × the spread between the runs)', () => {
    const e = two.entries['gelu_scale/16M/fp32'];
    expect(e?.runs).toHaveLength(2);
    expect(e?.runs?.[1]?.deviceUuid).toBe('GPU-2');
    // sd of two values is |a − b|/√2: of log fused time 0.17 → 0.1717, of log speedup 0.33/0.17 → 0.33/0.1717.
    const spread = Math.abs(Math.log(0.1717 / 0.17)) / Math.SQRT2;
    expect(e?.noise?.betweenRuns?.fusedTime).toBeCloseTo(spread, 3);
    expect(e?.noise?.betweenRuns?.speedup).toBeCloseTo(spread, 2);
    expect(e?.toleranceSource).toBe('noise');
    // 3 × the spread bounds the log shift; δ is the fraction whose SLOWER edge log(1 − δ) it is.
    const asFraction = (bound: number) => 1 - Math.exp(-bound);
    expect(e?.fusedTimeTolerance).toBeCloseTo(Math.max(FUSED_TIME_FLOOR, asFraction(3 * spread)), 4);
    expect(e?.tolerance).toBeCloseTo(Math.max(DELTA_FLOOR, asFraction(3 * (e?.noise?.betweenRuns?.speedup ?? 0))), 4);
    // Centred on both runs (their geometric mean), not on the latest: its samples and medians moved there.
    const run = (i: number) => e?.runs?.[i] ?? { speedup: Number.NaN, fusedMedianMs: Number.NaN };
    expect(e?.fusedMedianMs).toBeCloseTo(Math.sqrt(run(0).fusedMedianMs * run(1).fusedMedianMs), 10);
    expect(e?.fusedMedianMs).toBeCloseTo(Math.sqrt(0.17 * 0.1717), 3);
    expect(e?.speedup.estimate).toBeCloseTo(Math.sqrt(run(0).speedup * run(1).speedup), 10);
    expect((e?.unfusedMedianMs ?? 0) / (e?.fusedMedianMs ?? 1)).toBeCloseTo(e?.speedup.estimate ?? 0, 10);
    const kept = e?.samples ?? { unfused: [], fused: [] };
    expect(median(kept.fused)).toBeCloseTo(e?.fusedMedianMs ?? 0, 3);
    expect(entryContradictions(e as BaselineEntry)).toEqual([]);
  });

  test('runs as alike as repeated H200 runs of a large shape give the floor', () => {
    const same = { ...second, cases: [measured('16M', 0.33, 0.17017)] } satisfies ResultsFile;
    expect(updateBaselines(one, same, 'abc123', 'add-run').file.entries['gelu_scale/16M/fp32']?.tolerance).toBe(
      DELTA_FLOOR,
    );
  });

  test('replace starts afresh from this run; a δ set by hand survives both modes', () => {
    expect(updateBaselines(two, second, 'abc123', 'replace').file.entries['gelu_scale/16M/fp32']?.runs).toHaveLength(1);
    const hand = structuredClone(two);
    Object.assign(hand.entries['gelu_scale/16M/fp32'] as object, { tolerance: 0.08, toleranceSource: 'hand' });
    for (const mode of ['replace', 'add-run'] as const) {
      expect(updateBaselines(hand, second, 'abc123', mode).file.entries['gelu_scale/16M/fp32']).toMatchObject({
        tolerance: 0.08,
        toleranceSource: 'hand',
      });
    }
  });

  test('the file with runs and noise loads again', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fusebench-runs-'));
    const f = join(dir, 'tesla-v100-sxm2-32gb.json');
    writeFileSync(f, formatJson(two));
    expect(loadBaselineFile(f, ['gelu_scale']).data.entries['gelu_scale/16M/fp32']?.noise?.runs).toBe(2);
  });
});
