// A perf run keeps the results file it finds in its output folder as previous/fusebench-results.json, so
// that the run before an edit can be compared with the run after it; what it says, and when it cannot.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, vi } from 'vitest';
import type { TestModule } from 'vitest/node';
import { PACKAGE_ROOT } from '../../src/base/package-root.ts';
import { shellWord } from '../../src/base/shell-words.ts';
import type { ActionsSink } from '../../src/github/actions-report.ts';
import { readResults } from '../../src/results/results.ts';
import type { PerfMeta } from '../../src/run/perf-meta.ts';
import { parsePerfArgs } from '../../src/run/perf-options.ts';
import { PerfReporter } from '../../src/run/perf-reporter.ts';
import {
  checkPreviousRunKeepable,
  fusebenchCommand,
  keepPreviousRun,
  keptRunLine,
  whyNotComparable,
} from '../../src/run/previous-run.ts';

// A results file that cannot be written, on demand (a full disk): the other files are written as always.
const full = vi.hoisted(() => ({ disk: false }));
vi.mock('../../src/base/atomic-write.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/base/atomic-write.ts')>();
  return {
    ...real,
    writeFileAtomic: (path: string, content: string) => {
      if (full.disk && path.endsWith('fusebench-results.json')) throw new Error('ENOSPC: no space left on device');
      real.writeFileAtomic(path, content);
    },
  };
});

const fresh = () => mkdtempSync(join(tmpdir(), 'fusebench-previous-'));
const SILENT: ActionsSink = { error() {}, warning() {}, notice() {}, setOutput() {} };

test('the results file found is moved to previous/, over the one kept before; none found, nothing is done', () => {
  const dir = fresh();
  expect(keepPreviousRun(dir)).toBeUndefined();
  expect(keepPreviousRun(join(dir, 'not-made-yet'))).toBeUndefined();
  const current = join(dir, 'fusebench-results.json');
  const kept = join(dir, 'previous', 'fusebench-results.json');
  writeFileSync(current, 'run 1');
  expect(keepPreviousRun(dir)).toEqual({ kept });
  expect(readFileSync(kept, 'utf8')).toBe('run 1');
  expect(keepPreviousRun(dir)).toBeUndefined(); // moved, not copied
  writeFileSync(current, 'run 2');
  expect(keepPreviousRun(dir)).toEqual({ kept });
  expect(readFileSync(kept, 'utf8')).toBe('run 2');
  expect(keptRunLine({ kept }, current, true)).toBe(
    `the run before is kept as ${kept}: npx fusebench compare ${kept} ${current}`,
  );
  // This run's results not written: where the old ones went, and no command that would fail.
  expect(keptRunLine({ kept }, current, false)).toBe(
    `the run before is kept as ${kept}; this run's results were not written`,
  );
});

test('a kept run that compare would refuse (unreadable, another GPU, no shape measured in both) gets no compare command', () => {
  const dir = fresh();
  const kept = join(dir, 'previous.json');
  const h200 = readResults(join(import.meta.dirname, '..', 'fixtures', 'h200-results.json'));
  writeFileSync(kept, JSON.stringify(h200));
  expect(whyNotComparable({ kept }, h200)).toBeUndefined();
  const other = { ...h200, cases: h200.cases.map((c) => ({ ...c, key: `other/${c.key}` })) };
  expect(whyNotComparable({ kept }, other)).toBe('no shape measured in both');
  expect(whyNotComparable({ kept }, { ...h200, device: { ...h200.device, slug: 'tesla-v100-sxm2-32gb' } })).toBe(
    'it measured NVIDIA H200',
  );
  writeFileSync(kept, 'run 1');
  expect(whyNotComparable({ kept }, h200)).toBe('it cannot be read as a results file');
  expect(keptRunLine({ kept }, 'now.json', true, 'no shape measured in both')).toBe(
    `the run before is kept as ${kept} (not comparable with this run: no shape measured in both)`,
  );
});

test('a link in the results file’s place is kept as a link, a folder left alone; a blocked previous/ is a warning', () => {
  // Left in place, the link had been written through: this run's results over the file it points to.
  const linked = fresh();
  writeFileSync(join(linked, 'elsewhere.json'), '{}');
  symlinkSync(join(linked, 'elsewhere.json'), join(linked, 'fusebench-results.json'));
  expect(keepPreviousRun(linked)).toEqual({ kept: join(linked, 'previous', 'fusebench-results.json') });
  expect(readlinkSync(join(linked, 'previous', 'fusebench-results.json'))).toBe(join(linked, 'elsewhere.json'));
  expect(readFileSync(join(linked, 'elsewhere.json'), 'utf8')).toBe('{}');
  const folder = fresh();
  mkdirSync(join(folder, 'fusebench-results.json'));
  expect(keepPreviousRun(folder)).toBeUndefined();
  const blocked = fresh();
  writeFileSync(join(blocked, 'fusebench-results.json'), 'run');
  writeFileSync(join(blocked, 'previous'), 'a file, not a folder');
  const r = keepPreviousRun(blocked);
  expect(r).toMatchObject({
    failure: expect.stringMatching(/fusebench-results\.json could not be kept as .*previous/),
  });
  expect(keptRunLine(r, join(blocked, 'fusebench-results.json'), true)).toMatch(
    /^fusebench: warning: .* could not be kept/,
  );
  expect(readFileSync(join(blocked, 'fusebench-results.json'), 'utf8')).toBe('run'); // still where it was
});

test('perf checks before it measures that the run before can be kept; no run before, nothing to check', () => {
  const dir = fresh();
  checkPreviousRunKeepable(dir);
  writeFileSync(join(dir, 'fusebench-results.json'), 'run');
  checkPreviousRunKeepable(dir);
  // The check makes no previous/: a run refused or stopped before its end leaves no empty folder behind.
  expect(readdirSync(dir)).toEqual(['fusebench-results.json']);
  mkdirSync(join(dir, 'previous'));
  // A link there is replaced by the move, not followed: the check makes nothing where it points.
  const away = join(fresh(), 'not', 'made', 'f.json');
  symlinkSync(away, join(dir, 'previous', 'fusebench-results.json'));
  checkPreviousRunKeepable(dir);
  expect(existsSync(join(away, '..'))).toBe(false);
  rmSync(join(dir, 'previous', 'fusebench-results.json'));
  mkdirSync(join(dir, 'previous', 'fusebench-results.json'));
  expect(() => checkPreviousRunKeepable(dir)).toThrow(
    `the run ${join(dir, 'fusebench-results.json')} holds could not be kept as ${join(dir, 'previous', 'fusebench-results.json')}: ${join(dir, 'previous', 'fusebench-results.json')} is a folder`,
  );
});

test('the compare command quotes a path a shell would split, and a path cannot carry a workflow command', () => {
  const line = keptRunLine({ kept: "/tmp/my runs/it's/previous/fusebench-results.json" }, '/tmp/my runs/x.json', true);
  expect(line).toBe(
    "the run before is kept as /tmp/my runs/it's/previous/fusebench-results.json: npx fusebench compare '/tmp/my runs/it'\\''s/previous/fusebench-results.json' '/tmp/my runs/x.json'",
  );
  expect(keptRunLine({ kept: 'a\n::error::x/previous/fusebench-results.json' }, 'b', true)).not.toMatch(/\n|^::/m);
  // A control character in a path: shown escaped, so no command to paste is offered (it would name another path).
  expect(
    keptRunLine({ kept: '/tmp/d\nx/previous/fusebench-results.json' }, '/tmp/d\nx/fusebench-results.json', true),
  ).toBe(
    'the run before is kept as /tmp/d\\nx/previous/fusebench-results.json; compare the two with fusebench compare (their paths hold control characters, which no command to paste keeps)',
  );
  // Outside fusebench's checkout npx would look in the registry: the path of its bin instead.
  expect(fusebenchCommand(PACKAGE_ROOT)).toBe('npx fusebench');
  expect(fusebenchCommand(join(PACKAGE_ROOT, 'perf-out'))).toBe('npx fusebench');
  expect(fusebenchCommand('/')).toBe(`node ${shellWord(join(PACKAGE_ROOT, 'bin', 'fusebench.mjs'))}`);
  // A relative path that starts with a dash is not read as a flag.
  expect(keptRunLine({ kept: '-o/previous/fusebench-results.json' }, '-o/fusebench-results.json', true)).toMatch(
    / compare \.\/-o\/previous\/fusebench-results\.json \.\/-o\/fusebench-results\.json$/,
  );
});

test('the reporter: when this run’s results cannot be written, it still says where the run before went', async () => {
  const printed: string[] = [];
  vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => {
    printed.push(a.join(' '));
  });
  vi.spyOn(console, 'warn').mockImplementation(() => {});
  const mixed = readResults(join(import.meta.dirname, '..', 'fixtures', 'h200-mixed-verdicts.json'));
  const out = fresh();
  const options = parsePerfArgs(['--out-dir', out], { seed: 1 }) as NonNullable<ReturnType<typeof parsePerfArgs>>;
  const tests = mixed.cases.map((result) => {
    const meta: PerfMeta = { result, device: mixed.device, backendReason: mixed.backendReason, budgetMs: 3000 };
    return { meta: () => ({ fusebench: meta }) };
  });
  const run = async () => {
    const reporter = new PerfReporter(options, '0.1.0', { sink: SILENT, env: {} });
    await reporter.onTestRunEnd([{ children: { allTests: () => tests }, errors: () => [] }] as unknown as TestModule[]);
    return reporter;
  };
  await run();
  full.disk = true;
  try {
    const second = await run();
    expect(second.writeFailures.map((f) => f.file)).toEqual([join(out, 'fusebench-results.json')]);
  } finally {
    full.disk = false;
    vi.restoreAllMocks();
  }
  const kept = join(out, 'previous', 'fusebench-results.json');
  expect(printed).toContain(`the run before is kept as ${kept}; this run's results were not written`);
  // The fixture's cases, whose samples were cut: read as JSON (a run never writes samplesThinned; see actions-report).
  expect(JSON.parse(readFileSync(kept, 'utf8')).cases).toHaveLength(mixed.cases.length);
});

test('the reporter never writes over a run before that it could not keep: that file is a write failure', async () => {
  vi.spyOn(console, 'log').mockImplementation(() => {});
  vi.spyOn(console, 'warn').mockImplementation(() => {});
  const mixed = readResults(join(import.meta.dirname, '..', 'fixtures', 'h200-mixed-verdicts.json'));
  const out = fresh();
  const before = join(out, 'fusebench-results.json');
  writeFileSync(before, 'the run before');
  // previous/ blocked after perf's check (another process, a full disk): the move fails at the end of the run.
  mkdirSync(join(out, 'previous', 'fusebench-results.json'), { recursive: true });
  const options = parsePerfArgs(['--out-dir', out], { seed: 1 }) as NonNullable<ReturnType<typeof parsePerfArgs>>;
  const tests = mixed.cases.map((result) => {
    const meta: PerfMeta = { result, device: mixed.device, backendReason: mixed.backendReason, budgetMs: 3000 };
    return { meta: () => ({ fusebench: meta }) };
  });
  try {
    const reporter = new PerfReporter(options, '0.1.0', { sink: SILENT, env: {} });
    await reporter.onTestRunEnd([{ children: { allTests: () => tests }, errors: () => [] }] as unknown as TestModule[]);
    expect(reporter.writeFailures).toEqual([
      { file: before, message: 'left as it was: it holds the run before, which could not be kept' },
    ]);
  } finally {
    vi.restoreAllMocks();
  }
  expect(readFileSync(before, 'utf8')).toBe('the run before');
  expect(readFileSync(join(out, 'BENCHMARK_RESULTS.md'), 'utf8')).toContain('NVIDIA H200'); // the others written
});
