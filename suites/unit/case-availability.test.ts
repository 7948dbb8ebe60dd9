// Which cases a backend and an addon build can run, and the reason a run gives when one cannot: the
// variants that call cuBLAS need it on CUDA (a toolkit without it, like CI's, skips them with the
// reason), and the cuBLASLt-fused variant has no CPU implementation. The facts come from the native
// registrations (each variant's implementations and needs).
import { describe, expect, test } from 'vitest';
import { findCase, loadCases } from '../../cases/registry.ts';
import type { DeviceContext } from '../../src/addon/device.ts';
import { unavailableReason } from '../../src/case/availability.ts';
import { runCase } from '../../src/run/run-case.ts';

const linearGelu = await findCase('linear_gelu');
const linearGeluCublasLt = await findCase('linear_gelu_cublaslt');
const residualLayerNorm = await findCase('residual_layernorm');

describe('case availability', () => {
  test('a cuBLAS case on CUDA without cuBLAS is unavailable, naming the missing libraries', () => {
    expect(linearGelu.unavailableReason('cuda', { cublas: false })).toMatch(/needs cuBLAS\/cuBLASLt.*built without/);
    expect(linearGelu.unavailableReason('cpu', { cublas: false })).toBeUndefined();
  });

  test('memory-bound cases need no library', () => {
    expect(residualLayerNorm.unavailableReason('cuda', { cublas: false })).toBeUndefined();
    expect(residualLayerNorm.unavailableReason('cpu', { cublas: false })).toBeUndefined();
  });

  test('the cuBLASLt variant runs on CUDA only', () => {
    expect(linearGeluCublasLt.unavailableReason('cpu', { cublas: true })).toMatch(/runs on cuda only/);
  });

  test("a CUDA-only variant is called a library call only when it calls one (prefolded is fusebench's own kernel)", async () => {
    expect((await findCase('gemm')).unavailableReason('cpu', { cublas: true })).toBe(
      "runs on cuda only (its variant 'cublas' has no CPU implementation: it calls cuBLAS)",
    );
    expect((await findCase('layernorm_linear_prefolded')).unavailableReason('cpu', { cublas: true })).toBe(
      "runs on cuda only (its variant 'prefolded' has no CPU implementation)",
    );
  });

  test('every GEMM and attention comparison needs cuBLAS on CUDA (its twin calls it); the memory-bound ones do not', async () => {
    const needing = (await loadCases())
      .filter((c) => c.unavailableReason('cuda', { cublas: false }) !== undefined)
      .map((c) => `${c.name}/${c.dtype}`);
    expect(needing).toEqual([
      'gemm/fp32',
      'linear_gelu/fp32',
      'linear_gelu_cublaslt/fp32',
      'linear_gelu/bf16',
      'linear_gelu/fp16',
      'layernorm_linear/fp32',
      'layernorm_linear_prefolded/fp32',
      'layernorm_linear/bf16',
      'layernorm_linear/fp16',
      'ffn/fp32',
      'ffn_cublaslt/fp32',
      'ffn/bf16',
      'ffn/fp16',
      'attention/fp32',
      'attention/bf16',
      'attention/fp16',
      'attention_layernorm_residual/fp32',
      'attention_layernorm_residual/bf16',
      'attention_layernorm_residual/fp16',
      'transformer_block/fp32',
      'transformer_block_cublaslt/fp32',
      'transformer_block/bf16',
      'transformer_block/fp16',
      'gpt2_forward/fp32',
      'gpt2_forward/bf16',
      'gpt2_forward/fp16',
      'gpt2_decode/fp32',
      'gpt2_decode/bf16',
      'gpt2_decode/fp16',
      'llama_decode/fp32',
      'llama_decode/bf16',
      'llama_decode/fp16',
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

describe('precisions and instructions a Volta GPU lacks', () => {
  test('bf16 is a skip below compute capability 8.0, naming it; fp16 runs there unless a variant needs sm_80', async () => {
    const cases = await loadCases();
    const of = (name: string, dtype: string) => cases.find((c) => c.name === name && c.dtype === dtype);
    const volta = { cublas: true, computeCapability: '7.0' };
    expect(of('gelu_scale', 'bf16')?.unavailableReason('cuda', volta)).toBe(
      'bf16 needs compute capability 8.0+ (bf16 arithmetic and tensor-core bf16); this GPU is 7.0',
    );
    expect(of('gelu_scale', 'fp16')?.unavailableReason('cuda', volta)).toBeUndefined();
    expect(of('attention', 'fp16')?.unavailableReason('cuda', volta)).toBe(
      "its variant 'fused' needs compute capability 8.0+ (sm_80 instructions); this GPU is 7.0",
    );
    expect(
      of('attention', 'fp16')?.unavailableReason('cuda', { cublas: true, computeCapability: '9.0' }),
    ).toBeUndefined();
    expect(of('attention', 'fp16')?.unavailableReason('cpu', volta)).toBeUndefined();
  });
});

describe('sm_90a code, which no later GPU runs', () => {
  // The variant llama_decode declares (native: min and max compute capability 90).
  const hopperOnly = {
    name: 'fused',
    cpu: true,
    cuda: true,
    needs: '' as const,
    sharedMemoryBytes: 0,
    minComputeCapability: 90,
    maxComputeCapability: 90,
  };
  test('runs on 9.0 only: a skip on Ampere and on Blackwell, naming why', () => {
    const on = (cc: string) => unavailableReason('bf16', [hopperOnly], 'cuda', { cublas: true, computeCapability: cc });
    expect(on('9.0')).toBeUndefined();
    expect(on('8.0')).toBe("its variant 'fused' needs compute capability 9.0+ (sm_90 instructions); this GPU is 8.0");
    expect(on('10.0')).toBe(
      "its variant 'fused' runs on compute capability 9.0 at most (sm_90a code, which later GPUs cannot run); this GPU is 10.0",
    );
    expect(unavailableReason('bf16', [hopperOnly], 'cpu')).toBeUndefined();
  });
});

describe('variants that need more shared memory than the GPU has', () => {
  test('a variant is unavailable where a block may have less shared memory than it needs, naming the need', async () => {
    const attention = await findCase('attention');
    const turing = { cublas: true, maxSharedMemoryPerBlock: 65_536 }; // sm_75: 64 KiB a block
    expect(attention.unavailableReason('cuda', turing)).toBe(
      "its variant 'fused' needs 69,632 bytes of shared memory per block; this GPU allows 65,536",
    );
    expect((await findCase('transformer_block')).unavailableReason('cuda', turing)).toMatch(/69,632 bytes/);
    expect((await findCase('attention_layernorm_residual')).unavailableReason('cuda', turing)).toMatch(/69,632 bytes/);
    // The fp32 flash block (68 KB) fits a Volta block (96 KiB).
    const volta = { cublas: true, maxSharedMemoryPerBlock: 98_304 };
    expect(attention.unavailableReason('cuda', volta)).toBeUndefined();
    expect(attention.unavailableReason('cuda', { cublas: true, maxSharedMemoryPerBlock: 232_448 })).toBeUndefined();
    expect(residualLayerNorm.unavailableReason('cuda', volta)).toBeUndefined();
  });
});
