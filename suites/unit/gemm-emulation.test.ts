// fusebench's GEMM kernel (kernels/cuda/gemm_kernel.cuh) checked without a GPU: its
// source runs on the CPU under suites/emu/cuda_emu.h (a thread per CUDA thread, asynchronous copies
// that land when their barrier phase completes, or as they are issued, poisoned shared memory), built
// with the address and undefined-behaviour sanitizers, once per copy path and landing, against a
// float64 reference (suites/emu/gemm_emu.cc). The GPU runs the same
// kernel in the gemm case's numerics (and compute-sanitizer, run by hand); this catches indexing, predication,
// pipeline-order and epilogue mistakes in CI, where there is no GPU.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, test } from 'vitest';

const exec = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');
const emu = join(root, 'suites', 'emu');
const dir = mkdtempSync(join(tmpdir(), 'fusebench-emu-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
/** The C++ compiler: $CXX, else c++ (the addon's build needs one; C++20 for std::barrier). */
const cxx = process.env.CXX || 'c++';
/** Checks the harness makes: 4 tile configurations × 6 shapes × 5 epilogues. */
const CHECKS = 120;

/** Runs a command; a failure's error carries what it printed on both streams. */
async function run(file: string, args: string[]): Promise<string> {
  try {
    // A hang must not outlive the test (the emulation reports a deadlock itself; this bounds the rest).
    return (await exec(file, args, { maxBuffer: 4 << 20, timeout: 240_000 })).stdout;
  } catch (e) {
    const { stdout = '', stderr = '' } = e as { stdout?: string; stderr?: string };
    throw new Error(`${file} ${args.join(' ')} failed:\n${stdout}\n${stderr}`);
  }
}

describe.concurrent.each<[string, number, string[]]>([
  // Copies that land late catch a read before the wait for them; copies that land at once catch a
  // copy into a buffer before every thread is done with it.
  ['sm_80+ asynchronous copies landing with their barrier', 800, []],
  ['sm_80+ asynchronous copies landing as issued', 800, ['-DFB_EMU_COPIES_LAND_AT_ISSUE']],
  ['Volta register-staged copies', 700, []],
])('the GEMM kernel on the CPU (%s)', (_, arch, defines) => {
  test('matches the float64 reference for every epilogue, the LayerNorm fold and ragged shapes', async () => {
    const exe = join(dir, `gemm-${arch}-${defines.length}`);
    await run(cxx, [
      '-std=c++20',
      '-O1',
      '-pthread',
      '-fsanitize=address,undefined',
      '-fno-sanitize-recover=all',
      '-Wall',
      '-Wno-unknown-pragmas',
      `-D__CUDA_ARCH__=${arch}`,
      ...defines,
      '-I',
      join(root, 'kernels'),
      '-I',
      emu,
      join(emu, 'gemm_emu.cc'),
      '-o',
      exe,
    ]);
    const out = await run(exe, []);
    expect(out).not.toContain('FAIL');
    expect(out).toContain(`\n${CHECKS} checks passed`);
  });
});
