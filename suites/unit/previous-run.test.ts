// A perf run keeps the results file it finds in its output folder as previous/fusebench-results.json, so
// that the run before an edit can be compared with the run after it; what it says, and when it cannot.
import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { keepPreviousRun, keptRunLine } from '../../src/run/previous-run.ts';

const fresh = () => mkdtempSync(join(tmpdir(), 'fusebench-previous-'));

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

test('a link or a folder in the results file’s place is left alone; a blocked previous/ is a warning, not a crash', () => {
  const linked = fresh();
  writeFileSync(join(linked, 'elsewhere.json'), '{}');
  symlinkSync(join(linked, 'elsewhere.json'), join(linked, 'fusebench-results.json'));
  expect(keepPreviousRun(linked)).toBeUndefined();
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

test('the compare command quotes a path a shell would split, and a path cannot carry a workflow command', () => {
  const line = keptRunLine({ kept: "/tmp/my runs/it's/previous/fusebench-results.json" }, '/tmp/my runs/x.json', true);
  expect(line).toBe(
    "the run before is kept as /tmp/my runs/it's/previous/fusebench-results.json: npx fusebench compare '/tmp/my runs/it'\\''s/previous/fusebench-results.json' '/tmp/my runs/x.json'",
  );
  expect(keptRunLine({ kept: 'a\n::error::x/previous/fusebench-results.json' }, 'b', true)).not.toMatch(/\n|^::/m);
  // A relative path that starts with a dash is not read as a flag.
  expect(keptRunLine({ kept: '-o/previous/fusebench-results.json' }, '-o/fusebench-results.json', true)).toMatch(
    / compare \.\/-o\/previous\/fusebench-results\.json \.\/-o\/fusebench-results\.json$/,
  );
});
