// writeFileAtomic when the write fails part-way: the error reaches the caller, the old file is intact and no
// temporary file is left beside it.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test, vi } from 'vitest';

const failing = vi.hoisted(() => ({ rename: false, write: false }));

vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const fail = (what: string) =>
    Object.assign(new Error(`ENOSPC: no space left on device, ${what}`), { code: 'ENOSPC' });
  return {
    ...fs,
    renameSync: (...args: Parameters<typeof fs.renameSync>) => {
      if (failing.rename) throw fail('rename');
      return fs.renameSync(...args);
    },
    writeFileSync: (...args: Parameters<typeof fs.writeFileSync>) => {
      if (failing.write && typeof args[0] === 'number') throw fail('write');
      return fs.writeFileSync(...args);
    },
  };
});

const { writeFileAtomic } = await import('../../src/base/atomic-write.ts');

afterEach(() => {
  failing.rename = false;
  failing.write = false;
});

describe('writeFileAtomic when the write fails', () => {
  test.each(['write', 'rename'] as const)('a failed %s leaves the old file and no temporary file', (step) => {
    const dir = mkdtempSync(join(tmpdir(), 'fusebench-atomic-'));
    const file = join(dir, 'baseline.json');
    writeFileSync(file, 'old');
    failing[step] = true;
    expect(() => writeFileAtomic(file, 'new')).toThrow(`ENOSPC: no space left on device, ${step}`);
    expect(readFileSync(file, 'utf8')).toBe('old');
    expect(readdirSync(dir)).toEqual(['baseline.json']);
  });

  test('the same write succeeds once the failure is gone', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fusebench-atomic-'));
    const file = join(dir, 'baseline.json');
    writeFileSync(file, 'old');
    writeFileAtomic(file, 'new');
    expect(readFileSync(file, 'utf8')).toBe('new');
    expect(readdirSync(dir)).toEqual(['baseline.json']);
  });

  test('an error names the file asked for, not the hidden temporary file beside it', () => {
    // /proc refuses new files: the open of the temporary file fails (ENOENT), and the message named it.
    let message = '';
    try {
      writeFileAtomic('/proc/fusebench-comment.md', 'x');
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toContain("'/proc/fusebench-comment.md'");
    expect(message).not.toContain('.tmp');
  });
});
