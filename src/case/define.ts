/**
 * What a case folder declares in TypeScript (cases/<name>/case.ts, `export default defineCase({...})`):
 * the shapes, the seeded inputs, the float64 reference, the tolerance, the traffic and flop models and
 * the display text. Everything the addon already knows — dim and parameter names, buffers and their
 * sizes, variants, shape limits — comes from the case's native registration, not from here.
 */
import type { BackendName } from '../addon/device.ts';
import type { Tolerance } from './numerics.ts';
import type { Dtype, Inputs, References, Traffic } from './types.ts';

/** A case's dimensions by their native names. */
type Dims<D extends string> = Readonly<Record<D, number>>;
/** A case's runtime parameters by their native names, with the values the registration states. */
type Params<P extends string> = Readonly<Record<P, number>>;

/** A measured shape: dims by name, a description, and a label for keys and tables when not the dims joined by "x". */
interface ShapeDecl<D extends string> {
  /** Default: the dims in native order joined by "x" ("16384x768"); give one only where that is not the name ("16M"). */
  label?: string;
  dims: Dims<D>;
  description: string;
  /** `batched`: the gate judges batches of back-to-back calls (launch-bound shapes); default one call per sample. */
  timing?: 'batched';
  /** Also time the unfused twin replayed from a CUDA graph, a third timing beside unfused and fused (CUDA only). */
  graphTwin?: true;
  /** Why the speedup moves with the machine, not the commit (a host-bound unfused twin): the gate judges the fused time alone. */
  ungatedSpeedup?: string;
  /** Measured only in these precisions (default: every one the addon registers), for dims a precision's limits refuse. */
  dtypes?: readonly Dtype[];
}

/** A test shape checked only in some precisions (dims another precision's registration refuses). */
interface DtypeTestShape<D extends string> {
  dims: Dims<D>;
  dtypes: readonly Dtype[];
}

/** A fused variant compared with the unfused twin, under a name of its own when it is not the case's first. */
export interface Comparison {
  /** Results and baseline name; default the case's. */
  name?: string;
  /** Display title; default the case's. */
  title?: string;
  fused: string;
  /** Default "unfused". */
  unfused?: string;
  /** The precisions it is measured in (default: every one the addon registers), e.g. a fused variant fp32 only. */
  dtypes?: readonly Dtype[];
}

/** The TypeScript half of a case. D: dim names; P: param names (both as the native registration has them). */
export interface CaseDescriptor<D extends string, P extends string = never> {
  title: string;
  /** Measured shapes per backend. */
  shapes: Record<BackendName, ShapeDecl<D>[]>;
  /** Small awkward shapes whose numerics every backend checks (in every precision, or in those named). */
  testShapes: (Dims<D> | DtypeTestShape<D>)[];
  /** Shapes checked on CUDA with every grid-stride launch capped at 1 and 3 blocks. */
  cappedGridShapes?: Dims<D>[];
  /** Seeded random inputs in float32; the loader rounds them to each precision the case runs in. */
  inputs(d: Dims<D>, seed: number): Inputs;
  /** The float64 reference; `dtype` for references that follow what a precision stores (norms of a rounded h). */
  reference(inputs: Inputs, d: Dims<D>, params: Params<P>, dtype: Dtype): References;
  /** The tolerance of each precision the native registration declares (fp32 always). */
  tolerance: { fp32: Tolerance } & Partial<Record<Dtype, Tolerance>>;
  /**
   * Bytes each variant moves, given `e`, the bytes of one element of `dtype`, the precision measured:
   * the unfused and fused models, plus one under a native variant's name where a comparison's variant
   * moves other bytes than the "fused" model says (a library-fused variant).
   */
  traffic(d: Dims<D>, e: number, dtype: Dtype): { unfused: Traffic; fused: Traffic; [variant: string]: Traffic };
  flops?(d: Dims<D>): number;
  extraNumerics?(
    inputs: Inputs,
    outputs: Record<string, Float32Array>,
    d: Dims<D>,
    params: Params<P>,
  ): Record<string, number>;
  /** The comparisons measured; default one: "fused" against "unfused", under the case's name. */
  compare?: Comparison[];
}

/** Declares a case's TypeScript half; the loader pairs it with the native registration of the same folder. */
export function defineCase<D extends string, P extends string = never>(
  descriptor: CaseDescriptor<D, P>,
): CaseDescriptor<D, P> {
  return descriptor;
}
