// The build's check of the linked addon (native/check-undefined.cmake, run after the link): a kernel
// declared and never defined, such as a case whose CUDA half is missing, fails the build and removes the
// addon, instead of leaving one that Node cannot load, which would stop every case. Node's own symbols,
// undefined in every addon, pass.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const cxx = process.env.CXX || 'c++';

/** A shared library, `name`.node, built from `source`. */
function library(source: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'fusebench-link-check-'));
  writeFileSync(join(dir, 'lib.cc'), source);
  const out = join(dir, 'addon.node');
  const r = spawnSync(cxx, ['-shared', '-fPIC', '-o', out, join(dir, 'lib.cc')], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return out;
}

const check = (addon: string) =>
  spawnSync('cmake', [`-DADDON=${addon}`, '-P', join(root, 'native', 'check-undefined.cmake')], { encoding: 'utf8' });

describe('the addon link check', () => {
  test('a fusebench kernel declared and never defined fails the build, naming it, and the addon is removed', () => {
    const addon = library(
      'namespace fusebench::kernels { void relu_scale_unfused_cuda(int); }\n' +
        'extern "C" void napi_module_register(void*);\n' +
        'void entry() { fusebench::kernels::relu_scale_unfused_cuda(1); napi_module_register(nullptr); }\n',
    );
    const r = check(addon);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('fusebench::kernels::relu_scale_unfused_cuda(int)');
    expect(r.stderr).toContain('needs its .cu');
    expect(r.stderr).not.toContain('napi_module_register');
    expect(existsSync(addon)).toBe(false);
  });

  test("only Node's symbols undefined: the addon passes and stays", () => {
    const addon = library(
      'extern "C" void napi_module_register(void*);\nvoid entry() { napi_module_register(nullptr); }\n',
    );
    const r = check(addon);
    expect(r.status, r.stderr).toBe(0);
    expect(existsSync(addon)).toBe(true);
  });
});
