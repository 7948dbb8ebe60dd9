import { describe, expect, test } from 'vitest';
import { UsageError, parsePerfArgs } from '../../src/options.ts';

const parse = (argv: string[]) => parsePerfArgs(argv, { seed: 7 });

describe('perf options', () => {
  test('defaults: auto backend, 30 pairs, ±1% target, the given seed', () => {
    expect(parse([])).toMatchObject({ backend: 'auto', minPairs: 30, targetHalfWidth: 0.01, seed: 7, outDir: '.' });
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

  test('an unknown flag is a usage error', () => {
    expect(() => parse(['--frobnicate'])).toThrow(UsageError);
  });

  test('the command that reproduces the run is recorded', () => {
    expect(parse(['--backend', 'cpu'])?.command).toBe('npm run perf -- --backend cpu');
  });
});
