/**
 * What a decode step must leave in its KV cache. Both decode cases take the cache as an input that the step
 * writes into in place: row `pos` of every layer gets the new K (or V) row. Checking the logits alone would
 * not see that write (a kernel attends over the new row from where it computed it), so each cache is
 * checked too: every row holds what was uploaded but row pos of each layer, which holds the new row. Whole
 * at the test shapes; at GPU sizes a spread sample of rows (referenceRows) and always each layer's rows
 * pos − 1, pos and pos + 1 (a row written one off changes one of them).
 */
import type { Inputs, References, SampledReference } from '../case/types.ts';
import { referenceRows, rowsReference } from './sampling.ts';

/** A cache of `layers` blocks of `ctx` rows of `width` values, and the row the step writes. */
export interface CacheShape {
  layers: number;
  ctx: number;
  width: number;
  pos: number;
}

/**
 * The reference of one cache buffer after the step: `written` (layers × width, each layer's new row as the
 * precision stores it) in row `row` of each layer (pos, unless a test plants another), `before` (the cache as
 * uploaded) everywhere else.
 */
function cacheReference(
  before: Float32Array,
  written: Float64Array,
  s: CacheShape,
  row: number,
): Float64Array | SampledReference {
  const { layers, ctx, width } = s;
  const around = [s.pos - 1, s.pos, s.pos + 1, row].filter((r) => r >= 0 && r < ctx);
  const rows = [
    ...new Set([
      ...referenceRows(layers * ctx, width),
      ...around.flatMap((r) => range(layers).map((l) => l * ctx + r)),
    ]),
  ].sort((a, b) => a - b);
  const computeRow = (at: number) => {
    const [l, r] = [Math.floor(at / ctx), at % ctx];
    const values =
      r === row ? written.subarray(l * width, (l + 1) * width) : before.subarray(at * width, (at + 1) * width);
    return Float64Array.from(values);
  };
  const note = `${rows.length.toLocaleString('en-US')} of the ${(layers * ctx).toLocaleString('en-US')} rows (each layer's rows around pos among them)`;
  return rowsReference(layers * ctx, width, rows, computeRow, note) as Float64Array | SampledReference;
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/**
 * A decode step in float64: its logits, each layer's new K and V rows (as stored), the row they went to, and
 * the caches' shape.
 */
export interface DecodeOutputs {
  logits: Float64Array;
  k: Float64Array;
  v: Float64Array;
  row: number;
  cache: CacheShape;
}

/** Each layer's row `pos` of a cache as uploaded: what a layer that writes nothing leaves there. */
export function rowsAt(cache: Float32Array, s: CacheShape): Float64Array {
  const rows = new Float64Array(s.layers * s.width);
  for (let l = 0; l < s.layers; l++) {
    const at = (l * s.ctx + s.pos) * s.width;
    rows.set(cache.subarray(at, at + s.width), l * s.width);
  }
  return rows;
}

/** The references of a decode step's checked buffers: every logit, and both caches (cacheReference). */
export function decodeReferences(inputs: Inputs, step: DecodeOutputs): References {
  return {
    logits: step.logits,
    k_cache: cacheReference(inputs.k_cache as Float32Array, step.k, step.cache, step.row),
    v_cache: cacheReference(inputs.v_cache as Float32Array, step.v, step.cache, step.row),
  };
}
