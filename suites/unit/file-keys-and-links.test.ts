// Keys read from files are data: an entry keyed `__proto__` is kept on load and through
// --update-baselines. A baseline or history file that is a symbolic link is written through to its
// target (the link stays a link, the shared target gets the update); a link loop is refused by name.
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { writeFileAtomic } from '../../src/base/atomic-write.ts';
import { baselineFileSchema, loadBaselineFile } from '../../src/gate/baseline-file.ts';
import { recordBaselines } from '../../src/gate/record-baselines.ts';
import { appendHistory, parseHistory, readHistory } from '../../src/history/history-file.ts';
import { HISTORY_RECORD_VERSION, type HistoryRecord } from '../../src/history/history-record.ts';
import { readJsonFile } from '../../src/results/results.ts';
import { oneShapeResults } from '../support/measured-case.ts';

const tmp = () => mkdtempSync(join(tmpdir(), 'fusebench-keys-'));
const quiet = { warn: () => {} };

describe('keys from files', () => {
  test('a baseline entry keyed __proto__ is loaded as an entry and kept by --update-baselines', async () => {
    const file = join(tmp(), 'test-cpu.json');
    await recordBaselines(file, oneShapeResults('1M', 'first'), 'c1', quiet);
    const json = JSON.parse(readFileSync(file, 'utf8'));
    // As a file would hold it: an own property named __proto__ (an assignment would set the prototype).
    Object.defineProperty(json.entries, '__proto__', {
      value: json.entries['gelu_scale/1M/fp32'],
      enumerable: true,
      writable: true,
      configurable: true,
    });
    writeFileSync(file, JSON.stringify(json));
    expect(readFileSync(file, 'utf8')).toContain('"__proto__"');

    // Read as a key like any other (and refused by the gate's loader: it holds another key's entry).
    expect(Object.keys(readJsonFile(baselineFileSchema, file).entries).sort()).toEqual([
      '__proto__',
      'gelu_scale/1M/fp32',
    ]);
    expect(() => loadBaselineFile(file, ['gelu_scale'])).toThrow("entry '__proto__' holds gelu_scale/1M/fp32");

    await recordBaselines(file, oneShapeResults('2M', 'second'), 'c2', quiet);
    const after = readJsonFile(baselineFileSchema, file).entries;
    expect(Object.keys(after).sort()).toEqual(['__proto__', 'gelu_scale/1M/fp32', 'gelu_scale/2M/fp32']);
  });

  test('a history case keyed __proto__ (or constructor) is kept', () => {
    const line = `{"v":${HISTORY_RECORD_VERSION},"date":"2026-11-29T06:00:00.000Z","commit":"c","device":{"name":"n","slug":"s"},"cases":{"__proto__":{"case":"a","shape":"1","verdict":"SAME"},"constructor":{"case":"b","shape":"1","verdict":"SAME"}}}`;
    const { records, problems } = parseHistory(line, 'h.jsonl');
    expect(problems).toEqual([]);
    expect(Object.keys(records[0]?.record.cases ?? {})).toEqual(['__proto__', 'constructor']);
  });

  test('a history case that is not an object is named with its key', () => {
    const line = `{"v":${HISTORY_RECORD_VERSION},"date":"2026-11-29T06:00:00.000Z","commit":"c","device":{"name":"n","slug":"s"},"cases":{"__proto__":7}}`;
    expect(parseHistory(line, 'h.jsonl').problems).toEqual([
      expect.stringMatching(/^h\.jsonl:1: not a history record \(cases\.__proto__/),
    ]);
  });
});

describe('symbolic links', () => {
  function linked(name: string) {
    const dir = tmp();
    mkdirSync(join(dir, 'shared'));
    mkdirSync(join(dir, 'repo'));
    const target = join(dir, 'shared', name);
    const link = join(dir, 'repo', name);
    symlinkSync(join('..', 'shared', name), link);
    return { dir, target, link };
  }

  test('an atomic write through a link replaces the target and keeps the link', () => {
    const { target, link } = linked('f.json');
    writeFileSync(target, 'old');
    writeFileAtomic(link, 'new');
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(target, 'utf8')).toBe('new');
  });

  test('--update-baselines through a linked baseline file updates the shared file', async () => {
    const { dir, target, link } = linked('test-cpu.json');
    await recordBaselines(target, oneShapeResults('1M', 'first'), 'c1', quiet);
    await recordBaselines(link, oneShapeResults('2M', 'second'), 'c2', quiet);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(Object.keys(loadBaselineFile(target, ['gelu_scale']).data.entries).sort()).toEqual([
      'gelu_scale/1M/fp32',
      'gelu_scale/2M/fp32',
    ]);
    expect(readdirSync(join(dir, 'shared'))).toEqual(['test-cpu.json']);
    expect(readdirSync(join(dir, 'repo'))).toEqual(['test-cpu.json']);
  });

  test('a history append through a link appends to the shared file; a dangling link creates its target', async () => {
    const rec = (commit: string): HistoryRecord => ({
      v: HISTORY_RECORD_VERSION,
      date: '2026-11-29T06:00:00.000Z',
      commit,
      device: { name: 'n', slug: 's' },
      cases: {},
    });
    const { target, link } = linked('s.jsonl');
    await appendHistory(link, rec('a'), quiet); // dangling: the target does not exist yet
    await appendHistory(link, rec('b'), quiet);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readHistory(target).records.map((r) => r.record.commit)).toEqual(['a', 'b']);
  });

  test('a link loop is refused naming the path', () => {
    const dir = tmp();
    symlinkSync(join(dir, 'b'), join(dir, 'a'));
    symlinkSync(join(dir, 'a'), join(dir, 'b'));
    expect(() => writeFileAtomic(join(dir, 'a'), 'x')).toThrow(/a: more than 40 symbolic links to follow/);
  });
});
