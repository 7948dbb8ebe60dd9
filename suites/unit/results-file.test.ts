// A broken results file is an error naming the file and the field; a broken base run is "no base run".
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { loadBaseRun, readGpuResults } from '../../src/report/load-runs.ts';
import { MAX_PAIRS, readResults } from '../../src/results/results.ts';

const fixture = join(import.meta.dirname, '..', 'fixtures', 'h200-results.json');
const text = readFileSync(fixture, 'utf8');
const dir = mkdtempSync(join(tmpdir(), 'fusebench-results-'));

type Path = (string | number)[];

/**
 * Writes a copy of the H200 fixture (or of the results file `source` holds) with the value at `path` replaced (or
 * deleted when undefined); returns its path.
 */
function edited(name: string, path: Path, value: unknown, source = text): string {
  const json: unknown = JSON.parse(source);
  let node = json as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  const last = path[path.length - 1] as string | number;
  if (value === undefined) delete node[last];
  else node[last] = value;
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(json));
  return file;
}

const reEscape = (s: string) => s.replace(/[.[\]]/g, '\\$&');

describe('reading a results file', () => {
  test('the recorded fixtures are valid', () => {
    expect(readResults(fixture).device.name).toBe('NVIDIA H200');
    expect(readResults(join(import.meta.dirname, '..', 'fixtures', 'h200-mixed-verdicts.json')).cases).toHaveLength(8);
  });

  test.each([
    ['a hand-edited number', ['cases', 2, 'timing', 'fused', 'median'], 'fast', 'cases[2].timing.fused.median'],
    ['an old schemaVersion', ['schemaVersion'], 0, 'schemaVersion'],
    ['a missing field', ['device', 'slug'], undefined, 'device.slug'],
    ['an unknown verdict', ['cases', 0, 'gate'], { status: 'WORSE' }, 'cases[0].gate.status'],
    ['a copy bandwidth of zero', ['device', 'copyBandwidthGBs'], 0, 'device.copyBandwidthGBs'],
    ['a negative matrix peak', ['device', 'matrixPeakTFlops'], { bf16: -5 }, 'device.matrixPeakTFlops.bf16'],
    // Samples the statistics cannot pair, or times no run measures: refused here, not as NaN in a report or
    // as a message naming neither file nor field from the bootstrap.
    ['no samples', ['cases', 2, 'timing', 'samples'], { unfused: [], fused: [] }, 'cases[2].timing.samples.unfused'],
    ['unequal samples', ['cases', 2, 'timing', 'samples', 'fused'], [1, 2], 'cases[2].timing.samples'],
    ['a negative sample', ['cases', 2, 'timing', 'samples', 'fused', 0], -1, 'cases[2].timing.samples.fused[0]'],
    ['an absurd sample', ['cases', 2, 'timing', 'samples', 'fused', 0], 1e308, 'cases[2].timing.samples.fused[0]'],
    ['a zero median', ['cases', 2, 'timing', 'fused', 'median'], 0, 'cases[2].timing.fused.median'],
    // Each time in range, but a subnormal one: compare said "0.00x (not a speedup), −100.0% [−NaN%, −NaN%]".
    [
      'a subnormal sample',
      ['cases', 2, 'timing', 'samples', 'unfused', 0],
      5e-324,
      'cases[2].timing.samples.unfused[0]',
    ],
    // A pair whose ratio is no speedup a file may hold (a day against a microsecond).
    [
      'a pair a day apart',
      ['cases', 2, 'timing', 'samples', 'fused', 1],
      86_400_000,
      'cases[2].timing.samples.unfused[1]',
    ],
    // A speedup no run measures: it reached compare and the comment as +Infinity% or −NaN%.
    ['a zero speedup', ['cases', 2, 'speedup', 'estimate'], 0, 'cases[2].speedup.estimate'],
    ['a negative speedup', ['cases', 2, 'speedup', 'lo'], -5, 'cases[2].speedup.lo'],
    ['an interval without its estimate', ['cases', 2, 'speedup', 'hi'], 1.5, 'cases[2].speedup'],
    ['a confidence of 2', ['cases', 2, 'speedup', 'confidence'], 2, 'cases[2].speedup.confidence'],
    // Shares and rates no model or run gives: they printed "NaN% saved" and "-Infinity%".
    ['a variant of zero bytes', ['cases', 2, 'traffic', 'unfused', 'bytes'], 0, 'cases[2].traffic.unfused.bytes'],
    ['a negative bandwidth', ['cases', 2, 'fusedGBs'], -3, 'cases[2].fusedGBs'],
    // A measured case without its timing was listed as "not measured in both (base measured, head measured)".
    ['a measured case without its timing', ['cases', 2, 'timing'], undefined, 'cases[2]'],
    // More pairs than perf takes: every bootstrap of them would take minutes (500,000 pairs: 101 s).
    [
      'too many samples',
      ['cases', 2, 'timing', 'samples'],
      { unfused: Array(MAX_PAIRS + 1).fill(1), fused: Array(MAX_PAIRS + 1).fill(1) },
      'cases[2].timing.samples.unfused',
    ],
  ] as [string, Path, unknown, string][])('%s is refused naming the file and the field', (what, path, value, field) => {
    const file = edited(`${what.replace(/ /g, '-')}.json`, path, value);
    expect(() => readResults(file)).toThrow(new RegExp(`${reEscape(file)} is not valid:\\n {2}${reEscape(field)}: `));
  });

  test('a sample array left empty in a file of every pair is refused naming the field, not by the checks against the samples', () => {
    // The checks against the samples (results-consistency.ts) wait for the samples to be valid: on a file that
    // keeps every pair (no samplesThinned), they threw "median of no samples", naming neither file nor field.
    const full = readFileSync(join(import.meta.dirname, '..', 'fixtures', 'h200-gpt2-decode-run.json'), 'utf8');
    expect(JSON.parse(full).samplesThinned).toBeUndefined();
    const file = edited('one-variant-without-samples.json', ['cases', 0, 'timing', 'samples', 'fused'], [], full);
    expect(() => readResults(file)).toThrow(
      new RegExp(
        `${reEscape(file)} is not valid:\\n {2}cases\\[0\\]\\.timing\\.samples\\.fused: expected at least one sample`,
      ),
    );
  });

  test('a case/shape/precision twice (a hand-merged file), or a key that is not its case/shape/precision, is refused by name', () => {
    // The 16M row relabelled 1K: compare had judged the 1K row against the 16M one (SLOWER, exit 1).
    const twice = edited('twice.json', ['cases', 3, 'shape', 'label'], '1K');
    expect(() => readResults(twice)).toThrow(
      `${twice} is not valid:\n  cases[3].key: expected "gelu_scale/1K/fp32" (case/shape/precision)\n  cases[3]: "gelu_scale/1K/fp32" appears twice, as cases[0] and cases[3]`,
    );
    const json = JSON.parse(text);
    json.cases[3] = { ...json.cases[0] };
    writeFileSync(twice, JSON.stringify(json));
    expect(() => readResults(twice)).toThrow(`${twice} is not valid:\n  cases[3]: "gelu_scale/1K/fp32" appears twice`);
    const renamed = edited('renamed.json', ['cases', 1, 'key'], 'gelu_scale/2M/fp32');
    expect(() => readResults(renamed)).toThrow(
      `${renamed} is not valid:\n  cases[1].key: expected "gelu_scale/1M/fp32" (case/shape/precision)`,
    );
  });

  // compare takes each case's δ from the head file's gate: δ = −0.5 made a file compared with itself SLOWER in every
  // case, δ = 2 AMBIGUOUS. It must be what --delta accepts, 0 < δ < 1.
  const gated = readFileSync(join(import.meta.dirname, '..', 'fixtures', 'h200-gate-run.json'), 'utf8');
  test.each([
    ['a negative δ', ['cases', 0, 'gate', 'speedup', 'delta'], -0.5, 'cases[0].gate.speedup.delta'],
    ['a δ of 2', ['cases', 0, 'gate', 'fusedTime', 'delta'], 2, 'cases[0].gate.fusedTime.delta'],
    ['a zero baseline', ['cases', 0, 'gate', 'speedup', 'baseline'], 0, 'cases[0].gate.speedup.baseline'],
    ['a decision interval upside down', ['cases', 0, 'gate', 'speedup', 'diff', 'lo'], 9, 'cases[0].gate.speedup.diff'],
  ] as [string, Path, unknown, string][])(
    'in the gate, %s is refused naming the file and the field',
    (what, path, value, field) => {
      const file = edited(`${what.replace(/ /g, '-')}.json`, path, value, gated);
      expect(() => readResults(file)).toThrow(new RegExp(`${reEscape(file)} is not valid:\\n {2}${reEscape(field)}: `));
    },
  );

  test.each([
    [
      2,
      'written by a newer fusebench (schema 2; this one reads 1): update fusebench (git pull, then npm ci) to read it',
    ],
    [
      0,
      'written by an older fusebench (schema 0; this one reads 1): run `npm run perf` again with this fusebench to write a current results file',
    ],
  ])(
    'a results file of schemaVersion %d says whether it is newer or older and what to do, and nothing else',
    (v, says) => {
      const file = edited(`schema-${v}.json`, ['schemaVersion'], v);
      expect(() => readResults(file)).toThrow(`${file} is not valid:\n  schemaVersion: ${says}`);
      const json = JSON.parse(readFileSync(file, 'utf8'));
      delete json.device;
      writeFileSync(file, JSON.stringify(json));
      expect(() => readResults(file)).not.toThrow(/device/);
    },
  );

  test('a truncated file is refused naming the file', () => {
    const file = join(dir, 'truncated.json');
    writeFileSync(file, text.slice(0, text.length / 2));
    expect(() => readResults(file)).toThrow(`${file} is not valid JSON`);
  });

  test('a missing file is refused naming the file', () => {
    expect(() => readResults(join(dir, 'absent.json'))).toThrow(/Cannot read .*absent\.json/);
  });

  test('of two runs of one GPU, the newer is read and the older left out with why, in either order', () => {
    const older = edited('older-h200.json', ['createdAt'], '2026-11-21T22:28:02.000Z');
    const newer = edited('newer-h200.json', ['createdAt'], '2026-11-29T06:00:00.000Z');
    const why = `is another run of NVIDIA H200 (made 2026-11-21T22:28:02.000Z), not newer than ${newer}: one run a GPU is kept`;
    for (const files of [
      [older, newer],
      [newer, older],
    ]) {
      const { runs, leftOut } = readGpuResults(files);
      expect(runs.map((r) => r.createdAt)).toEqual(['2026-11-29T06:00:00.000Z']);
      expect(leftOut).toEqual([{ file: older, why }]);
    }
    // Made at the same time: the one given last is kept.
    const twin = edited('twin-h200.json', ['createdAt'], '2026-11-29T06:00:00.000Z');
    expect(readGpuResults([newer, twin]).leftOut).toEqual([
      {
        file: newer,
        why: `is another run of NVIDIA H200 (made 2026-11-29T06:00:00.000Z), not newer than ${twin}: one run a GPU is kept`,
      },
    ]);
  });

  test('of several GPUs’ files, one that cannot be read is set aside with why, and the others are read', () => {
    const file = join(dir, 'cut-for-merge.json');
    writeFileSync(file, text.slice(0, 100));
    const { runs, leftOut } = readGpuResults([file, fixture]);
    expect(runs.map((r) => r.device.name)).toEqual(['NVIDIA H200']);
    expect(leftOut).toEqual([{ file, why: expect.stringMatching(/^could not be read: is not valid JSON: /) }]);
  });
});

describe('reading the base run', () => {
  test('a missing or broken base is no base run, with the reason', () => {
    expect(loadBaseRun(undefined)).toEqual({
      results: null,
      why: 'the base branch has no perf results to compare with.',
    });
    expect(loadBaseRun(join(dir, 'absent.json')).why).toMatch(/results file `.*absent\.json` does not exist/);
    const old = edited('base-old.json', ['schemaVersion'], 0);
    expect(loadBaseRun(old).why).toMatch(/could not be read \(.*base-old\.json is not valid: schemaVersion: /);
  });

  test('a valid base is read', () => {
    expect(loadBaseRun(fixture).results?.device.slug).toBe('nvidia-h200');
  });
});
