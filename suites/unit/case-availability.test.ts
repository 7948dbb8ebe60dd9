// Which cases a backend and an addon build can run, and the reason a run gives when one cannot:
// the GEMM/attention twins need cuBLAS on CUDA (a toolkit without it, like CI's, skips them with
// the reason), and the cuBLASLt-fused variant exists on CUDA only.
import { describe, expect, test } from 'vitest';
import { CASES } from '../../src/cases/index.ts';
import { linearGelu, linearGeluCublasLt } from '../../src/cases/linear-gelu.ts';
import { residualLayerNorm } from '../../src/cases/residual-layernorm.ts';
import type { DeviceContext } from '../../src/device.ts';
import { runCase, unavailableReason } from '../../src/run-case.ts';

describe('case availability', () => {
  test('a cuBLAS case on CUDA without cuBLAS is unavailable, naming the missing libraries', () => {
    expect(unavailableReason(linearGelu, 'cuda', { cublas: false })).toMatch(/needs cuBLAS\/cuBLASLt.*built without/);
    expect(unavailableReason(linearGelu, 'cuda', { cublas: true })).toBeUndefined();
    expect(unavailableReason(linearGelu, 'cpu', { cublas: false })).toBeUndefined();
  });

  test('memory-bound cases need no library', () => {
    expect(unavailableReason(residualLayerNorm, 'cuda', { cublas: false })).toBeUndefined();
  });

  test('the cuBLASLt variant runs on CUDA only', () => {
    expect(unavailableReason(linearGeluCublasLt, 'cpu', { cublas: true })).toMatch(/runs on cuda only/);
    expect(unavailableReason(linearGeluCublasLt, 'cuda', { cublas: true })).toBeUndefined();
  });

  test('every GEMM and attention case declares its cuBLAS need; the memory-bound ones do not', () => {
    const needing = CASES.filter((c) => c.requires?.includes('cublas')).map((c) => c.name);
    expect(needing).toEqual([
      'linear_gelu',
      'linear_gelu_cublaslt',
      'layernorm_linear',
      'ffn',
      'attention',
      'attention_layernorm_residual',
      'transformer_block',
    ]);
  });

  test('a run of an unavailable case is a skip with the reason, before any allocation', () => {
    const device = { description: { backend: 'cpu', freeMemoryBytes: 1e12 } } as unknown as DeviceContext;
    const shape = { label: 'tiny', dims: [4, 4, 4], description: 'tiny' };
    const settings = { budgetMs: 1, minPairs: 1, warmupPairs: 0, targetHalfWidth: 1, seed: 1, maxElements: undefined };
    const r = runCase(linearGeluCublasLt, shape, device, settings);
    expect(r.status).toBe('skipped');
    expect(r.reason).toMatch(/runs on cuda only/);
  });
});
