import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parseFlags, UsageError } from '../../src/base/cli-args.ts';
import { recordCommand } from '../../src/gate/record-baselines.ts';
import { parsePerfArgs } from '../../src/run/perf-options.ts';

const parse = (argv: string[]) => parsePerfArgs(argv, { seed: 7 });

describe('perf options', () => {
  test('defaults: auto backend, 30 pairs, ±1% target, the given seed, reports into perf-out (never over the committed report)', () => {
    expect(parse([])).toMatchObject({
      backend: 'auto',
      minPairs: 30,
      targetHalfWidth: 0.01,
      seed: 7,
      outDir: 'perf-out',
    });
  });

  test('`npm run perf --strict` (no --): refused naming the flags npm kept for itself, only when run as the perf script', () => {
    const npm = { npm_lifecycle_event: 'perf', npm_config_strict: 'true', npm_config_budget_ms: 'true' };
    expect(() => parsePerfArgs(['100'], { seed: 7 }, npm)).toThrow(
      "npm took --budget-ms --strict as its own options, so perf did not get them: perf's options go after --, as in `npm run perf -- --budget-ms --strict …`",
    );
    expect(parsePerfArgs(['--strict'], { seed: 7 }, { npm_lifecycle_event: 'perf' })?.strict).toBe(true);
    expect(parsePerfArgs([], { seed: 7 }, { npm_config_strict: 'true' })).not.toBeNull();
  });

  test('an empty value is refused naming the flag, not taken as the flag left out', () => {
    expect(() => parse(['--out-dir='])).toThrow(/^Option '--out-dir' needs a value; it was given an empty one/);
    expect(() => parse(['--baselines-dir', ''])).toThrow(
      /^Option '--baselines-dir' needs a value; it was given an empty one/,
    );
  });

  test('after --, nothing is read as a flag or joined to one', () => {
    expect(
      parseFlags(['--delta', '-1', '--', '--delta', '-1'], { delta: { type: 'string' } }, 'help').positionals,
    ).toEqual(['--delta', '-1']);
  });

  test('a negative value is refused like any other bad value, naming the flag', () => {
    expect(() => parse(['--budget-ms', '-1'])).toThrow(
      /^Expected a positive number up to 3600000 for --budget-ms but received '-1'$/,
    );
    expect(() => parse(['--min-pairs', '-30'])).toThrow(/--min-pairs but received '-30'/);
  });

  test.each([
    ['gelu_scale', { case: 'gelu_scale', passes: 4 }],
    ['gelu_scale:1', { case: 'gelu_scale', passes: 1 }],
    ['gelu_scale:1000', { case: 'gelu_scale', passes: 1000 }],
    ['gelu_scale:3%', { case: 'gelu_scale', percent: 3 }],
    ['gelu_scale:0.5%', { case: 'gelu_scale', percent: 0.5 }],
    ['gelu_scale:100%', { case: 'gelu_scale', percent: 100 }],
  ])('--inject %s', (raw, expected) => {
    expect(parse(['--inject', raw])?.inject).toEqual(expected);
  });

  test.each([
    ['gelu_scale:0', /passes an integer from 1 to 1000/],
    ['gelu_scale:1001', /passes an integer from 1 to 1000/],
    ['gelu_scale:2147483648', /passes an integer from 1 to 1000.*received 'gelu_scale:2147483648'/],
    ['gelu_scale:2.5', /passes an integer/],
    ['gelu_scale:0%', /p in \(0, 100\] but received 'gelu_scale:0%'/],
    ['gelu_scale:100.5%', /p in \(0, 100\]/],
    ['gelu_scale:-3%', /p in \(0, 100\]/],
    ['gelu_scale:%', /p in \(0, 100\]/],
  ])('--inject %s is refused, naming the value and the range', (raw, message) => {
    expect(() => parse(['--inject', raw])).toThrow(message);
  });

  test('an unknown backend is an error listing the valid ones', () => {
    expect(() => parse(['--backend', 'rocm'])).toThrow(/Unknown backend 'rocm'; valid backends: auto, cpu, cuda/);
  });

  test.each([
    ['--budget-ms', '0'],
    ['--min-pairs', '2.5'],
    ['--max-elements', 'many'],
    ['--target-half-width', '0'],
  ])('%s %s is refused with the flag and the value', (flag, value) => {
    expect(() => parse([flag, value])).toThrow(new RegExp(`${flag}.*'${value}'`));
  });

  test('--dtype takes precisions repeated or comma-separated; an unknown one lists the valid ones', () => {
    expect(parsePerfArgs([], { seed: 1 })?.dtypes).toEqual([]);
    expect(parsePerfArgs(['--dtype', 'bf16,fp16', '--dtype', 'bf16'], { seed: 1 })?.dtypes).toEqual(['bf16', 'fp16']);
    expect(() => parsePerfArgs(['--dtype', 'fp8'], { seed: 1 })).toThrow(
      new UsageError("Unknown precision 'fp8' for --dtype; valid precisions: fp32, bf16, fp16"),
    );
    expect(() => parsePerfArgs(['--dtype', 'fp32,'], { seed: 1 })).toThrow(
      "Expected --dtype to list precisions separated by commas but received 'fp32,', with an empty one",
    );
  });

  test('the command that records baselines writes where the run looked', () => {
    const options = parsePerfArgs([], { seed: 1 });
    if (!options) throw new Error('no options');
    expect(recordCommand('cuda', options.baselinesDir)).toBe('npm run perf -- --backend cuda --update-baselines');
    const dir = mkdtempSync(join(tmpdir(), 'fusebench-record-'));
    expect(recordCommand('cpu', dir)).toBe(`npm run perf -- --backend cpu --baselines-dir ${dir} --update-baselines`);
    expect(recordCommand('cuda', '/tmp/my baselines')).toBe(
      "npm run perf -- --backend cuda --baselines-dir '/tmp/my baselines' --update-baselines",
    );
  });

  test('an unknown flag is a usage error', () => {
    expect(() => parse(['--frobnicate'])).toThrow(UsageError);
  });

  test('a flag of one value given twice is a usage error naming it (the last had won without a word)', () => {
    expect(() => parse(['--budget-ms', '500', '--out-dir', 'a', '--budget-ms', '5000'])).toThrow(
      /^Option '--budget-ms' given twice; it takes one value/,
    );
    expect(() => parse(['--out-dir', 'a', '--out-dir=b'])).toThrow(/^Option '--out-dir' given twice/);
    // Flags that take several (--case, --dtype) and switches repeat freely.
    expect(parse(['--case', 'ffn', '--case', 'gemm', '--wide', '--wide'])?.cases).toEqual(['ffn', 'gemm']);
  });

  test('the command that started the run is recorded as it was run, each word quoted as a shell needs it', () => {
    const was = process.env.npm_lifecycle_event;
    try {
      process.env.npm_lifecycle_event = 'perf';
      expect(parse(['--backend', 'cpu'])?.command).toBe('npm run perf -- --backend cpu');
      expect(parse([])?.command).toBe('npm run perf');
      delete process.env.npm_lifecycle_event;
      expect(parse(['--backend', 'cpu'])?.command).toBe('fusebench perf --backend cpu');
      expect(parse(['--out-dir', "/tmp/it's a dir", '--case', 'gelu_scale'])?.command).toBe(
        `fusebench perf --out-dir '/tmp/it'\\''s a dir' --case gelu_scale`,
      );
      expect(parse(['--out-dir=/tmp/$HOME'])?.command).toBe(`fusebench perf --out-dir='/tmp/$HOME'`);
    } finally {
      if (was === undefined) delete process.env.npm_lifecycle_event;
      else process.env.npm_lifecycle_event = was;
    }
  });

  test.each(['out-dir', 'baselines-dir', 'baseline-file'])('an empty --%s names no folder or file: refused', (flag) => {
    expect(() => parse([`--${flag}`, ''])).toThrow(`Option '--${flag}' needs a value; it was given an empty one`);
  });

  // Every numeric option is bounded and written in plain decimal; each refusal says what was expected.
  test.each([
    [['--seed', ''], /^Option '--seed' needs a value; it was given an empty one/],
    [['--seed', '0x1F'], /for --seed but received '0x1F'/],
    [['--seed', '1e3'], /for --seed but received '1e3'/],
    [['--seed', ' 7'], /for --seed but received ' 7'/],
    [['--min-pairs', '1e12'], /^Expected a positive integer up to 20000 for --min-pairs but received '1e12'$/],
    [['--min-pairs', '20001'], /up to 20000 for --min-pairs/],
    [['--min-pairs', '0x10'], /for --min-pairs but received '0x10'/],
    [['--min-pairs', '9'], /^Expected at least 10 for --min-pairs \(the gate decides on no fewer\) but received 9$/],
    [['--budget-ms', '1e300'], /^Expected a positive number up to 3600000 for --budget-ms/],
    [['--budget-ms', 'Infinity'], /for --budget-ms but received 'Infinity'/],
    [['--max-elements', '1e300'], /for --max-elements but received '1e300'/],
    [['--target-half-width', '0x1'], /for --target-half-width but received '0x1'/],
    [['--delta', '0b1'], /for --delta \(0\.05 = ±5%\) but received '0b1'/],
    [['--inject', 'gelu_scale: 0x10%'], /^Expected --inject <case>:<p>% with p in \(0, 100\]/],
    [['--inject', 'gelu_scale:1e1%'], null],
    [['--inject', 'gelu_scale:0x4'], /^Expected --inject <case>\[:<passes>\]/],
    [['--inject', 'gelu_scale: 4'], /^Expected --inject <case>\[:<passes>\]/],
  ])('%j', (argv, message) => {
    if (message === null) expect(() => parse(argv)).not.toThrow();
    else expect(() => parse(argv)).toThrow(message);
  });

  test('the bounds themselves are accepted', () => {
    expect(parse(['--min-pairs', '20000', '--budget-ms', '3600000', '--seed', '4294967295'])).toMatchObject({
      minPairs: 20000,
      budgetMs: 3600000,
      seed: 4294967295,
    });
  });
});
