// The `fusebench` command (bin/fusebench.mjs) as a user runs it: the command list, each command's help,
// and the one exit-code scheme (0 nothing regressed, 1 a regression or failed check, 2 usage or input).
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { EXIT } from '../../src/cli/command-line.ts';
import { asMeasured } from '../../src/results/judged-timing.ts';
import { type ResultsFile, readResults } from '../../src/results/results.ts';
import { RESULTS_JSON_SCHEMA_FILE } from '../../src/results/results-json-schema.ts';
import { rederived } from '../support/measured-case.ts';

const root = join(import.meta.dirname, '..', '..');
const fixtures = join(root, 'suites', 'fixtures');
/** perf on one small shape of the CPU backend: gelu_scale at 1K (the other shapes past --max-elements). */
const ONE_SMALL_SHAPE = ['perf', '--backend', 'cpu', '--case', 'gelu_scale', '--max-elements', '2000'];
const COMMANDS = ['perf', 'compare', 'comment', 'merge', 'history', 'site', 'schema', 'lint-workflows'];

function fusebench(args: string[], env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(process.execPath, ['bin/fusebench.mjs', ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', GITHUB_ACTIONS: '', ...env },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('fusebench', () => {
  test.each([['-h'], ['--help'], ['help'], ['help', '-h'], ['help', '--help']])(
    '%s lists every command and the exit codes, exit 0',
    (...flags) => {
      const r = fusebench(flags);
      expect(r.code, r.stderr).toBe(EXIT.ok);
      for (const c of COMMANDS) expect(r.stdout).toMatch(new RegExp(`^  ${c} `, 'm'));
      expect(r.stdout).toContain('Exit codes');
    },
  );

  test('with no command lists the commands on stderr, exit 2', () => {
    const r = fusebench([]);
    expect(r.code).toBe(EXIT.usage);
    expect(r.stderr).toContain('Usage: fusebench <command>');
  });

  test.each([[['bench']], [['toString']], [['help', 'bench']], [['help', 'constructor']]])(
    'an unknown command is exit 2, naming the valid ones: %j',
    (args) => {
      // `help constructor` had read Object's own constructor as a command and failed with "about.load is not a function".
      const r = fusebench(args);
      expect(r.code).toBe(EXIT.usage);
      const name = args.at(-1) as string;
      expect(r.stderr).toContain(`unknown command '${name}'; valid commands: ${COMMANDS.join(', ')}`);
    },
  );

  test('--version prints package.json version', () => {
    const r = fusebench(['--version']);
    expect(r.code).toBe(EXIT.ok);
    expect(r.stdout.trim()).toBe(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version);
    // A word after it is a mistake (a command meant, a flag misplaced), not something to ignore.
    const extra = fusebench(['--version', 'perf']);
    expect(extra.code).toBe(EXIT.usage);
    expect(extra.stdout).toBe('');
    expect(extra.stderr).toContain("fusebench: --version takes no arguments; got 'perf'");
    // Help takes the command to help with, and nothing after it.
    expect(fusebench(['--help', 'compare']).stdout).toContain('Usage: fusebench compare');
    const more = fusebench(['help', 'perf', 'extra']);
    expect(more.code).toBe(EXIT.usage);
    expect(more.stderr).toContain("fusebench: help takes at most the command to help with; got 'extra'");
  });

  test('docs/cli.md lists every command, and the exit-code table per command', () => {
    const doc = readFileSync(join(root, 'docs', 'cli.md'), 'utf8');
    for (const c of COMMANDS) {
      expect(doc).toContain(`| \`fusebench ${c}`);
      expect(doc).toMatch(new RegExp(`^\\| ${c} \\| .* \\| 0 \\|$`, 'm'));
      expect(doc).toMatch(new RegExp(`^\\| ${c} \\| .* \\| 2 \\|$`, 'm'));
    }
    for (const [name, code] of Object.entries(EXIT)) expect(doc, name).toMatch(new RegExp(`^\\| ${code} \\| `, 'm'));
  });

  test('package.json names the bin, and the npm scripts call it', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    expect(pkg.bin).toEqual({ fusebench: 'bin/fusebench.mjs' });
    for (const c of COMMANDS) {
      // exec: npm signals the shell it starts; without it a `kill` of npm's pid left fusebench running alone.
      expect(pkg.scripts[c === 'lint-workflows' ? 'lint:workflows' : c]).toBe(`exec node bin/fusebench.mjs ${c}`);
    }
  });
});

describe.each(COMMANDS)('fusebench %s', (command) => {
  test.each([['-h'], ['--help']])('%s prints usage, options, examples and exit codes, exit 0', (flag) => {
    const r = fusebench([command, flag]);
    expect(r.code, r.stderr).toBe(EXIT.ok);
    expect(r.stdout).toMatch(new RegExp(`^Usage:(\\n)? +fusebench ${command}`));
    expect(r.stdout).toMatch(/\nExamples:\n {2}\S/);
    expect(r.stdout).toMatch(/\nExit codes:\n {2}0 {4}\S[\s\S]*\n {2}2 {4}\S[\s\S]*\n {2}130 {2}interrupted/);
    expect(r.stderr).toBe('');
  });

  test('a bad flag is exit 2 with the help', () => {
    const r = fusebench([command, '--no-such-flag']);
    expect(r.code).toBe(EXIT.usage);
    expect(r.stderr).toContain('--no-such-flag');
  });
});

describe('exit codes', () => {
  const tmp = () => mkdtempSync(join(tmpdir(), 'fusebench-cli-'));

  test('schema --help prints help and leaves the schema file as it is', () => {
    const file = join(root, RESULTS_JSON_SCHEMA_FILE);
    const before = { text: readFileSync(file, 'utf8'), mtime: statSync(file).mtimeMs };
    for (const args of [
      ['schema', '--help'],
      ['schema', '-h'],
    ]) {
      const r = fusebench(args);
      expect(r.code).toBe(EXIT.ok);
      expect(r.stdout).not.toContain('wrote');
    }
    expect({ text: readFileSync(file, 'utf8'), mtime: statSync(file).mtimeMs }).toEqual(before);
  });

  test('schema --check: 0 when current', () => {
    expect(fusebench(['schema', '--check']).code).toBe(EXIT.ok);
  });

  test('compare: two SLOWER cases are exit 1, not 2 (the code of "cannot compare")', () => {
    const dir = tmp();
    const base = readResults(join(fixtures, 'h200-gate-run.json'));
    const head: ResultsFile = structuredClone(base);
    // Two shapes of gelu_scale 1.5× slower, every sample: SLOWER beyond any noise.
    const slowed = ['gelu_scale/1M/fp32', 'gelu_scale/16M/fp32'];
    head.cases = head.cases.map((c) => {
      const m = asMeasured(c);
      if (!m || !slowed.includes(c.key)) return c;
      m.timing.samples.fused = m.timing.samples.fused.map((x) => x * 1.5);
      return rederived(m, head.device.copyBandwidthGBs);
    });
    const fb = join(dir, 'base.json');
    const fh = join(dir, 'head.json');
    writeFileSync(fb, JSON.stringify(base));
    writeFileSync(fh, JSON.stringify(head));
    const r = fusebench(['compare', fb, fh]);
    expect(r.stdout).toContain('SLOWER 2 ·');
    expect(r.code, r.stderr).toBe(EXIT.regression);
    expect(fusebench(['compare', fb, fb]).code).toBe(EXIT.ok);
  });

  test('a missing file is exit 2 for every command that reads one', () => {
    const missing = join(tmp(), 'missing.json');
    const out = tmp();
    const runs = [
      ['compare', missing, join(fixtures, 'h200-gate-run.json')],
      ['comment', '--results', missing, '--out', join(out, 'c.md')],
      ['merge', '--out-dir', out, missing],
      ['history', missing],
      ['history', 'append', '--dir', out, missing],
      ['site', '--history', out, '--results', missing, '--out', join(out, 'site')],
      ['lint-workflows', missing],
    ];
    for (const args of runs) {
      const r = fusebench(args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(EXIT.usage);
      expect(r.stderr).toContain(missing);
    }
  });

  test('an option of one value given twice is exit 2 naming it, in every command', () => {
    const run = join(fixtures, 'h200-gate-run.json');
    const out = tmp();
    for (const args of [
      ['compare', run, run, '--delta', '0.05', '--delta', '0.5'],
      ['comment', '--results', run, '--results', run, '--out', join(out, 'c.md')],
      ['history', join(fixtures, 'site', 'history', 'nvidia-h200.jsonl'), '--last', '5', '--last', '9'],
    ]) {
      const r = fusebench(args);
      expect(r.code, args.join(' ')).toBe(EXIT.usage);
      expect(r.stderr).toMatch(/Option '--(delta|results|last)' given twice; it takes one value/);
    }
  });

  test('merge and site: an output folder that cannot be written is exit 2 naming the flag, before anything is rendered', () => {
    const file = join(tmp(), 'a-file');
    writeFileSync(file, '');
    const r = fusebench(['merge', '--out-dir', join(file, 'merged'), join(fixtures, 'h200-results.json')]);
    expect(r.code).toBe(EXIT.usage);
    expect(r.stderr).toContain(`--out-dir ${join(file, 'merged')} cannot hold the merged reports: ENOTDIR`);
    expect(r.stdout).toBe('');
    const history = join(fixtures, 'site', 'history');
    const s = fusebench(['site', '--history', history, '--out', join(file, 'site')]);
    expect(s.code).toBe(EXIT.usage);
    expect(s.stderr).toContain(`--out ${join(file, 'site')} cannot hold the dashboard: ENOTDIR`);
    expect(s.stdout).toBe('');
  });

  test('comment and history: an --out that cannot be written is exit 2 naming the flag, nothing rendered', () => {
    const file = join(tmp(), 'a-file');
    writeFileSync(file, '');
    const out = join(file, 'out.md');
    for (const args of [
      ['comment', '--results', join(fixtures, 'h200-results.json'), '--out', out],
      ['history', join(fixtures, 'site', 'history', 'nvidia-h200.jsonl'), '--out', out],
    ]) {
      const r = fusebench(args);
      expect(r.code, args[0]).toBe(EXIT.usage);
      expect(r.stderr).toContain(`fusebench: --out: ${out} cannot be written: ENOTDIR`);
      expect(r.stdout).toBe('');
    }
    // history's charts go into a folder beside its Markdown: a file there is refused before anything is written.
    const dir = tmp();
    writeFileSync(join(dir, 'h-charts'), '');
    const h = fusebench([
      'history',
      join(fixtures, 'site', 'history', 'nvidia-h200.jsonl'),
      '--out',
      join(dir, 'h.md'),
    ]);
    expect(h.code).toBe(EXIT.usage);
    expect(h.stderr).toContain(`fusebench: --out: ${join(dir, 'h-charts')} is not a folder; the charts of`);
    expect(existsSync(join(dir, 'h.md'))).toBe(false);
  });

  test('comment, compare and history: an output that is one of the inputs is exit 2, and the input is left as it was', () => {
    const dir = tmp();
    const run = join(dir, 'run.json');
    const history = join(dir, 'h.jsonl');
    writeFileSync(run, readFileSync(join(fixtures, 'h200-gate-run.json')));
    writeFileSync(history, readFileSync(join(fixtures, 'site', 'history', 'nvidia-h200.jsonl')));
    const before = [readFileSync(run, 'utf8'), readFileSync(history, 'utf8')];
    for (const [flag, args] of [
      ['--out', ['comment', '--results', run, '--out', run]],
      ['--markdown', ['compare', run, join(fixtures, 'h200-gate-inject.json'), '--markdown', run]],
      ['--out', ['history', history, '--out', history]],
    ] as const) {
      const r = fusebench([...args]);
      expect(r.code, args[0]).toBe(EXIT.usage);
      const input = args[0] === 'history' ? history : run;
      expect(r.stderr).toContain(
        `fusebench: ${flag}: ${input} is also an input (${input}): writing it would replace what is read`,
      );
    }
    expect([readFileSync(run, 'utf8'), readFileSync(history, 'utf8')]).toEqual(before);
  });

  test('site: a word that follows no --results is refused, naming it; files after --results are results', () => {
    const out = tmp();
    const history = join(fixtures, 'site', 'history');
    const stray = fusebench(['site', '--history', history, '--out', join(out, 'a'), 'extra']);
    expect(stray.code).toBe(EXIT.usage);
    expect(stray.stderr).toMatch(/^fusebench: Unexpected argument 'extra'\n/);
    expect(existsSync(join(out, 'a'))).toBe(false);
    const two = ['--results', join(fixtures, 'h200-results.json'), join(fixtures, 'h100-results-cb047cf.json')];
    expect(fusebench(['site', '--history', history, ...two, '--out', join(out, 'b')]).code).toBe(EXIT.ok);
  });

  test('an unknown option is named, with how to pass an argument that starts with a dash where one is taken', () => {
    const perf = fusebench(['perf', '--bogus']);
    expect(perf.code).toBe(EXIT.usage);
    expect(perf.stderr).toMatch(/^fusebench: Unknown option "--bogus"\n/);
    const compare = fusebench(['compare', '--bogus']);
    expect(compare.code).toBe(EXIT.usage);
    expect(compare.stderr).toMatch(
      /^fusebench: Unknown option "--bogus" \(an argument that starts with '-' goes after '--'\)\n/,
    );
    // A quote, a line break or Node's own words in the name: still one line, the name as a JSON string.
    for (const name of ["--bo'gus", '--bo\ngus', "--x'. To specify a positional argument z"]) {
      const r = fusebench(['compare', name]);
      expect(r.code).toBe(EXIT.usage);
      expect(r.stderr.split('\n')[0]).toBe(
        `fusebench: Unknown option ${JSON.stringify(name)} (an argument that starts with '-' goes after '--')`,
      );
    }
  });

  test('site: --baselines that is no folder, and a --repo-url its links would drop, are exit 2 naming them', () => {
    const out = tmp();
    const history = join(fixtures, 'site', 'history');
    const site = (...more: string[]) => fusebench(['site', '--history', history, '--out', join(out, 'site'), ...more]);
    const missing = join(out, 'no-baselines');
    const b = site('--baselines', missing);
    expect(b.code).toBe(EXIT.usage);
    expect(b.stderr).toContain(`Expected a folder of baseline files for --baselines but ${missing} is none`);
    for (const url of ['https://github.com/o/r"x', 'https://github.com/o r', 'https://github.com/<o>/r']) {
      const r = site('--repo-url', url);
      expect(r.code, url).toBe(EXIT.usage);
      expect(r.stderr).toContain('Expected an http(s) URL without spaces, quotes or angle brackets for --repo-url');
    }
    expect(site('--repo-url', 'https://github.com/o/r').code).toBe(EXIT.ok);
  });

  test('comment, merge and history: a link their reports would drop is exit 2 naming the flag, nothing written', () => {
    const out = tmp();
    const run = join(fixtures, 'h200-gate-run.json');
    const history = join(fixtures, 'site', 'history', 'nvidia-h200.jsonl');
    const calls: [string, string[]][] = [
      ['run-url', ['comment', '--results', run, '--out', join(out, 'c.md')]],
      ['run-url', ['merge', '--out-dir', join(out, 'm'), run]],
      ['repo-url', ['merge', '--out-dir', join(out, 'm'), run]],
      ['repo-url', ['history', history, '--out', join(out, 'h.md')]],
    ];
    for (const [flag, args] of calls) {
      for (const url of ['javascript:alert(1)', 'https://github.com/o/r"x']) {
        const r = fusebench([...args, `--${flag}`, url]);
        expect(r.code, `${args[0]} --${flag} ${url}`).toBe(EXIT.usage);
        expect(r.stderr).toContain(`Expected an http(s) URL without spaces, quotes or angle brackets for --${flag}`);
      }
    }
    expect(readdirSync(out)).toEqual([]);
    const ok = fusebench([
      'comment',
      '--results',
      run,
      '--out',
      join(out, 'c.md'),
      '--run-url',
      'https://github.com/o/r/actions/runs/1',
    ]);
    expect(ok.code, ok.stderr).toBe(EXIT.ok);
  });

  test('perf --update-baselines into a folder that cannot be written is exit 2 before anything is measured', () => {
    const file = join(tmp(), 'a-file');
    writeFileSync(file, '');
    const dir = join(file, 'baselines');
    const r = fusebench([
      'perf',
      '--backend',
      'cpu',
      '--case',
      'gelu_scale',
      '--update-baselines',
      '--baselines-dir',
      dir,
    ]);
    expect(r.code).toBe(EXIT.usage);
    expect(r.stderr).toContain(`fusebench: --update-baselines cannot record into ${join(dir, 'cpu-')}`);
    expect(r.stderr).toContain('ENOTDIR');
    expect(r.stderr).not.toContain('[1/');
  });

  test('perf: an unknown case is exit 2 before anything is measured', () => {
    const r = fusebench(['perf', '--backend', 'cpu', '--case', 'no_such_case', '--out-dir', tmp()]);
    expect(r.code).toBe(EXIT.usage);
    expect(r.stderr).toContain('no_such_case');
  });

  test('perf: a case none of whose precisions --dtype keeps is exit 2 naming what it runs in, before anything is measured', () => {
    const out = tmp();
    const r = fusebench(['perf', '--backend', 'cpu', '--case', 'gemm', '--dtype', 'bf16', '--out-dir', out]);
    expect(r.code).toBe(EXIT.usage);
    expect(r.stderr).toContain('fusebench: --case gemm runs in fp32 only: --dtype bf16 leaves nothing of it to run');
    expect(r.stdout).not.toContain('[1/');
    expect(existsSync(join(out, 'fusebench-results.json'))).toBe(false);
  });

  test('perf: an --out-dir another live run holds is exit 2 naming it, before anything is measured; a stale lock is taken over', () => {
    const dir = tmp();
    const lock = join(dir, '.fusebench-perf.lock');
    // This test's own process: alive, on this host.
    const holder = { pid: process.pid, host: hostname(), started: '2026-11-28T19:00:00.000Z', command: 'npm run perf' };
    const perf = () => fusebench([...ONE_SMALL_SHAPE, '--out-dir', dir]);
    writeFileSync(lock, JSON.stringify(holder));
    writeFileSync(join(dir, 'fusebench-results.json'), 'the run before');
    const held = perf();
    expect(held.code).toBe(EXIT.usage);
    expect(held.stderr).toContain(`--out-dir ${dir} is in use by another fusebench run: pid ${process.pid}`);
    expect(held.stderr).toContain('Nothing was measured.');
    // No word of the run that did not start (the CPU backend's fp32-only note comes once it can).
    expect(held.stdout).toBe('');
    expect(readFileSync(join(dir, 'fusebench-results.json'), 'utf8')).toBe('the run before');
    expect(existsSync(join(dir, 'previous'))).toBe(false);
    // A holder that is no longer running: taken over with a warning, the run goes on, the lock is gone after.
    writeFileSync(lock, JSON.stringify({ ...holder, pid: 2 ** 22 + 1 }));
    const stale = perf();
    expect(stale.stderr).toContain(`took over the stale lock ${lock}`);
    expect(stale.code, stale.stderr).toBe(EXIT.ok);
    expect(stale.stdout).toMatch(/^fusebench: CPU backend: measuring fp32 only/);
    expect(existsSync(lock)).toBe(false);
    expect(readFileSync(join(dir, 'previous', 'fusebench-results.json'), 'utf8')).toBe('the run before');
  });

  test('perf: a device another live run measures is exit 2 naming it, whatever --out-dir; the lock is gone after a run', () => {
    const locks = tmp();
    const lock = join(locks, 'fusebench-device-cpu.lock');
    const holder = { pid: process.pid, host: hostname(), started: '2026-11-29T12:00:00.000Z', command: 'npm run perf' };
    writeFileSync(lock, JSON.stringify(holder));
    const out = tmp();
    const perf = () =>
      fusebench([...ONE_SMALL_SHAPE, '--out-dir', out], {
        FUSEBENCH_DEVICE_LOCK_DIR: locks,
      });
    const held = perf();
    expect(held.code).toBe(EXIT.usage);
    expect(held.stderr).toContain(
      `this host's CPU is in use by another fusebench run: pid ${process.pid} on ${hostname()}`,
    );
    expect(held.stderr).toContain(': two runs on one device would time each other. Nothing was measured.');
    expect(held.stdout).toBe('');
    expect(existsSync(join(out, 'fusebench-results.json'))).toBe(false);
    rmSync(lock);
    const free = perf();
    expect(free.code, free.stderr).toBe(EXIT.ok);
    expect(existsSync(lock)).toBe(false);
  });

  test('perf: an --inject no baseline judged says it proved nothing; charts of an earlier run are removed, nothing else', () => {
    const out = tmp();
    const baselines = tmp();
    // The charts' folder a link to another (written through, as before), holding an earlier run's chart and
    // two files of the user's.
    const charts = tmp();
    symlinkSync(charts, join(out, 'benchmark-charts'));
    writeFileSync(join(charts, 'roofline-nvidia-h200-bf16.svg'), '<svg/>');
    writeFileSync(join(charts, 'notes.txt'), 'mine');
    writeFileSync(join(charts, 'roofline-by-hand.svg'), 'mine');
    const r = fusebench([
      ...ONE_SMALL_SHAPE,
      ...['--inject', 'gelu_scale:50%', '--out-dir', out, '--baselines-dir', baselines],
    ]);
    expect(r.code, r.stderr).toBe(EXIT.ok);
    expect(r.stderr).toMatch(
      /^fusebench: --inject gelu_scale: no shape of it was judged so that a slowdown fails the run \(.+ has no gating baseline for them, or none ran\), so the injected slowdown could not fail this run$/m,
    );
    // The no-baseline hint records where the run looked.
    expect(r.stdout).toContain(
      `record one with \`npm run perf -- --backend cpu --baselines-dir ${baselines} --update-baselines\``,
    );
    const left = readdirSync(charts).sort();
    expect(left).toContain('notes.txt');
    expect(left).toContain('roofline-by-hand.svg');
    expect(left).not.toContain('roofline-nvidia-h200-bf16.svg');
    expect(left.filter((c) => c.startsWith('roofline-cpu-'))).toHaveLength(1);
  });

  test('perf: an --out-dir whose report file is a folder, or whose charts folder is a file, is exit 2 before measuring', () => {
    for (const [name, make] of [
      ['BENCHMARK_RESULTS.md', (p: string) => mkdirSync(p)],
      ['benchmark-charts', (p: string) => writeFileSync(p, '')],
    ] as const) {
      const out = tmp();
      make(join(out, name));
      const r = fusebench([...ONE_SMALL_SHAPE, '--out-dir', out]);
      expect(r.code).toBe(EXIT.usage);
      expect(r.stderr).toContain(
        `--out-dir ${out} cannot hold the results: ${join(out, name)} is ${name.endsWith('.md') ? 'a folder' : 'not a folder'}. Nothing was measured.`,
      );
      expect(r.stdout).toBe('');
    }
  });

  test('a folder where a file is to be written, or a file where a folder is to be read, is exit 2 naming it', () => {
    const dir = tmp();
    const run = join(fixtures, 'h200-gate-run.json');
    const inject = join(fixtures, 'h200-gate-inject.json');
    // compare: refused before the comparison, so a SLOWER verdict is never printed and then lost to a failed write
    const cmp = fusebench(['compare', run, inject, '--markdown', dir]);
    expect(cmp.code).toBe(EXIT.usage);
    expect(cmp.stderr).toBe(`fusebench: --markdown: ${dir} is a folder; expected the path of a file to write\n`);
    expect(cmp.stdout).toBe('');
    const underFile = fusebench(['compare', run, inject, '--markdown', join(run, 'out.md')]);
    expect(underFile.code).toBe(EXIT.usage);
    expect(underFile.stderr).toContain(`fusebench: --markdown: ${join(run, 'out.md')} cannot be written: ENOTDIR`);
    expect(underFile.stdout).toBe('');
    const comment = fusebench(['comment', '--results', run, '--out', dir]);
    expect(comment.code).toBe(EXIT.usage);
    expect(comment.stderr).toContain(`${dir} is a folder; expected the path of a file to write`);
    const perf = fusebench(['perf', '--backend', 'cpu', '--baselines-dir', run, '--out-dir', tmp()]);
    expect(perf.code).toBe(EXIT.usage);
    expect(perf.stderr).toContain(`${run} is not a folder: expected the folder of baseline files`);
  });
});
