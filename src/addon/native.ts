/**
 * The typed facade over the native addon. The raw surface is described once (RawAddon) and never
 * exported; everything else in fusebench goes through the functions below.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Dtype } from '../base/dtype.ts';

interface RawWorkspace {
  buffers(): NativeBuffer[];
  upload(name: string, data: Float32Array): void;
  /** Into `out`, which must hold exactly the buffer's elements: JS allocates every array the addon fills. */
  download(name: string, out: Float32Array): void;
  poison(name: string): void;
  run(variant: number): string | undefined;
  time(variant: number): number;
  timeBatch(variant: number, calls: number): number;
  timeGraph(variant: number, calls: number): number;
  graphFacts(variant: number, calls: number): GraphFacts;
  setSpin(spin: number): void;
  dispose(): void;
}

interface RawAddon {
  buildInfo(): { cuda: boolean; cudaCompileVersion?: number; cudaArchitectures?: string; cublas: boolean };
  cudaProbe(): { deviceCount: number; error: string };
  cpuInfo(): {
    model: string;
    logicalCores: number;
    lastLevelCacheBytes: number;
    memoryBytes: number;
    /** What the process may still take: MemAvailable, or its cgroup's room; 0 where neither can be read. */
    availableMemoryBytes: number;
  };
  cudaDeviceInfo(): RawCudaDeviceInfo;
  nvmlInfo(pciBusId: string): {
    available: boolean;
    error: string;
    driverVersion: string;
    maxSmClockMHz: number;
    maxMemClockMHz: number;
  };
  nvmlSample(pciBusId: string): ClockSample | null;
  cases(): NativeCase[];
  checkShape(caseName: string, dtype: string, dims: number[]): void;
  caseBuffers(caseName: string, dtype: string, dims: number[]): NativeBuffer[];
  copyTimes(backend: string, countAndSamples: [number, number], method: CopyMethod): number[];
  matmulTimes(dtype: string, sizeAndSamples: [number, number]): number[];
  constants(): NativeConstants;
  fillNormal(out: Float32Array, seedSdMean: [number, number, number], round: Dtype): void;
  roundFloats(data: Float32Array, elem: Dtype): void;
  linearRow(a: Float64Array, w: Float32Array, b: Float32Array | undefined, y: Float64Array): void;
  firstNonFinite(data: Float32Array): number;
  Workspace: new (
    backend: string,
    caseName: string,
    dtype: string,
    dims: number[],
    params: number[],
    options: { variant: number; passes: number; spin: number; maxBlocks: number },
  ) => RawWorkspace;
}

/**
 * What a graph recorded by timeGraph holds: whether the launches of our kernels went with programmatic
 * dependent launch (PDL: compute capability 9.0+, CUDA 12.3+), with the graph's own count of its kernel
 * nodes and programmatic edges (absent where the toolkit cannot list edge types), and why not PDL.
 */
export interface GraphFacts {
  pdl: boolean;
  kernelNodes: number;
  programmaticEdges?: number;
  noPdlReason?: string;
}

/** One buffer of a case at a shape: its name, element count, role and element type. */
export interface NativeBuffer {
  name: string;
  count: number;
  role: 'input' | 'output' | 'scratch';
  /** How its elements are stored: a float type, or u32 (counters, never uploaded). */
  elem: 'fp32' | 'bf16' | 'fp16' | 'u32';
  /** What the backend allocates for it: count · element bytes, rounded up to whole 4-byte words. */
  bytes: number;
}

/** A case in one precision as its native registration declares it (cases/<name>/<name>_case.cc). */
export interface NativeCase {
  name: string;
  /** The precision of this registration (a case registered in several has one entry per precision). */
  dtype: string;
  /** Dimension names, in the order shapes give them. */
  dims: string[];
  /** Runtime parameters and the value every run passes. */
  params: { name: string; value: number }[];
  /** Variants: whether each has a CPU and (in this build) a CUDA implementation, and what its CUDA path needs. */
  variants: {
    name: string;
    cpu: boolean;
    cuda: boolean;
    needs: '' | 'cublas';
    sharedMemoryBytes: number;
    /** e.g. 80 when its CUDA kernels use sm_80 instructions (0: any GPU). */
    minComputeCapability: number;
    /** e.g. 90 when its CUDA kernels are sm_90a code, which no later GPU runs (0: no bound). */
    maxComputeCapability: number;
  }[];
  /** Shape limits, checked before any allocation. */
  limits: { rule: string; why: string }[];
}

/** Constants the kernels use that the float64 references share (kernels/common/constants.h). */
export interface NativeConstants {
  geluSqrt2OverPi: number;
  geluCubic: number;
  headDim: number;
  attentionScale: number;
  maxSeq: number;
}

/** How a copy-bandwidth sample copies: the runtime's copy (cudaMemcpy, memcpy) or fusebench's copy kernel. */
export type CopyMethod = 'runtime' | 'kernel';

/** Device properties as the CUDA runtime reports them. */
export interface RawCudaDeviceInfo {
  name: string;
  uuid: string;
  pciBusId: string;
  computeCapability: string;
  smCount: number;
  l2Bytes: number;
  memoryBytes: number;
  freeMemoryBytes: number;
  /** The most dynamic shared memory one block can opt in to (bytes). */
  maxSharedMemoryPerBlock: number;
  driverApiVersion: number;
  runtimeVersion: number;
}

/** One reading of the GPU's clocks and the reasons they are held down (NVML). */
export interface ClockSample {
  smClockMHz: number;
  memClockMHz: number;
  clockEventReasons: number;
}

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const candidates = [join(root, 'build', 'Release', 'fusebench.node'), join(root, 'build', 'Debug', 'fusebench.node')];
let addon: RawAddon | undefined;

function load(): RawAddon {
  if (addon) return addon;
  const path = candidates.find((p) => existsSync(p));
  if (!path) {
    throw new Error(
      `The fusebench native addon is not built (looked for ${candidates.join(' and ')}). ` +
        'Build it with `npm run build` (needs CMake >= 3.18 and a C++17 compiler; nvcc for the CUDA backend).',
    );
  }
  addon = createRequire(import.meta.url)(path) as RawAddon;
  return addon;
}

/** How the addon was built: whether it has the CUDA backend, for which architectures. */
export function buildInfo(): ReturnType<RawAddon['buildInfo']> {
  return load().buildInfo();
}

/** Whether a CUDA device is usable; never throws. */
export function cudaProbe(): { deviceCount: number; error: string } {
  const info = load().buildInfo();
  if (!info.cuda) return { deviceCount: 0, error: 'the addon was built without CUDA' };
  return load().cudaProbe();
}

/** The host CPU as the CPU backend sees it. */
export function cpuInfo(): ReturnType<RawAddon['cpuInfo']> {
  return load().cpuInfo();
}

/** Properties of CUDA device 0; throws when there is none. */
export function cudaDeviceInfo(): RawCudaDeviceInfo {
  return load().cudaDeviceInfo();
}

/** Driver version and maximum clocks from NVML, or why NVML is unavailable. */
export function nvmlInfo(pciBusId: string): ReturnType<RawAddon['nvmlInfo']> {
  return load().nvmlInfo(pciBusId);
}

/** Current clocks and clock-event reasons from NVML; null when NVML is unavailable. */
export function nvmlSample(pciBusId: string): ClockSample | null {
  return load().nvmlSample(pciBusId);
}

/** Every case the addon registers in every precision, sorted by name. */
export function nativeCases(): NativeCase[] {
  return load().cases();
}

/** Throws a clear error when `dims` breaks a limit of the native case (naming the shape and the limit). */
export function checkShape(caseName: string, dtype: string, dims: number[]): void {
  load().checkShape(caseName, dtype, dims);
}

/** The buffers a case allocates at `dims` (after the shape check), without allocating them. */
export function caseBuffers(caseName: string, dtype: string, dims: number[]): NativeBuffer[] {
  return load().caseBuffers(caseName, dtype, dims);
}

/** The most samples one native timing call takes (each is a timed call: more is a hang, not a measurement). */
const MAX_NATIVE_SAMPLES = 2 ** 20;

/** Throws "Expected an integer from lo to hi for `what` but received v" unless v is one. */
function expectInteger(what: string, v: number, lo: number, hi: number): void {
  if (!Number.isSafeInteger(v) || v < lo || v > hi) {
    throw new Error(`Expected an integer from ${lo} to ${hi} for \`${what}\` but received ${v} of type ${typeof v}`);
  }
}

/**
 * Milliseconds of `samples` copies of `count` floats within the device, caches flushed before each. The
 * native side also refuses two buffers of `count` floats that exceed the backend's memory.
 */
export function copyTimes(backend: 'cpu' | 'cuda', count: number, samples: number, method: CopyMethod): number[] {
  expectInteger('count', count, 1, Number.MAX_SAFE_INTEGER);
  expectInteger('samples', samples, 1, MAX_NATIVE_SAMPLES);
  return load().copyTimes(backend, [count, samples], method);
}

/**
 * Milliseconds of `samples` square cuBLAS GEMMs of size n in `dtype` on the CUDA device (the call the
 * unfused twins make; native/matmul_probe.h). Throws without CUDA or cuBLAS.
 */
export function matmulTimes(dtype: Dtype, n: number, samples: number): number[] {
  expectInteger('n', n, 1, 65536);
  expectInteger('samples', samples, 1, MAX_NATIVE_SAMPLES);
  return load().matmulTimes(dtype, [n, samples]);
}

/**
 * Fills `out` with mean + sd·N(0, 1) deviates of a counter-based generator (native/random_fill.h: each pair
 * a hash of the seed and its index, made on several threads), rounded to `round`.
 */
export function fillNormal(out: Float32Array, seed: number, sd: number, mean: number, round: Dtype): void {
  load().fillNormal(out, [seed, sd, mean], round);
}

/** Rounds `data` in place to `elem`, to nearest even: exactly what an upload to such a buffer stores. */
export function roundFloats(data: Float32Array, elem: Dtype): void {
  load().roundFloats(data, elem);
}

/** y_j = Σ_k a_k·w[j·k + k'] + b_j in float64 for j < n (src/reference/linear.ts's linearRow, natively). */
export function nativeLinearRow(
  a: Float64Array,
  w: Float32Array,
  b: Float32Array | undefined,
  n: number,
): Float64Array {
  if (!(Number.isInteger(n) && n >= 0 && n * Math.max(a.length, 1) <= w.length))
    throw new RangeError('Expected n with n·max(a.length, 1) at most w.length');
  const y = new Float64Array(n);
  load().linearRow(a, w, b, y);
  return y;
}

/** The index of the first NaN or infinity in `data`, or -1 when every element is finite (scanned on several threads). */
export function firstNonFinite(data: Float32Array): number {
  return load().firstNonFinite(data);
}

let constantsCache: NativeConstants | undefined;
/** The constants kernels and references share (read once). */
export function nativeConstants(): NativeConstants {
  constantsCache ??= load().constants();
  return constantsCache;
}

/** The buffers of one case at one shape on a backend. Call dispose() to free device memory early. */
export class Workspace {
  readonly #raw: RawWorkspace;
  readonly #variants: string[];

  constructor(
    backend: 'cpu' | 'cuda',
    caseName: string,
    dtype: string,
    dims: number[],
    params: number[],
    inject: { variant: string; passes: number; spin?: number } | undefined,
    options: { maxBlocks?: number } = {},
  ) {
    // The shape was checked by the case's validate (src/case/load.ts); the addon guards its memory itself.
    for (const [i, p] of params.entries()) {
      if (!Number.isFinite(p))
        throw new Error(`Expected a finite number for params[${i}] of ${caseName} but received ${p}`);
    }
    const spec = load()
      .cases()
      .find((c) => c.name === caseName && c.dtype === dtype);
    if (!spec) throw new Error(`The native addon has no case '${caseName}' in ${dtype}`);
    this.#variants = spec.variants.map((v) => v.name);
    const injectIndex = inject ? this.#variants.indexOf(inject.variant) : -1;
    if (inject && injectIndex < 0) {
      throw new Error(
        `Expected a variant of ${caseName} to inject into (${this.#variants.join(', ')}) but received '${inject.variant}'`,
      );
    }
    // The native side refuses what its integers cannot hold; these name the bound first.
    expectInteger('inject.passes', inject?.passes ?? 0, 0, 2 ** 20);
    expectInteger('inject.spin', inject?.spin ?? 0, 0, 2 ** 40);
    expectInteger('maxBlocks', options.maxBlocks ?? 0, 0, 2 ** 31);
    this.#raw = new (load().Workspace)(backend, caseName, dtype, dims, params, {
      variant: injectIndex,
      passes: inject?.passes ?? 0,
      spin: inject?.spin ?? 0,
      maxBlocks: options.maxBlocks ?? 0,
    });
  }

  /** The case's buffers with their sizes (floats) and roles. */
  buffers(): ReturnType<RawWorkspace['buffers']> {
    return this.#raw.buffers();
  }
  /** Copies host data into a buffer, stored in its element type (bf16/fp16: rounded to nearest even); the length must match. */
  upload(name: string, data: Float32Array): void {
    this.#raw.upload(name, data);
  }
  /** Copies a buffer back to the host, widened to float32. */
  download(name: string): Float32Array {
    const buffer = this.#raw.buffers().find((b) => b.name === name);
    const out = new Float32Array(buffer?.count ?? 0); // an unknown name: the addon says which names there are
    this.#raw.download(name, out);
    return out;
  }
  /** Fills a buffer with NaN (all-ones bits, a NaN in every float type). */
  poison(name: string): void {
    this.#raw.poison(name);
  }
  /**
   * Runs a variant once and waits for it. Returns the kernel the variant reports having launched where
   * it picks its kernel at run time (by device, shape or build), else undefined.
   */
  run(variant: string): string | undefined {
    return this.#raw.run(this.#index(variant));
  }
  /** Device time of one call of a variant in milliseconds, the caches flushed first. */
  time(variant: string): number {
    return this.#raw.time(this.#index(variant));
  }
  /**
   * Device time per call of `calls` back-to-back calls of a variant in milliseconds, the caches flushed
   * before the first. On CUDA the calls queue up behind a held kernel first, so they run at the device's
   * pace, not the host's (launch-bound shapes: neither launch gaps nor the event tick dominate).
   */
  timeBatch(variant: string, calls: number): number {
    return this.#raw.timeBatch(this.#index(variant), calls);
  }
  /**
   * Device time per call of `calls` calls of a variant recorded once into a CUDA graph and replayed, the
   * caches flushed before the replay: the variant's launches with the host's launch gaps removed. CUDA
   * only; throws on the CPU backend, and names the CUDA error when a launch cannot be recorded.
   */
  timeGraph(variant: string, calls: number): number {
    return this.#raw.timeGraph(this.#index(variant), calls);
  }
  /** What the graph timeGraph recorded for (variant, calls) holds (PDL or not); throws where none was. */
  graphFacts(variant: string, calls: number): GraphFacts {
    return this.#raw.graphFacts(this.#index(variant), calls);
  }
  /** Sets the spin injected after the injected variant: SM clock cycles on CUDA, nanoseconds on the CPU. */
  setSpin(spin: number): void {
    this.#raw.setSpin(spin);
  }
  /** Frees the buffers now rather than at garbage collection. */
  dispose(): void {
    this.#raw.dispose();
  }
  #index(variant: string): number {
    const i = this.#variants.indexOf(variant);
    if (i < 0) throw new Error(`No variant '${variant}'; expected one of ${this.#variants.join(', ')}`);
    return i;
  }
}
