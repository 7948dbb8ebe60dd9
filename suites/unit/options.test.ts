import { describe, expect, test } from 'vitest';
import { parsePerfArgs, UsageError } from '../../src/options.ts';

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

  test('a negative value is refused like any other bad value, naming the flag', () => {
    expect(() => parse(['--budget-ms', '-1'])).toThrow(
      /^Expected a positive number for --budget-ms but received '-1'$/,
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
  });

  test('an unknown flag is a usage error', () => {
    expect(() => parse(['--frobnicate'])).toThrow(UsageError);
  });

  test('the command that reproduces the run is recorded', () => {
    expect(parse(['--backend', 'cpu'])?.command).toBe('npm run perf -- --backend cpu');
  });
});
