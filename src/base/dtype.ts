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

/**
 * Why a CUDA device of compute capability `cc` ("7.0") cannot run `dtype`, or undefined when it can:
 * bf16 needs 8.0 (Ampere) for its arithmetic and tensor cores.
 */
export function dtypeUnsupportedOn(dtype: Dtype, cc: string): string | undefined {
  return dtype === 'bf16' && Number(cc) < 8
    ? `bf16 needs compute capability 8.0+ (bf16 arithmetic and tensor-core bf16); this GPU is ${cc}`
    : undefined;
}

/** Whether `s` names a precision. */
export function isDtype(s: string): s is Dtype {
  return (DTYPES as readonly string[]).includes(s);
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** The bits of x as a float32. */
function bitsOfFloat(x: number): number {
  f32[0] = x;
  return u32[0] as number;
}

/** The float32 with bits u. */
function floatOfBits(u: number): number {
  u32[0] = u;
  return f32[0] as number;
}

/** Float32 bits u rounded to the nearest bfloat16 (ties to even), as float32 bits; NaN stays NaN. */
function bf16Bits(u: number): number {
  if ((u & 0x7fffffff) > 0x7f800000) return u;
  return ((u + 0x7fff + ((u >>> 16) & 1)) & 0xffff0000) >>> 0;
}

/**
 * Float32 bits u rounded to the nearest IEEE binary16 (ties to even), as float32 bits: ±∞ from 65520
 * on, the subnormal spacing 2^-24 below 2^-14, NaN and ±∞ unchanged. In the normal range the 13
 * mantissa bits binary16 lacks are rounded off in place (a carry moves into the exponent correctly).
 */
function fp16Bits(u: number): number {
  const a = u & 0x7fffffff;
  const sign = u & 0x80000000;
  if (a >= 0x7f800000) return u;
  if (a >= 0x477ff000) return (sign | 0x7f800000) >>> 0;
  if (a >= 0x38800000) return (sign | ((a + 0xfff + ((a >>> 13) & 1)) & 0xffffe000)) >>> 0;
  const r = floatOfBits(a) * 2 ** 24; // exact: a multiple of the spacing below 1024
  const k = Math.floor(r);
  const d = r - k;
  const q = k + (d > 0.5 || (d === 0.5 && (k & 1) === 1) ? 1 : 0);
  return (sign | bitsOfFloat(q * 2 ** -24)) >>> 0;
}

/** x (a float32 value) rounded to the nearest bfloat16, ties to even; NaN stays NaN. */
export function roundBf16(x: number): number {
  return Number.isNaN(x) ? x : floatOfBits(bf16Bits(bitsOfFloat(x)));
}

/** x (a float32 value) rounded to the nearest IEEE binary16, ties to even; ±∞ past 65504, NaN stays NaN. */
export function roundFp16(x: number): number {
  return Number.isNaN(x) ? x : floatOfBits(fp16Bits(bitsOfFloat(x)));
}

/** A copy of `data` rounded to `dtype` (fp32: the same values), on the float32 bits in one pass. */
export function roundTo(dtype: Dtype, data: Float32Array): Float32Array {
  if (dtype === 'fp32') return data;
  const out = Float32Array.from(data);
  const bits = new Uint32Array(out.buffer, out.byteOffset, out.length);
  const round = dtype === 'bf16' ? bf16Bits : fp16Bits;
  for (let i = 0; i < bits.length; i++) bits[i] = round(bits[i] as number);
  return out;
}
