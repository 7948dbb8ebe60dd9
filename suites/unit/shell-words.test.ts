// The command a run records is pasted into a shell: every word quoted by shellWord comes back from a real
// shell as it was, whatever it holds (spaces, quotes, $, backslashes, newlines, non-ASCII).
import { spawnSync } from 'node:child_process';
import { fc, test } from '@fast-check/vitest';
import { expect } from 'vitest';
import { plainWords, shellWord } from '../../src/base/shell-words.ts';

/** What `sh` makes of a line of quoted words: each word printed with a NUL after it. */
function shellReads(words: string[]): string[] {
  const line = `printf '%s\\0' ${words.map(shellWord).join(' ')}`;
  const out = spawnSync('sh', ['-c', line], { encoding: 'utf8' });
  expect(out.status, out.stderr).toBe(0);
  return out.stdout.split('\0').slice(0, -1);
}

// A word an argv can hold: no NUL. Options with values (`--x=v`) quote their value only.
const word = fc
  .oneof(
    fc.string({ unit: 'grapheme' }),
    fc.constantFrom("'", "''", '\\', '$HOME', '`id`', 'a b', '\n', '--out-dir=/tmp/a b', '--seed=3', '-'),
    fc.tuple(fc.constantFrom('--out-dir=', '--case='), fc.string()).map(([a, b]) => a + b),
  )
  .filter((w) => !w.includes('\0'));

test.prop([fc.array(word, { minLength: 1, maxLength: 6 })], { numRuns: 60 })(
  'a shell reads back every quoted word as it was',
  (words) => {
    expect(shellReads(words)).toEqual(words);
  },
);

test('plain words stay as they are; others are quoted, an option with a value its value only', () => {
  expect(['--backend', 'cpu', '--dtype=bf16,fp16', 'gelu_scale:4%'].map(shellWord)).toEqual([
    '--backend',
    'cpu',
    '--dtype=bf16,fp16',
    'gelu_scale:4%',
  ]);
  expect(shellWord('')).toBe("''");
  expect(shellWord("it's")).toBe(`'it'\\''s'`);
  expect(shellWord('--out-dir=/tmp/a b')).toBe("--out-dir='/tmp/a b'");
  expect(plainWords('--backend cpu --seed 3')).toBe(true);
  expect(plainWords("--out-dir '/tmp/a b'")).toBe(false);
});
