// `npm run build`: checks the build's environment variables, then rebuilds the addon from scratch with
// cmake-js. The checks run before `cmake-js rebuild` removes build/, so a typo in FUSEBENCH_CUDA_ARCHS
// leaves the working addon in place; should the rebuild still fail, the previous addon is put back.
'use strict';
const { execFileSync, spawnSync } = require('node:child_process');
const { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } = require('node:fs');
const { join } = require('node:path');
const { tmpdir } = require('node:os');

const SWITCH = /^(0|1|on|off|true|false|yes|no)$/i;
// CMake's CUDA_ARCHITECTURES: a ;-separated list of numbers with an optional -real/-virtual, or a keyword.
const ARCHS = /^(all|all-major|native|\d+(-real|-virtual)?(;\d+(-real|-virtual)?)*)$/;

/** What is wrong with the build's environment (an empty list when nothing). */
function problems(env, nvccArchs) {
  const out = [];
  for (const name of ['FUSEBENCH_CUDA', 'FUSEBENCH_CUBLAS']) {
    const v = env[name];
    if (v !== undefined && v !== '' && !SWITCH.test(v)) out.push(`${name}='${v}': expected 0 or 1 (or on/off, true/false, yes/no)`);
  }
  const archs = env.FUSEBENCH_CUDA_ARCHS;
  if (archs !== undefined && archs !== '') {
    if (!ARCHS.test(archs)) {
      out.push(
        `FUSEBENCH_CUDA_ARCHS='${archs}': expected CMake's CUDA_ARCHITECTURES syntax, e.g. "90", "80-real;90" or "native"`,
      );
    } else if (nvccArchs) {
      for (const a of archs.split(';').filter((x) => /^\d/.test(x))) {
        const n = a.replace(/-(real|virtual)$/, '');
        if (!nvccArchs.includes(n)) {
          out.push(`FUSEBENCH_CUDA_ARCHS: ${n} is not an architecture this nvcc builds (it builds ${nvccArchs.join(', ')})`);
        }
      }
    }
  }
  return out;
}

/** The compute capabilities the nvcc on PATH (or CUDACXX) builds, e.g. ['75', '80', ...]; null without nvcc. */
function nvccArchitectures(env) {
  const nvcc = env.CUDACXX || 'nvcc';
  try {
    const text = execFileSync(nvcc, ['--list-gpu-arch'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return [...text.matchAll(/compute_(\d+)/g)].map((m) => m[1]);
  } catch {
    return null;
  }
}

function main() {
  const found = problems(process.env, nvccArchitectures(process.env));
  if (found.length > 0) {
    console.error(`fusebench build: ${found.join('\n  ')}\nNothing was rebuilt; build/ is left as it was.`);
    process.exit(2);
  }
  const addon = join('build', 'Release', 'fusebench.node');
  const saved = existsSync(addon) ? join(mkdtempSync(join(tmpdir(), 'fusebench-addon-')), 'fusebench.node') : null;
  if (saved) copyFileSync(addon, saved);
  const cmakeJs = require.resolve('cmake-js/bin/cmake-js');
  const r = spawnSync(process.execPath, [cmakeJs, 'rebuild', '--out', 'build'], { stdio: 'inherit' });
  if (r.status !== 0 && saved && !existsSync(addon)) {
    mkdirSync(join('build', 'Release'), { recursive: true });
    copyFileSync(saved, addon);
    console.error(`fusebench build: the rebuild failed; the previous addon was put back at ${addon}`);
  }
  if (saved) rmSync(saved, { force: true });
  process.exit(r.status ?? 1);
}

if (require.main === module) main();
module.exports = { problems };
