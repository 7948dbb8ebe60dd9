/** What a benchmark case is: its variants, shapes, inputs, float64 reference and traffic model. */
import type { Tolerance } from '../numerics.ts';

/** The compute backends fusebench has. */
export type BackendName = 'cpu' | 'cuda';

/** One problem size of a case. */
export interface Shape {
  /** Short label used in keys and tables, e.g. "16M" or "32x512x768". */
  label: string;
  /** Dimensions passed to the kernel, in the case's order. */
  dims: number[];
  /** Human description, e.g. "batch 32 × seq 512 × hidden 768". */
  description: string;
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
}

/** What a case needs beyond a backend: the cuBLAS/cuBLASLt link, for GEMM and attention twins. */
export type Requirement = 'cublas';

/** A fused kernel, its unfused twin, and everything needed to check and measure them. */
export interface CaseDef {
  name: string;
  /** The addon's case that runs it, when not `name` (two defs can pair different variants of one native case). */
  nativeCase?: string;
  title: string;
  /** Kernel sources, relative to the repository root (for annotations and the report). */
  sources: string[];
  /** Native variant names of the unfused twin and the fused kernel. */
  variants: { unfused: string; fused: string };
  /** Runtime parameters passed to the kernels (e.g. the scale). */
  params: number[];
  /** The shapes measured on a backend. */
  shapes(backend: BackendName): Shape[];
  /** Throws a clear error naming the shape when the kernels cannot take it. */
  validate(dims: number[]): void;
  /** Input buffers, filled with seeded random data. */
  inputs(dims: number[], seed: number): Record<string, Float32Array>;
  /** The float64 reference of every output buffer checked, whole or sampled. */
  reference(inputs: Record<string, Float32Array>, dims: number[]): Record<string, Float64Array | SampledReference>;
  tolerance: Tolerance;
  traffic(dims: number[]): { unfused: Traffic; fused: Traffic };
  /** Backends the case runs on (all when absent); e.g. a cuBLASLt-fused variant is CUDA-only. */
  backends?: readonly BackendName[];
  /** Libraries the case's CUDA variants need; without them the case is skipped on CUDA with the reason. */
  requires?: readonly Requirement[];
  /** Useful floating-point operations of one call (the same count for both variants), for TFLOP/s. */
  flops?(dims: number[]): number;
  /** Elements compared with --max-elements (default: the product of the dimensions). */
  elements?(dims: number[]): number;
  /** Bytes the workspace allocates, inputs, outputs and scratch (default: 16 per element). */
  allocatedBytes?(dims: number[]): number;
  /** Extra accuracy figures reported beside the numerics (e.g. distance from exact erf-GELU). */
  extraNumerics?(
    inputs: Record<string, Float32Array>,
    outputs: Record<string, Float32Array>,
    dims: number[],
  ): Record<string, number>;
}

/** Throws unless every dimension is a positive safe integer and the element count fits `limit` (a kernel's indexing limit, when it has one). */
export function checkDims(caseName: string, dims: number[], expected: number, limit = Number.MAX_SAFE_INTEGER): void {
  const shape = `[${dims.join(', ')}]`;
  if (dims.length !== expected) {
    throw new Error(`${caseName}: shape ${shape} has ${dims.length} dimensions; expected ${expected}`);
  }
  for (const d of dims) {
    if (!Number.isSafeInteger(d) || d <= 0) {
      throw new Error(`${caseName}: shape ${shape} has dimension ${d}; every dimension must be a positive integer`);
    }
  }
  const elements = dims.reduce((a, b) => a * b, 1);
  if (elements > limit) {
    throw new Error(
      `${caseName}: shape ${shape} has ${elements} elements, more than the ${limit} the kernel can index`,
    );
  }
}
