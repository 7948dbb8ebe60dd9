// A host allocation that fails (a shape the memory check allows, in a process whose address space is
// smaller: `ulimit -v`, a container's limit) is a JS error naming the bytes, never an abort: the CPU
// backend's buffers (new (nothrow)) and a download's array (allocated by JS, which throws a RangeError). The calls run
// in a child under `ulimit -v` so a crash is this test's failure, not the runner's. The host needs 2 GiB
// free for the shapes (a smaller one would refuse them before allocating: that test fails, saying so).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { cpuInfo } from '../../src/addon/native.ts';

const ADDON = join(import.meta.dirname, '..', '..', 'build', 'Release', 'fusebench.node');
const MiB = 2 ** 20;
/** Address space the child may add to what Node and the addon take at start: 1,300 MiB. */
const HEADROOM = 1300 * MiB;

/** The child's script: the addon loaded, `say` to print what each call did, then `body`. */
function script(body: string): string {
  return [
    "import { readFileSync } from 'node:fs';",
    "import { createRequire } from 'node:module';",
    `const raw = createRequire(import.meta.url)(${JSON.stringify(ADDON)});`,
    'const OPTIONS = { variant: -1, passes: 0, spin: 0, maxBlocks: 0 };',
    "const say = (what, f) => { try { f(); console.log(what + ': ok'); } catch (e) { console.log(what + ': ' + e.message); } };",
    body,
  ].join('\n');
}

function node(limitKiB: number | undefined, body: string) {
  const ulimit = limitKiB === undefined ? '' : `ulimit -v ${limitKiB} && `;
  const r = spawnSync(
    'bash',
    ['-c', `${ulimit}exec "$0" --input-type=module -e "$1"`, process.execPath, script(body)],
    {
      encoding: 'utf8',
      env: { ...process.env, FUSEBENCH_CPU_MEMORY_BYTES: '' },
    },
  );
  return { status: r.status, lines: r.stdout.trim().split('\n'), stderr: r.stderr };
}

/**
 * Runs `body` in a Node whose address space is what this Node takes with the addon loaded plus HEADROOM;
 * returns its status and lines. The start is measured in first children (V8's reservations differ between
 * versions), the largest of three: a thread started a moment later adds 128 MiB, and a start measured
 * without it once left the child too little room for the buffers that must fit.
 */
function underLimit(body: string): { status: number | null; lines: string[]; stderr: string } {
  const starts = [1, 2, 3].map(() => {
    const start = node(
      undefined,
      "console.log(/VmSize:\\s+(\\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))[1]);",
    );
    const kib = Number(start.lines[0]);
    expect(kib, start.stderr).toBeGreaterThan(0);
    return kib;
  });
  return node(Math.max(...starts) + HEADROOM / 1024, body);
}

describe.runIf(process.platform === 'linux')('a host allocation that fails', () => {
  // The check against the host's memory comes first: shapes it refuses are never allocated.
  test('the host has room for the shapes below (else the memory check refuses them first)', () => {
    expect(cpuInfo().availableMemoryBytes).toBeGreaterThan(2 * 1024 * MiB);
  });

  test('a workspace whose buffers do not fit the address space is an error naming the bytes', () => {
    // gelu_scale at 2^27 floats: three buffers of 512 MiB; the third does not fit.
    const r = underLimit(
      "say('workspace', () => new raw.Workspace('cpu', 'gelu_scale', 'fp32', [2 ** 27], [1], OPTIONS));",
    );
    expect(r.status, r.stderr).toBe(0);
    expect(r.lines).toEqual(['workspace: CPU allocation of 536870912 bytes failed']);
  });

  test('a download whose array does not fit is a RangeError; the workspace lives on', () => {
    // Three buffers of 384 MiB fit; a fourth for the downloaded copy does not.
    const r = underLimit(
      [
        'let ws;',
        "say('workspace', () => { ws = new raw.Workspace('cpu', 'gelu_scale', 'fp32', [96 * 2 ** 20], [1], OPTIONS); });",
        "if (ws) say('download', () => ws.download('y', new Float32Array(96 * 2 ** 20)));",
        "if (ws) say('buffers', () => ws.buffers());",
      ].join('\n'),
    );
    expect(r.status, r.stderr).toBe(0);
    expect(r.lines).toEqual(['workspace: ok', 'download: Array buffer allocation failed', 'buffers: ok']);
  }, 60_000);
});
