// The house rules, checked: every import arrow points down the layers of .dependency-cruiser.cjs (no
// climb, no cycle), no exported name goes unused (knip), and no kernel — kernels/ or a case's kernel
// files — includes the addon's folder native/ (the compiler's include resolution). Each check is also
// shown to fail on a deliberate breach in a scratch tree.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { includedFiles } from '../support/include-graph.ts';
import { filesUnder } from '../support/repo-files.ts';

const root = resolve(import.meta.dirname, '../..');
const bin = (name: string) => join(root, 'node_modules', '.bin', name);
const scratch = mkdtempSync(join(tmpdir(), 'fusebench-house-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(scratch, 'tree-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

/** dependency-cruiser's violations of our rules over `paths`, run in `cwd`. */
function violations(cwd: string, paths: string[]): { rule: string; from: string; to: string }[] {
  const r = spawnSync(
    bin('depcruise'),
    [...paths, '--config', join(root, '.dependency-cruiser.cjs'), '--output-type', 'json'],
    { cwd, encoding: 'utf8', maxBuffer: 64 << 20 },
  );
  if (!r.stdout) throw new Error(`depcruise failed: ${r.stderr}`);
  const out = JSON.parse(r.stdout) as {
    summary: { violations: { rule: { name: string }; from: string; to: string }[] };
  };
  return out.summary.violations.map((v) => ({ rule: v.rule.name, from: v.from, to: v.to }));
}

describe('import rules (dependency-cruiser)', () => {
  test('no arrow climbs a layer, no cycle, no harness import of a test', () => {
    expect(violations(root, ['src', 'cases', 'suites', 'vitest.perf.config.ts', 'vitest.config.ts'])).toEqual([]);
  });

  test('a climbing import, a cycle and an import of a test helper are each caught', () => {
    const tsconfig = JSON.stringify({ compilerOptions: { allowImportingTsExtensions: true, noEmit: true } });
    const dir = tree({
      'tsconfig.json': tsconfig,
      'src/gate/decide.ts': "import { render } from '../report/render.ts';\nexport const decide = render;\n",
      'src/report/render.ts': 'export const render = 1;\n',
      'src/base/a.ts': "import { b } from './b.ts';\nexport const a = b;\n",
      'src/base/b.ts': "import { a } from './a.ts';\nexport const b = () => a;\n",
      'src/case/uses-test.ts': "import { helper } from '../../suites/support/helper.ts';\nexport const x = helper;\n",
      'suites/support/helper.ts': 'export const helper = 1;\n',
    });
    const found = violations(dir, ['src']);
    expect(found).toContainEqual({
      rule: 'no-climb-from-gate',
      from: 'src/gate/decide.ts',
      to: 'src/report/render.ts',
    });
    expect(found.map((v) => v.rule)).toContain('no-circular');
    expect(found).toContainEqual({
      rule: 'no-tests-from-code',
      from: 'src/case/uses-test.ts',
      to: 'suites/support/helper.ts',
    });
  });
});

describe('unused exports (knip)', () => {
  test('every exported name is imported by another file, every dependency used', () => {
    const r = spawnSync(bin('knip'), ['--no-progress'], { cwd: root, encoding: 'utf8' });
    expect(r.stdout + r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});

/** A case's kernel files: everything in its folder but its registration (`*_case.cc`) and its TypeScript. */
function kernelFiles(): string[] {
  const cpp = /\.(h|cuh|cc|cu)$/;
  return [
    ...filesUnder(root, 'kernels').filter((f) => cpp.test(f)),
    ...filesUnder(root, 'cases').filter((f) => cpp.test(f) && !f.endsWith('_case.cc')),
  ];
}

describe('kernels never include the addon (native/)', () => {
  const files = kernelFiles();

  test('there are kernel files to check', () => {
    expect(files.length).toBeGreaterThan(40);
  });

  test.each(files)('%s', (file) => {
    const includes = includedFiles(root, file, ['native', 'kernels', dirname(file)]);
    expect(includes.filter((f) => f.startsWith('native/'))).toEqual([]);
  });

  test('a kernel that includes a header of native/ is caught', () => {
    const dir = tree({ 'native/addon_only.h': '#pragma once\n', 'kernels/cuda/k.cu': '#include "addon_only.h"\n' });
    expect(includedFiles(dir, 'kernels/cuda/k.cu')).toEqual(['native/addon_only.h']);
  });
});
