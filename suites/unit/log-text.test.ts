// One escaping function for consoles and job logs: a file's string never starts a workflow command,
// never moves the terminal, and never adds a line; the CLIs print files' strings only through it.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { logLines, logText } from '../../src/base/log-text.ts';
import { HISTORY_RECORD_VERSION } from '../../src/history/history-record.ts';
import { readResults } from '../../src/results/results.ts';

const root = join(import.meta.dirname, '..', '..');
const NODE_ARGS = ['--experimental-strip-types', '--no-warnings=ExperimentalWarning'];
// A line the Actions runner would read as a command: `::name` after optional whitespace, or the older
// `##[name]` anywhere in the line.
const COMMAND = /^\s*::|##\[/m;
// eslint-style: control characters (C0, DEL, C1) and the bidirectional controls.
// biome-ignore lint/suspicious/noControlCharactersInRegex: that is what it looks for.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\p{Cf}]/u;

describe('logText', () => {
  test.each([
    ['a workflow command after a newline', 'H200\n::error title=x::pwned', 'H200\\n:\\:error title=x:\\:pwned'],
    ['add-mask', '::add-mask::secret', ':\\:add-mask:\\:secret'],
    ['stop-commands', '  ::stop-commands::tok', '  :\\:stop-commands:\\:tok'],
    ['the older form', 'x ##[set-env name=A]1', 'x #\\#[set-env name=A]1'],
    ['a terminal escape', 'red \x1b[31mtext\x1b[0m', 'red \\x1b[31mtext\\x1b[0m'],
    ['a carriage return that would overwrite the line', 'ok\rFAILED', 'ok\\rFAILED'],
    ['a C1 control (CSI)', 'a\u009b2Jb', 'a\\x9b2Jb'],
    ['a bidirectional override', 'abc\u202edef', 'abc\\u{202e}def'],
    ['a byte-order mark and a zero-width space', '\ufeffNVIDIA\u200b H200', '\\u{feff}NVIDIA\\u{200b} H200'],
    ['plain text', 'NVIDIA H200 (gelu_scale 16M)', 'NVIDIA H200 (gelu_scale 16M)'],
  ])('makes %s visible and inert', (_what, input, expected) => {
    expect(logText(input)).toBe(expected);
  });

  test.prop([fc.string({ unit: 'binary' }), fc.string({ maxLength: 8 })], { numRuns: 500 })(
    'for any string: one line, no control character, no workflow command whatever precedes it',
    (s, prefix) => {
      const out = `${prefix.replace(/[\s\S]/g, ' ')}${logText(s)}`;
      expect(out).not.toContain('\n');
      expect(out).not.toMatch(CONTROL);
      expect(out).not.toMatch(COMMAND);
    },
  );

  test('logLines keeps our lines and makes each line of the message inert', () => {
    expect(logLines('first\n::error::x\nthird')).toBe('first\n:\\:error:\\:x\nthird');
  });
});

describe('the CLIs print a file’s strings through it', () => {
  const hostileName = 'GPU\n::error title=owned::pwned\n::add-mask::x\x1b[2J';

  test('npm run history (text) and a broken-line warning carry no command and no escape', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fusebench-logtext-'));
    const file = join(dir, 'h.jsonl');
    const rec = {
      v: HISTORY_RECORD_VERSION,
      date: '2026-11-25T10:00:00.000Z',
      commit: '::error::commit',
      device: { name: hostileName, slug: 'x' },
      cases: {
        k: { case: '::warning::case\nx', shape: '1M', dtype: 'fp32', verdict: 'SAME', speedup: [1.5, 1.4, 1.6] },
      },
    };
    writeFileSync(file, `${JSON.stringify(rec)}\n{"v":1,"date":"::error::broken\\n::add-mask::y"}\n`);
    const r = spawnSync(process.execPath, [...NODE_ARGS, 'src/cli/history.ts', file], { cwd: root, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    for (const out of [r.stdout, r.stderr]) {
      expect(out).not.toMatch(COMMAND);
      expect(out).not.toContain('\x1b');
    }
    expect(r.stdout).toContain(':\\:warning:\\:case\\nx');
  });

  test('npm run compare on two hostile results files carries no command and no escape', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fusebench-logtext-'));
    const base = readResults(join(root, 'suites', 'fixtures', 'h200-gate-run.json'));
    base.device.name = hostileName;
    for (const c of base.cases) {
      c.case = `${c.case}\n::error::case`;
      c.key = `${c.case}/${c.shape.label}/${c.dtype}`; // a key is its case/shape/precision, or the file is refused
    }
    const a = join(dir, 'a.json');
    const b = join(dir, 'b.json');
    writeFileSync(a, JSON.stringify(base));
    writeFileSync(b, JSON.stringify(base));
    const r = spawnSync(process.execPath, [...NODE_ARGS, 'src/cli/compare.ts', a, b], { cwd: root, encoding: 'utf8' });
    expect(`${r.stdout}${r.stderr}`.length).toBeGreaterThan(0);
    for (const out of [r.stdout, r.stderr]) {
      expect(out).not.toMatch(COMMAND);
      expect(out).not.toContain('\x1b[2J');
    }
    expect(r.stdout).toContain('fusebench compare on GPU\\n:\\:error');
  });
});
