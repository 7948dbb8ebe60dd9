/** Comparison of a kernel's output with a float64 reference, with tolerances and clear failures. */

/** Tolerance: |out − ref| <= atol + rtol·|ref| for every element. */
export interface Tolerance {
  atol: number;
  rtol: number;
}

/** What the comparison found. `failure` is set (with index and values) when any element fails. */
export interface NumericsReport {
  elements: number;
  maxAbsError: number;
  /** Largest |out − ref| / |ref| where the relative term dominates the allowance (|ref| > atol/rtol). */
  maxRelError: number;
  /** Index of the element with the largest error relative to its allowance. */
  worstIndex: number;
  /** ‖out − ref‖₂ / ‖ref‖₂ (0 when the reference is all zeros and so is the output). */
  relL2: number;
  /** What was compared when only a sample of the output was (large GEMM outputs). */
  sampled?: string;
  failure?: string;
}

/**
 * The failing report of an output element that is NaN or infinite (`value` at flat `index`); `failure`
 * words the message around what the value is ("NaN (unwritten, or a NaN was produced)", or "Infinity").
 */
export function nonFiniteReport(
  elements: number,
  index: number,
  value: number,
  failure: (what: string) => string,
): NumericsReport {
  const what = Number.isNaN(value) ? 'NaN (unwritten, or a NaN was produced)' : String(value);
  return {
    elements,
    maxAbsError: Number.POSITIVE_INFINITY,
    maxRelError: Number.POSITIVE_INFINITY,
    worstIndex: index,
    relL2: Number.POSITIVE_INFINITY,
    failure: failure(what),
  };
}

/**
 * Compares `out` with `ref`. A NaN or infinite output (including the poison NaN of an element
 * never written) fails immediately and names the index and value. `bound`, when given, is each
 * element's own error bound (a BoundedReference's), allowed where it exceeds atol + rtol·|ref|.
 */
export function compare(
  out: Float32Array,
  ref: Float64Array,
  tol: Tolerance,
  label = 'output',
  /** When out and ref hold sampled elements: their flat indices in the full output (for reports). */
  indices?: Uint32Array,
  bound?: Float64Array,
): NumericsReport {
  const at = (i: number) => (indices ? (indices[i] as number) : i);
  const relFloor = tol.rtol > 0 ? tol.atol / tol.rtol : Number.POSITIVE_INFINITY;
  if (out.length !== ref.length || (bound && bound.length !== ref.length)) {
    return {
      elements: out.length,
      maxAbsError: Number.NaN,
      maxRelError: Number.NaN,
      worstIndex: -1,
      relL2: Number.NaN,
      failure:
        out.length !== ref.length
          ? `${label}: length ${out.length} differs from the reference's ${ref.length}`
          : `${label}: the reference's bound has ${bound?.length} elements; its values ${ref.length}`,
    };
  }
  let maxAbs = 0;
  let maxRel = 0;
  let worst = 0;
  let worstRatio = -1;
  let errSq = 0;
  let refSq = 0;
  for (let i = 0; i < out.length; i++) {
    const o = out[i] as number;
    const r = ref[i] as number;
    if (!Number.isFinite(o)) {
      return nonFiniteReport(out.length, at(i), o, (what) => `${label}[${at(i)}] is ${what}; the reference is ${r}`);
    }
    const err = Math.abs(o - r);
    errSq += err * err;
    refSq += r * r;
    if (err > maxAbs) maxAbs = err;
    const ar = Math.abs(r);
    if (ar > relFloor && err / ar > maxRel) maxRel = err / ar;
    // A bound widens the allowance only where it is larger; a NaN bound (never written) widens nothing.
    const allow = tol.atol + tol.rtol * ar;
    const b = bound ? (bound[i] as number) : 0;
    const ratio = err / (b > allow ? b : allow);
    if (ratio > worstRatio) {
      worstRatio = ratio;
      worst = i;
    }
  }
  const relL2 = refSq > 0 ? Math.sqrt(errSq / refSq) : Math.sqrt(errSq);
  const report: NumericsReport = {
    elements: out.length,
    maxAbsError: maxAbs,
    maxRelError: maxRel,
    worstIndex: at(worst),
    relL2,
  };
  if (worstRatio > 1) {
    const o = out[worst] as number;
    const r = ref[worst] as number;
    const b = bound ? (bound[worst] as number) : 0;
    report.failure =
      `${label}[${at(worst)}] = ${o} but the reference is ${r}: |error| ${Math.abs(o - r).toExponential(3)} exceeds ` +
      `atol ${tol.atol} + rtol ${tol.rtol}·|ref|${b > 0 ? ` and the element's own bound ${b.toExponential(3)}` : ''}`;
  }
  return report;
}
