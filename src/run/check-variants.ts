/**
 * The numerics check of one case at one shape: one set of seeded inputs made, one float64 reference, then
 * each variant run on those inputs (uploaded for each run) with every output and scratch buffer poisoned first,
 * read back and compared. Where the reference covers sampled rows (GPU-sized outputs), every element of
 * every sampled row is compared and every element of the whole output is checked for NaN or infinity, so
 * an unwritten element (still the poison NaN) is caught and named wherever it is.
 */

import { firstNonFinite, type Workspace } from '../addon/native.ts';
import { compare, type NumericsReport, nonFiniteReport } from '../case/numerics.ts';
import type { CaseDef, Inputs, References } from '../case/types.ts';
import { PhaseClock } from '../results/phases.ts';

/** Inputs made and uploaded for a shape, and their reference. */
export interface PreparedInputs {
  inputs: Inputs;
  reference: References;
}

/** What the check saw for one variant: the worst report over its outputs, and the outputs it read. */
export interface VariantCheck {
  report: NumericsReport;
  inputs: Inputs;
  outputs: Record<string, Float32Array>;
  /** The kernel the variant reported having launched (variants that pick theirs at run time). */
  kernel?: string;
}

/**
 * Makes the seeded inputs and computes their reference (phases `inputs` and `reference`); each checked run
 * uploads them (checkVariant).
 */
export function prepareInputs(def: CaseDef, dims: number[], seed: number, clock = new PhaseClock()): PreparedInputs {
  const inputs = clock.time('inputs', () => def.inputs(dims, seed));
  const reference = clock.time('reference', () => def.reference(inputs, dims));
  if (Object.keys(reference).length === 0) throw new Error(`${def.name}: the reference checks no output`);
  return { inputs, reference };
}

/** The first NaN or infinity of `out`, as a failing report; undefined when every element is finite. */
function nonFinite(out: Float32Array, label: string, sampledNote: string): NumericsReport | undefined {
  const i = firstNonFinite(out);
  if (i < 0) return undefined;
  const report = nonFiniteReport(
    out.length,
    i,
    out[i] as number,
    (what) =>
      `${label}[${i}] is ${what} (every element is checked for NaN and infinity; the reference covers ${sampledNote})`,
  );
  return { ...report, sampled: sampledNote };
}

/**
 * Runs `variant` on the prepared inputs (uploaded again, every non-input buffer poisoned) and compares each checked
 * output with the reference (phases `runs`, `download`, `comparison`). `run` replaces the plain run (the
 * graph twin's replay); it returns the kernel it reports, if any.
 */
export function checkVariant(
  def: CaseDef,
  ws: Workspace,
  variant: string,
  prepared: PreparedInputs,
  clock = new PhaseClock(),
  run: () => string | undefined = () => ws.run(variant),
): VariantCheck {
  // The inputs as made, uploaded for every run: a case that writes into an input in place (gpt2_decode's
  // new K/V row) must write it in this run, not find it written by the variant checked before.
  clock.time('inputs', () => {
    for (const [name, data] of Object.entries(prepared.inputs)) ws.upload(name, data);
  });
  const kernel = clock.time('runs', () => {
    for (const b of ws.buffers()) if (b.role !== 'input') ws.poison(b.name);
    return run();
  });
  const outputs = clock.time('download', () =>
    Object.fromEntries(Object.keys(prepared.reference).map((name) => [name, ws.download(name)])),
  );
  const reports = clock.time('comparison', () =>
    Object.entries(prepared.reference).map(([name, ref]) => {
      const out = outputs[name] as Float32Array;
      const label = `${variant} ${name}`;
      if (ref instanceof Float64Array) return compare(out, ref, def.tolerance, label);
      if (!('indices' in ref)) return compare(out, ref.values, def.tolerance, label, undefined, ref.bound);
      const unwritten = nonFinite(out, label, ref.note);
      if (unwritten) return unwritten;
      const picked = new Float32Array(ref.indices.length);
      for (let k = 0; k < picked.length; k++) {
        const i = ref.indices[k] as number;
        if (i >= out.length)
          throw new Error(`${label}: the reference samples element ${i}; the output has ${out.length}`);
        picked[k] = out[i] as number;
      }
      return { ...compare(picked, ref.values, def.tolerance, label, ref.indices, ref.bound), sampled: ref.note };
    }),
  );
  const first = reports[0] as NumericsReport;
  const report =
    reports.find((r) => r.failure) ?? reports.reduce((a, b) => (b.maxAbsError > a.maxAbsError ? b : a), first);
  return { report, inputs: prepared.inputs, outputs, ...(kernel ? { kernel } : {}) };
}

/** Both variants checked on one set of inputs and one reference: the unfused twin first, then the fused kernel. */
export function checkVariants(
  def: CaseDef,
  ws: Workspace,
  dims: number[],
  seed: number,
  clock = new PhaseClock(),
): { unfused: VariantCheck; fused: VariantCheck; prepared: PreparedInputs } {
  const prepared = prepareInputs(def, dims, seed, clock);
  const unfused = checkVariant(def, ws, def.variants.unfused, prepared, clock);
  const fused = checkVariant(def, ws, def.variants.fused, prepared, clock);
  return { unfused, fused, prepared };
}
