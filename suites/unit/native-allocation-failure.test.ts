// A host allocation that fails (a shape the memory check allows, in a process whose address space is
// smaller: `ulimit -v`, a container's limit) is a JS error naming the bytes, never an abort: the CPU
// backend's buffers (new (nothrow)) and a download's array (new_typed_array in native/js_args.h). The calls run
// in a child under `ulimit -v` so a crash is this test's failure, not the runner's.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { cpuInfo } from '../../src/addon/native.ts';

const ADDON = join(import.meta.dirname, '..', '..', 'build', 'Release', 'fusebench.node');
/** The child's address space: Node starts in it, a few GiB of buffers do not fit. */
const ULIMIT_KB = 5_000_000;
const GiB = 2 ** 30;

/** Runs `body` (with `raw`, the addon) in a Node under ULIMIT_KB; returns its status and lines. */
function underLimit(body: string): { status: number | null; lines: string[]; stderr: string } {
  const script = [
    "import { createRequire } from 'node:module';",
    `const raw = createRequire(import.meta.url)(${JSON.stringify(ADDON)});`,
    'const OPTIONS = { variant: -1, passes: 0, spin: 0, maxBlocks: 0 };',
    "const say = (what, f) => { try { f(); console.log(what + ': ok'); } catch (e) { console.log(what + ': ' + e.message); } };",
    body,
  ].join('\n');
  const r = spawnSync(
    'bash',
    ['-c', `ulimit -v ${ULIMIT_KB} && exec "$0" --input-type=module -e "$1"`, process.execPath, script],
    { encoding: 'utf8', env: { ...process.env, FUSEBENCH_CPU_MEMORY_BYTES: '' } },
  );
  return { status: r.status, lines: r.stdout.trim().split('\n'), stderr: r.stderr };
}

// The check against the host's memory comes first: on a host with less room than these shapes need, they
// are refused by it instead (the other branch below), which is no allocation at all.
const room = cpuInfo().availableMemoryBytes;

describe.runIf(process.platform === 'linux')('a host allocation that fails', () => {
  test('a workspace whose buffers do not fit the address space is an error naming the bytes', () => {
    // gelu_scale at 2^29 floats: three buffers of 2 GiB.
    const r = underLimit(
      "say('workspace', () => new raw.Workspace('cpu', 'gelu_scale', 'fp32', [2 ** 29], [1], OPTIONS));",
    );
    expect(r.status, r.stderr).toBe(0);
    expect(r.lines).toEqual([
      room > 6 * GiB
        ? 'workspace: CPU allocation of 2147483648 bytes failed'
        : expect.stringMatching(/^workspace: .*the limit is [\d,]+ bytes, the CPU backend's memory/),
    ]);
  });

  test('a download whose array does not fit is an error naming the buffer and the bytes; the workspace lives on', () => {
    // Three buffers of 1 GiB fit; a fourth GiB for the downloaded copy does not.
    const r = underLimit(
      [
        'let ws;',
        "say('workspace', () => { ws = new raw.Workspace('cpu', 'gelu_scale', 'fp32', [2 ** 28], [1], OPTIONS); });",
        "if (ws) say('download', () => ws.download('y'));",
        "if (ws) say('buffers', () => ws.buffers());",
      ].join('\n'),
    );
    expect(r.status, r.stderr).toBe(0);
    expect(r.lines).toEqual(
      room > 3.5 * GiB
        ? [
            'workspace: ok',
            "download: download of buffer 'y': allocating 1073741824 bytes of host memory failed",
            'buffers: ok',
          ]
        : [expect.stringMatching(/^workspace: .*the limit is [\d,]+ bytes/)],
    );
  }, 60_000);
});
