// readJson (src/base/json-read.ts): the file named in every error, and a key that one object holds twice refused;
// a path that is no regular file (a device, a named pipe, a folder) refused before it is read (read-text.ts).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { duplicateKey, MAX_JSON_DEPTH, readJson } from '../../src/base/json-read.ts';

describe('duplicateKey', () => {
  test.each([
    ['{"a": 1, "a": 2}', 'a'],
    ['{"entries": {"gelu_scale/1K/fp32": {}, "x": [], "gelu_scale/1K/fp32": {}}}', 'entries["gelu_scale/1K/fp32"]'],
    ['{"cases": [{"n": 1}, {"n": 2, "m": {"k": 1, "k": 2}}]}', 'cases[1].m.k'],
    ['[[], [{"q\\"{,": 1, "q\\"{,": 2}]]', '[1][0]["q\\"{,"]'],
  ])('finds the first key held twice in %s, with its path', (text, path) => {
    expect(duplicateKey(text)).toBe(path);
  });

  test.each([
    '{"a": {"k": 1}, "b": {"k": 1}}',
    '[{"k": 1}, {"k": 2}]',
    '{"s": "{\\"a\\": 1, \\"a\\": 2}", "t": ",}]"}',
  ])('passes %s: the same key in two objects, or keys inside a string', (text) => {
    expect(duplicateKey(text)).toBeUndefined();
  });

  test.prop([fc.jsonValue()])('finds nothing in what JSON.stringify writes', (value) => {
    expect(duplicateKey(JSON.stringify(value, null, 1))).toBeUndefined();
  });
});

describe('readJson', () => {
  test('a baseline file with an entry twice (a merge conflict resolved by hand) is refused, naming file and entry', () => {
    const text = readFileSync('baselines/tesla-v100-sxm2-32gb.json', 'utf8');
    const key = Object.keys(JSON.parse(text).entries)[0] as string;
    const entry = text.slice(text.indexOf(`    ${JSON.stringify(key)}: {`), text.indexOf('\n    },\n') + 7);
    const file = join(mkdtempSync(join(tmpdir(), 'fusebench-json-')), 'v100.json');
    writeFileSync(file, text.replace(entry, `${entry}${entry}`));
    expect(() => readJson(file)).toThrow(
      `${file} is not valid: entries[${JSON.stringify(key)}] appears twice in one object (a merge conflict resolved by hand?); JSON would keep only the last`,
    );
  });

  test('the committed baseline files read as they are', () => {
    for (const name of ['nvidia-h100-80gb-hbm3.json', 'nvidia-h200.json', 'tesla-v100-sxm2-32gb.json']) {
      expect(readJson(join('baselines', name))).toEqual(JSON.parse(readFileSync(join('baselines', name), 'utf8')));
    }
  });

  test('a byte-order mark (an editor’s) is read past, not refused as an invisible token', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'fusebench-json-')), 'bom.json');
    writeFileSync(file, '\ufeff{"a": 1}');
    expect(readJson(file)).toEqual({ a: 1 });
  });

  test('nesting deeper than any file fusebench writes is refused naming where, before anything walks it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fusebench-json-'));
    const nested = (depth: number) => `{"entries": {"k": ${'['.repeat(depth - 2)}${']'.repeat(depth - 2)}}}`;
    writeFileSync(join(dir, 'ok.json'), nested(MAX_JSON_DEPTH));
    expect(() => readJson(join(dir, 'ok.json'))).not.toThrow();
    writeFileSync(join(dir, 'deep.json'), nested(200_000));
    expect(() => readJson(join(dir, 'deep.json'))).toThrow(
      new RegExp(`deep\\.json is not valid: entries\\.k(\\[0\\])+ nests deeper than ${MAX_JSON_DEPTH} levels`),
    );
  });

  test('a file larger than a results or baseline file can be is refused by its size, before it is read', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'fusebench-json-')), 'huge.json');
    writeFileSync(file, '');
    truncateSync(file, 65 * 1024 * 1024); // sparse: nothing is written
    expect(() => readJson(file)).toThrow(
      `Cannot read ${file}: ${65 * 1024 * 1024} bytes, more than the ${64 * 1024 * 1024} such a file can be`,
    );
  });

  test('a device, a named pipe or a folder is refused by name at once, not read until memory or patience runs out', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fusebench-json-'));
    const fifo = join(dir, 'pipe.json');
    execFileSync('mkfifo', [fifo]);
    expect(() => readJson('/dev/zero')).toThrow('Cannot read /dev/zero: it is a device, not a file');
    expect(() => readJson(fifo)).toThrow(`Cannot read ${fifo}: it is a named pipe, not a file`);
    expect(() => readJson(dir)).toThrow(`Cannot read ${dir}: it is a folder, not a file`);
    expect(() => readJson(join(dir, 'missing.json'))).toThrow(/^Cannot read .*missing\.json: ENOENT/);
  });
});
