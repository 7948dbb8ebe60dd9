/**
 * Which files a C++/CUDA source includes, resolved by the compiler itself (`g++ -MM`), not by a parser of
 * our own: the import rule "kernels never include the addon" checked over real include resolution.
 */
import { spawnSync } from 'node:child_process';
import { relative, resolve } from 'node:path';

/** The include path of the addon's build (native/CMakeLists.txt): the addon's folder, then kernels/. */
const BUILD_INCLUDES = ['native', 'kernels'];

/**
 * The files `file` includes (directly or not), relative to `root`, as the build would find them with
 * `includes` on its path; headers that are not there (CUDA's, on a machine without it) are left out.
 */
export function includedFiles(root: string, file: string, includes = BUILD_INCLUDES): string[] {
  const r = spawnSync(
    'g++',
    [
      '-std=c++17',
      '-x',
      'c++',
      '-MM',
      '-MG',
      '-DFUSEBENCH_WITH_CUDA',
      ...includes.flatMap((i) => ['-I', resolve(root, i)]),
      resolve(root, file),
    ],
    { cwd: root, encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`g++ -MM ${file} failed: ${r.stderr || r.error?.message}`);
  // Make syntax: "target: dep dep \<newline> dep"; the first dep is the file itself.
  const deps = r.stdout.replace(/\\\n/g, ' ').split(':').slice(1).join(':').trim().split(/\s+/).slice(1);
  return deps.filter((d) => d.startsWith('/')).map((d) => relative(root, d));
}
