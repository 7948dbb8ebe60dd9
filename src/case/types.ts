/** What a benchmark case is once loaded: one comparison of a fused variant with its unfused twin, ready to run. */
import type { BackendName } from '../addon/device.ts';
import type { Dtype } from '../base/dtype.ts';
import type { Tolerance } from './numerics.ts';

export { DTYPE_BYTES, DTYPES, type Dtype } from '../base/dtype.ts';

/** One problem size of a case. */
export interface Shape {
  /** Short label used in keys and tables, e.g. "16M" or "32x512x768". */
  label: string;
  /** Dimensions passed to the kernel, in the order of the case's native dims. */
  dims: number[];
  /** Human description, e.g. "batch 32 × seq 512 × hidden 768". */
  description: string;
  /**
   * Which timing the gate judges: one call per sample (default), or `batched` back-to-back calls between
   * two events, for launch-bound shapes where launch gaps and the event tick dominate one call.
   */
  timing?: 'batched';
  /** Also time the unfused twin replayed from a CUDA graph against the fused variant (results' `graphTwin`). */
  graphTwin?: true;
  /**
   * Why this shape's speedup moves with something other than the commit (an unfused twin bound by the
   * host's launches): the gate then judges the fused time alone, and reports the speedup.
   */
  ungatedSpeedup?: string;
}

/** Bytes a variant must move through memory (each input read once, each output written once) and its launches. */
export interface Traffic {
  bytes: number;
  launches: number;
}

/**
 * A float64 reference of some elements of an output only (GEMM-sized outputs are too costly to
 * reference whole in JavaScript): flat element indices and their reference values.
 */
export interface SampledReference {
  indices: Uint32Array;
  values: Float64Array;
  /** What was sampled, for reports, e.g. "48 of 16,384 rows". */
  note: string;
  /** Per sampled element, as in a BoundedReference. */
  bound?: Float64Array;
}

/**
 * A whole reference whose elements each carry an error bound: what the kernels' float32 arithmetic can
 * cost at that element, for a formula whose conditioning a tolerance of atol + rtol·|ref| cannot model (a
 * LayerNorm row of nearly equal values: rstd up to 1/√ε amplifies the roundings of h and its mean). The
 * comparison allows the larger of atol + rtol·|ref| and the bound, so the bound matters only where the
 * element is ill-conditioned.
 */
export interface BoundedReference {
  values: Float64Array;
  bound: Float64Array;
}

/** Input buffers by name. */
export type Inputs = Record<string, Float32Array>;
/** The float64 reference of each checked output buffer, whole or sampled. */
export type References = Record<string, Float64Array | BoundedReference | SampledReference>;

/**
 * One comparison of a case (its fused variant against its unfused twin) in one precision: what the
 * harness runs, checks, measures and reports. Built by src/case/load.ts from the case folder's
 * descriptor (cases/<name>/case.ts) and the addon's registration of the same case.
 */
export interface CaseDef {
  /** The name results and baselines use, e.g. "linear_gelu" or "linear_gelu_cublaslt". */
  name: string;
  /** The case folder and native case that runs it. */
  nativeCase: string;
  title: string;
  dtype: Dtype;
  /** Kernel sources of the case folder, relative to the repository root, CUDA first (annotations use the first). */
  sources: readonly string[];
  /** Native variant names of the unfused twin and the fused kernel. */
  variants: { unfused: string; fused: string };
  /** Runtime parameters in the native order, with the values the registration states. */
  params: readonly number[];
  /** Native dimension names, in the order shapes give them. */
  dimNames: readonly string[];
  /** The shapes measured on a backend. */
  shapes(backend: BackendName): Shape[];
  /** Small awkward shapes the numerics suite checks on every backend. */
  testShapes: readonly (readonly number[])[];
  /** Shapes the numerics suite checks on CUDA with grids capped at 1 and 3 blocks (grid-stride kernels). */
  cappedGridShapes: readonly (readonly number[])[];
  /** Throws a clear error naming the shape and the limit when the kernels or the numerics cannot take it. */
  validate(dims: number[]): void;
  /**
   * Why this comparison cannot run on `backend`, or undefined when it can: a variant without an
   * implementation there, a library the build lacks (`cublas`, default: this build's), more shared
   * memory per block than the device allows (`maxSharedMemoryPerBlock`, when given), or bf16 on a GPU
   * older than compute capability 8.0 (`computeCapability`, when given, e.g. "7.0").
   */
  unavailableReason(
    backend: BackendName,
    on?: { cublas?: boolean; maxSharedMemoryPerBlock?: number; computeCapability?: string },
  ): string | undefined;
  /** Input buffers, filled with seeded random data and rounded to the case's precision. */
  inputs(dims: number[], seed: number): Inputs;
  /** The float64 reference of every output buffer checked, whole or sampled. */
  reference(inputs: Inputs, dims: number[]): References;
  /** The tolerance of this precision (the descriptor states one per precision). */
  tolerance: Tolerance;
  /** Bytes each variant moves, in this precision's element size. */
  traffic(dims: number[]): { unfused: Traffic; fused: Traffic };
  /** Useful floating-point operations of one call (the same count for both variants), for TFLOP/s. */
  flops?(dims: number[]): number;
  /** Extra accuracy figures reported beside the numerics (e.g. distance from exact erf-GELU). */
  extraNumerics?(inputs: Inputs, outputs: Record<string, Float32Array>, dims: number[]): Record<string, number>;
  /** Bytes the workspace allocates at `dims`: every native buffer. */
  allocatedBytes(dims: number[]): number;
  /** Elements of the largest buffer (what --max-elements compares). */
  elements(dims: number[]): number;
}
