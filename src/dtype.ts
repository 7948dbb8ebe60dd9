/**
 * The precisions fusebench stores tensors in, and the rounding of float32 data to them: fp32, and the
 * half types bf16 and fp16 (arithmetic in fp32, as PyTorch autocast runs them). The rounding is round to
 * nearest even, the same as the addon's (kernels/common/dtype.h): inputs are rounded before the float64
 * reference sees them, so the reference is of what the kernels actually read.
 */

/** Every precision, in report order. */
export const DTYPES = ['fp32', 'bf16', 'fp16'] as const;
export type Dtype = (typeof DTYPES)[number];

/** Bytes of one element of each precision. */
export const DTYPE_BYTES: Record<Dtype, number> = { fp32: 4, bf16: 2, fp16: 2 };

/** Whether `s` names a precision. */
export function isDtype(s: string): s is Dtype {
  return (DTYPES as readonly string[]).includes(s);
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** x (a float32 value) rounded to the nearest bfloat16, ties to even; NaN stays NaN. */
export function roundBf16(x: number): number {
  f32[0] = x;
  const u = u32[0] as number;
  if ((u & 0x7fffffff) > 0x7f800000) return Number.NaN;
  u32[0] = ((u + 0x7fff + ((u >>> 16) & 1)) & 0xffff0000) >>> 0;
  return f32[0] as number;
}

/** v rounded to the nearest integer, ties to even. */
function roundHalfEven(v: number): number {
  const r = Math.round(v);
  return Math.abs(v - Math.trunc(v)) === 0.5 ? 2 * Math.round(v / 2) : r;
}

/** x (a float32 value) rounded to the nearest IEEE binary16, ties to even; ±∞ past 65504, NaN stays NaN. */
export function roundFp16(x: number): number {
  if (!Number.isFinite(x) || x === 0) return x;
  const a = Math.abs(x);
  if (a >= 65520) return Math.sign(x) * Number.POSITIVE_INFINITY;
  f32[0] = a;
  const exp = Math.max(((u32[0] as number) >>> 23) - 127, -14); // below 2^-14: the subnormal spacing 2^-24
  const quantum = 2 ** (exp - 10);
  return Math.sign(x) * roundHalfEven(a / quantum) * quantum;
}

/** A copy of `data` rounded to `dtype` (fp32: the same values). */
export function roundTo(dtype: Dtype, data: Float32Array): Float32Array {
  if (dtype === 'fp32') return data;
  const round = dtype === 'bf16' ? roundBf16 : roundFp16;
  return data.map(round);
}
