// Rounding to the half precisions: the JavaScript rounding the references see (src/base/dtype.ts) and the
// addon's (kernels/common/dtype.h, what a workspace stores) agree bit for bit, ties go to even, and
// overflow, subnormals, infinities and NaN come out as IEEE says.
import { describe, expect, test } from 'vitest';
import { Workspace } from '../../src/addon/native.ts';
import { DTYPES, roundBf16, roundFp16, roundTo } from '../../src/base/dtype.ts';
import { normalArray } from '../../src/case/random.ts';

/** Values that probe every branch: ties, the fp16 overflow edge, subnormals of both, signed zeros. */
function probes(): Float32Array {
  const special = [
    0,
    -0,
    1,
    -1,
    1 + 2 ** -8,
    1 + 3 * 2 ** -9,
    1 + 2 ** -11,
    1 + 3 * 2 ** -11,
    65504,
    65519,
    65520,
    -65520,
    1e6,
    2 ** -14,
    2 ** -24,
    2 ** -25,
    3 * 2 ** -26,
    2 ** -26,
    1e-30,
    1e-40,
    3.4e38,
    Number.POSITIVE_INFINITY,
    Number.NEGATIVE_INFINITY,
  ];
  const random = [...normalArray(4000, 1, 7), ...normalArray(2000, 1e-5, 8), ...normalArray(2000, 3e4, 9)];
  return Float32Array.from([...special, ...random]);
}

describe('rounding to bf16 and fp16', () => {
  test('known values: ties to even, fp16 overflow at 65520, subnormals', () => {
    expect(roundBf16(1 + 2 ** -8)).toBe(1); // a tie, to the even neighbour 1
    expect(roundBf16(1 + 3 * 2 ** -8)).toBe(1 + 2 ** -6); // a tie, up to the even neighbour
    expect(roundFp16(1 + 2 ** -11)).toBe(1);
    expect(roundFp16(1 + 3 * 2 ** -11)).toBe(1 + 2 ** -9);
    expect(roundFp16(65519)).toBe(65504);
    expect(roundFp16(65520)).toBe(Number.POSITIVE_INFINITY);
    expect(roundFp16(2 ** -25)).toBe(0); // a tie between 0 and the smallest subnormal: to even, 0
    expect(roundFp16(3 * 2 ** -26)).toBe(2 ** -24);
    expect(roundFp16(0.1)).toBe(0.0999755859375);
    expect(roundBf16(0.1)).toBe(0.10009765625);
    expect(Number.isNaN(roundBf16(Number.NaN)) && Number.isNaN(roundFp16(Number.NaN))).toBe(true);
    expect(roundTo('fp32', Float32Array.of(0.1))).toEqual(Float32Array.of(0.1));
  });

  test.each(DTYPES.filter((t) => t !== 'fp32'))('the addon stores %s exactly as the references round', (dtype) => {
    const x = probes();
    // gelu_scale's x is a plain buffer of n elements in the case's precision.
    const ws = new Workspace('cpu', 'gelu_scale', dtype, [x.length], [1], undefined);
    try {
      ws.upload('x', x);
      expect(ws.download('x')).toEqual(roundTo(dtype, x));
    } finally {
      ws.dispose();
    }
  });

  test('an unknown precision is refused by the addon, naming the ones the case has', () => {
    expect(() => new Workspace('cpu', 'gelu_scale', 'fp8', [4], [1], undefined)).toThrow(
      /The native addon has no case 'gelu_scale' in fp8/,
    );
  });
});
