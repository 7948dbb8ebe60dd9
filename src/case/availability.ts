/**
 * Why a comparison cannot run on a backend (undefined: it can): a precision the GPU lacks, a variant with
 * no implementation there, cuBLAS missing from the build, a compute capability or shared memory too small.
 */
import type { BackendName } from '../addon/device.ts';
import { buildInfo, type NativeCase } from '../addon/native.ts';
import { type Dtype, dtypeUnsupportedOn } from '../base/dtype.ts';
import type { CaseDef } from './types.ts';

type NativeVariant = NativeCase['variants'][number];
type DeviceFacts = Parameters<CaseDef['unavailableReason']>[1];

/** The reason `used` (a comparison's two variants) cannot run in `dtype` on `backend`, or undefined. */
export function unavailableReason(
  dtype: Dtype,
  used: readonly NativeVariant[],
  backend: BackendName,
  on: NonNullable<DeviceFacts> = {},
): string | undefined {
  const cublas = on.cublas ?? buildInfo().cublas;
  const cc = on.computeCapability;
  const unsupported = backend === 'cuda' && cc !== undefined ? dtypeUnsupportedOn(dtype, cc) : undefined;
  if (unsupported) return unsupported;
  for (const v of used) {
    const why = backend === 'cpu' ? cpuGap(v) : cudaGap(v, cublas, cc, on.maxSharedMemoryPerBlock);
    if (why) return why;
  }
  return undefined;
}

function cpuGap(v: NativeVariant): string | undefined {
  if (!v.cpu) {
    const why = v.needs === 'cublas' ? ': it calls cuBLAS' : '';
    return `runs on cuda only (its variant '${v.name}' has no CPU implementation${why})`;
  }
  return undefined;
}

function cudaGap(
  v: NativeVariant,
  cublas: boolean,
  cc: string | number | undefined,
  smem: number | undefined,
): string | undefined {
  if (!v.cuda) return `its variant '${v.name}' has no CUDA implementation in this build`;
  if (v.needs === 'cublas' && !cublas) {
    return 'needs cuBLAS/cuBLASLt, and this addon was built without them (the CUDA toolkit it was built with has no libcublas); rebuild where the toolkit has them';
  }
  if (cc !== undefined && v.minComputeCapability > Math.round(Number(cc) * 10)) {
    const need = (v.minComputeCapability / 10).toFixed(1);
    return `its variant '${v.name}' needs compute capability ${need}+ (sm_${v.minComputeCapability} instructions); this GPU is ${cc}`;
  }
  if (cc !== undefined && v.maxComputeCapability > 0 && v.maxComputeCapability < Math.round(Number(cc) * 10)) {
    const most = (v.maxComputeCapability / 10).toFixed(1);
    return `its variant '${v.name}' runs on compute capability ${most} at most (sm_${v.maxComputeCapability}a code, which later GPUs cannot run); this GPU is ${cc}`;
  }
  if (smem !== undefined && v.sharedMemoryBytes > smem) {
    return (
      `its variant '${v.name}' needs ${v.sharedMemoryBytes.toLocaleString('en-US')} bytes of shared memory per ` +
      `block; this GPU allows ${smem.toLocaleString('en-US')}`
    );
  }
  return undefined;
}
