/**
 * Seeded random inputs of the cases. Made natively (src/addon/native.ts `fillNormal`): a counter-based generator
 * split across threads, so a 16,384 × 4,096 input takes milliseconds rather than the seconds a JavaScript
 * loop takes, and the same seed gives the same values on every machine.
 */
import { fillNormal } from '../addon/native.ts';

/** A Float32Array of n normal values with the given standard deviation and mean, from a 32-bit seed. */
export function normalArray(n: number, sd: number, seed: number, mean = 0): Float32Array {
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`Expected a non-negative integer length but received ${n}`);
  if (!Number.isFinite(sd) || !Number.isFinite(mean)) {
    throw new Error(`Expected a finite sd and mean but received sd ${sd}, mean ${mean}`);
  }
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) {
    throw new Error(`Expected a 32-bit unsigned seed but received ${seed}`);
  }
  const out = new Float32Array(n);
  fillNormal(out, seed, sd, mean, 'fp32');
  return out;
}
