/** The device a run measures: which backend, what hardware, its fingerprint and copy bandwidth. */
import { existsSync } from 'node:fs';

import { DTYPES, type Dtype, dtypeUnsupportedOn } from '../base/dtype.ts';
import { summarize } from '../base/stats.ts';
import {
  buildInfo,
  type ClockSample,
  type CopyMethod,
  copyTimes,
  cpuInfo,
  cudaDeviceInfo,
  cudaProbe,
  matmulTimes,
  nvmlInfo,
  nvmlSample,
} from './native.ts';

/** A backend fusebench measures on. */
export type BackendName = 'cpu' | 'cuda';
/** The backend choices of a run. */
export const BACKEND_CHOICES = ['auto', 'cpu', 'cuda'] as const;
/** Which backend to run: `auto` picks CUDA when a device is usable, else the CPU. */
export type BackendChoice = (typeof BACKEND_CHOICES)[number];

/** What a device is, as written into results and compared against baselines. */
export interface DeviceDescription {
  backend: BackendName;
  /** Model name, e.g. "NVIDIA H100 80GB HBM3" or the CPU model. */
  name: string;
  /** File-name form of the model: baselines/<slug>.json. */
  slug: string;
  /** Hardware configuration lines for the report. */
  details: Record<string, string>;
  /** What must match for numbers to be comparable: driver, CUDA version, clocks. */
  fingerprint: {
    driver?: string;
    cudaRuntime?: string;
    cudaDriverApi?: string;
    maxSmClockMHz?: number;
    maxMemClockMHz?: number;
    computeCapability?: string;
    uuid?: string;
  };
  /** Measured device-to-device copy bandwidth, GB/s, counting bytes read plus bytes written. */
  copyBandwidthGBs: number;
  /** Measured cuBLAS square-GEMM throughput, TFLOP/s, per precision the device runs (CUDA with cuBLAS). */
  matrixPeakTFlops?: Partial<Record<Dtype, number>>;
  /** Free device memory at the start of the run (bytes). */
  freeMemoryBytes: number;
  /** CUDA: the most dynamic shared memory one block can have (bytes). */
  maxSharedMemoryPerBlock?: number;
}

/** The device plus a way to read its clocks during sampling (CUDA with NVML only). */
export interface DeviceContext {
  description: DeviceDescription;
  sampleClocks: () => ClockSample | null;
}

/** "Tesla V100-SXM2-32GB" → "tesla-v100-sxm2-32gb". */
export function deviceSlug(name: string): string {
  return name
    .toLowerCase()
    .replace(/\((r|tm)\)/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/**
 * Why no CUDA device is usable, in words. Without an NVIDIA driver (a machine with no GPU) the CUDA runtime
 * reports an "insufficient" one: said as no driver, with the runtime's error name.
 */
export function noDeviceReason(
  error: string,
  // WSL2 has no /proc/driver/nvidia: its GPU is /dev/dxg, the host's driver behind it.
  driverLoaded = process.platform !== 'linux' || existsSync('/proc/driver/nvidia/version') || existsSync('/dev/dxg'),
): string {
  if (!error.startsWith('cudaErrorInsufficientDriver') || driverLoaded) return error;
  return `no NVIDIA driver is loaded: the CUDA runtime reports ${error.split(' ')[0]}`;
}

/** Picks the backend: an explicit choice is checked and explained; `auto` prefers a usable GPU. */
export function resolveBackend(choice: BackendChoice): { backend: BackendName; why: string } {
  if (choice === 'cpu') return { backend: 'cpu', why: 'asked for with --backend cpu' };
  const built = buildInfo().cuda;
  const probe = cudaProbe();
  if (choice === 'cuda') {
    if (!built) {
      throw new Error(
        'The CUDA backend was asked for but the addon was built without it (no nvcc was found at build time, ' +
          'or FUSEBENCH_CUDA=0). Put nvcc on PATH (or set CUDACXX) and run `npm run build`.',
      );
    }
    if (probe.deviceCount === 0) {
      throw new Error(
        `The CUDA backend was asked for but no CUDA device is usable: ${noDeviceReason(probe.error)}. ` +
          'Check `nvidia-smi` and the driver, or run with --backend cpu.',
      );
    }
    return { backend: 'cuda', why: 'asked for with --backend cuda' };
  }
  if (built && probe.deviceCount > 0) return { backend: 'cuda', why: 'auto: a CUDA device is usable' };
  return {
    backend: 'cpu',
    why: built
      ? `auto: CUDA is built but no device is usable (${noDeviceReason(probe.error)})`
      : 'auto: the addon was built without CUDA',
  };
}

const GiB = 1024 ** 3;

/** Copy bandwidth, GB/s counting bytes read plus written, by each way of copying and the best of them. */
interface CopyBandwidth {
  best: number;
  byMethod: Record<CopyMethod, number>;
}

/** Timed copies per size and method. */
const COPY_SAMPLES = 50;

/**
 * Measures copy bandwidth: 50 timed copies of each size in `sizes` (bytes), by the runtime's copy
 * (cudaMemcpy, memcpy) and by fusebench's vectorized copy kernel, under the same protocol as every case
 * (cache flushed before each sample), so the percentages compare like with like. The ceiling is the best
 * of them all, each at its fast decile (the 10th percentile of its times): the memory's speed, not a
 * typical copy's. A runtime copy slower than the suite's own kernels, a copy of one size only (the copy
 * kernel's grid loops at 1 GiB, not at the 64 MiB of gelu_scale 16M, so a fused kernel that does not
 * loop can beat it), or a median (a kernel at the memory's speed then reads above it half the time)
 * would let a case read as more than 100% (docs/measurements.md, "Copy ceiling").
 */
function measureCopyBandwidth(backend: BackendName, sizes: readonly number[], samples = COPY_SAMPLES): CopyBandwidth {
  const best = (method: CopyMethod) =>
    Math.max(
      ...sizes.map((bytes) => {
        const n = Math.floor(bytes / 4);
        return (2 * n * 4) / (summarize(copyTimes(backend, n, samples, method)).p10 / 1e3) / 1e9;
      }),
    );
  const byMethod = { runtime: best('runtime'), kernel: best('kernel') };
  return { best: Math.max(byMethod.runtime, byMethod.kernel), byMethod };
}

/** "4288 GB/s (runtime copy 4120, copy kernel 4288)". */
function copyDetail(c: CopyBandwidth): string {
  return `${c.best.toFixed(0)} GB/s (runtime copy ${c.byMethod.runtime.toFixed(0)}, copy kernel ${c.byMethod.kernel.toFixed(0)})`;
}

/** The square GEMM the matrix peak is measured at, and its timed calls per precision. */
const PEAK_GEMM_N = 8192;
const PEAK_SAMPLES = 20;

/**
 * Measures the matrix peak of each precision the device runs: 20 timed cuBLAS GEMMs of 8192³ (the
 * unfused twins' own call: FP32 math in fp32, tensor cores with fp32 accumulation in bf16/fp16), the
 * fast decile's TFLOP/s, as the copy ceiling takes its fast decile, in each precision the device runs.
 * Without cuBLAS, or without the memory for three 8192² fp32 matrices, it says why instead: no ceiling
 * is then quoted, and none is typed in instead.
 */
function measureMatrixPeak(
  computeCapability: string,
  freeMemoryBytes: number,
): { peak: Partial<Record<Dtype, number>> } | { why: string } {
  if (!buildInfo().cublas) return { why: 'the addon was built without cuBLAS' };
  const n = PEAK_GEMM_N;
  if (3 * n * n * 4 > freeMemoryBytes / 2) return { why: `less than twice three ${n}² fp32 matrices of memory free` };
  const peak: Partial<Record<Dtype, number>> = {};
  for (const dtype of DTYPES) {
    if (dtypeUnsupportedOn(dtype, computeCapability)) continue;
    peak[dtype] = (2 * n ** 3) / (summarize(matmulTimes(dtype, n, PEAK_SAMPLES)).p10 / 1e3) / 1e12;
  }
  return { peak };
}

/** "fp32 51.2 · bf16 712 · fp16 745 TFLOP/s (cuBLAS 8192³)". */
function matrixPeakDetail(peak: Partial<Record<Dtype, number>>): string {
  const parts = DTYPES.filter((d) => peak[d] !== undefined).map((d) => {
    const v = peak[d] as number;
    return `${d} ${v >= 100 ? v.toFixed(0) : v.toFixed(1)}`;
  });
  return `${parts.join(' · ')} TFLOP/s (cuBLAS ${PEAK_GEMM_N}³)`;
}

/** The slug of the backend's device (its baseline file's name), without measuring anything. */
export function backendSlug(backend: BackendName): string {
  return backend === 'cpu' ? `cpu-${deviceSlug(cpuInfo().model)}` : deviceSlug(cudaDeviceInfo().name);
}

/** Opens the backend, describes its device and measures its copy bandwidth and matrix peak. */
export function openDevice(backend: BackendName): DeviceContext {
  if (backend === 'cpu') {
    const cpu = cpuInfo();
    // 64 MiB, 20 copies per method: the source's lines are evicted before each (cpu_backend.cc), so no
    // size need exceed the last-level cache, and every CPU run (each e2e test's too) starts in about a
    // second rather than the ten that 100 copies of 256 MiB took.
    const copy = measureCopyBandwidth('cpu', [64 * 1024 ** 2], 20);
    return {
      description: {
        backend,
        name: cpu.model,
        slug: `cpu-${deviceSlug(cpu.model)}`,
        details: {
          CPU: cpu.model,
          'Logical cores': String(cpu.logicalCores),
          'Threads used': '1 (kernels are single-threaded)',
          'Last-level cache': `${(cpu.lastLevelCacheBytes / 1024 ** 2).toFixed(0)} MiB`,
          Memory: `${(cpu.memoryBytes / GiB).toFixed(1)} GiB`,
          'Copy bandwidth': copyDetail(copy),
        },
        fingerprint: {},
        copyBandwidthGBs: copy.best,
        freeMemoryBytes: cpu.availableMemoryBytes > 0 ? cpu.availableMemoryBytes : cpu.memoryBytes,
      },
      sampleClocks: () => null,
    };
  }
  const gpu = cudaDeviceInfo();
  const nvml = nvmlInfo(gpu.pciBusId);
  const build = buildInfo();
  const version = (v: number) => `${Math.floor(v / 1000)}.${(v % 1000) / 10}`;
  // 1 GiB (or a quarter of free memory): far past any L2, so every copy goes to DRAM.
  // 64 MiB to 1 GiB (at most a quarter of free memory each): far past the L2 with its flush, and the
  // sizes of the memory-bound cases' tensors.
  const sizes = [GiB / 16, GiB / 4, GiB].map((b) => Math.min(b, Math.floor(gpu.freeMemoryBytes / 4)));
  const copy = measureCopyBandwidth('cuda', sizes);
  const matrix = measureMatrixPeak(gpu.computeCapability, gpu.freeMemoryBytes);
  return {
    description: {
      backend,
      name: gpu.name,
      slug: deviceSlug(gpu.name),
      details: {
        GPU: gpu.name,
        'Compute capability': gpu.computeCapability,
        Multiprocessors: String(gpu.smCount),
        'L2 cache': `${(gpu.l2Bytes / 1024 ** 2).toFixed(0)} MiB`,
        Memory: `${(gpu.memoryBytes / GiB).toFixed(1)} GiB`,
        Driver: nvml.available ? nvml.driverVersion : `CUDA driver API ${version(gpu.driverApiVersion)}`,
        'CUDA runtime': version(gpu.runtimeVersion),
        'Built for': build.cudaArchitectures ?? 'unknown',
        'Max clocks (SM / memory)': nvml.available
          ? `${nvml.maxSmClockMHz} / ${nvml.maxMemClockMHz} MHz`
          : `unknown (${nvml.error})`,
        'Copy bandwidth': copyDetail(copy),
        'Matrix peak': 'peak' in matrix ? matrixPeakDetail(matrix.peak) : `not measured (${matrix.why})`,
      },
      fingerprint: {
        driver: nvml.available ? nvml.driverVersion : undefined,
        cudaRuntime: version(gpu.runtimeVersion),
        cudaDriverApi: version(gpu.driverApiVersion),
        maxSmClockMHz: nvml.available ? nvml.maxSmClockMHz : undefined,
        maxMemClockMHz: nvml.available ? nvml.maxMemClockMHz : undefined,
        computeCapability: gpu.computeCapability,
        uuid: gpu.uuid,
      },
      copyBandwidthGBs: copy.best,
      ...('peak' in matrix ? { matrixPeakTFlops: matrix.peak } : {}),
      freeMemoryBytes: gpu.freeMemoryBytes,
      maxSharedMemoryPerBlock: gpu.maxSharedMemoryPerBlock,
    },
    sampleClocks: () => nvmlSample(gpu.pciBusId),
  };
}
