// The addon in the hands of a script that uses threads or loops: a worker terminated while it is inside the
// addon ends quietly (not the whole process with std::terminate), two threads timing at once each get their own
// time, and arrays the addon fills are JS's, freed as any array is, so a synchronous loop of downloads does not
// grow without bound. Each runs in a child Node, so that an abort is this test's failure and not the runner's.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';

const ADDON = join(import.meta.dirname, '..', '..', 'build', 'Release', 'fusebench.node');

/** Runs `body` as a CommonJS script in a child Node, with `addon` loaded and `OPTIONS` a workspace's defaults. */
function child(body: string, env: Record<string, string> = {}) {
  const script = [
    `const addon = require(${JSON.stringify(ADDON)});`,
    'const OPTIONS = { variant: -1, passes: 0, spin: 0, maxBlocks: 0 };',
    body,
  ].join('\n');
  const r = spawnSync(process.execPath, ['-e', script], {
    encoding: 'utf8',
    env: { ...process.env, FUSEBENCH_CPU_MEMORY_BYTES: '', ...env },
    timeout: 120_000,
  });
  return { status: r.status, signal: r.signal, stdout: r.stdout.trim(), stderr: r.stderr };
}

describe('the addon and threads', () => {
  test('workers terminated inside the addon end quietly, and so does process.exit while they run', () => {
    const r = child(`
      const { Worker } = require('node:worker_threads');
      const loop = (call) => new Worker(
        'const addon = require(' + JSON.stringify(${JSON.stringify(ADDON)}) + ');' +
        'for (;;) { try { ' + call + ' } catch {} }', { eval: true });
      const calls = ['addon.constants()', 'addon.cases()', 'addon.cpuInfo()', "addon.checkShape('gelu_scale', 'fp32', [0])"];
      (async () => {
        for (let round = 0; round < 3; round++) {
          for (const call of calls) {
            const w = loop(call);
            await new Promise((resolve) => setTimeout(resolve, 150));
            await w.terminate();
          }
        }
        for (const call of calls) loop(call);
        await new Promise((resolve) => setTimeout(resolve, 150));
        console.log('done');
        process.exit(0);
      })();
    `);
    expect(r.stderr).not.toMatch(/terminate called/);
    expect({ status: r.status, signal: r.signal, stdout: r.stdout }).toEqual({
      status: 0,
      signal: null,
      stdout: 'done',
    });
  }, 120_000);

  test('two threads timing on the CPU backend at once each get their own time', () => {
    // The main thread times a call with an injected spin of 100 ms while a worker times calls without one.
    const r = child(`
      const { Worker } = require('node:worker_threads');
      const busy = new Worker(
        'const addon = require(' + JSON.stringify(${JSON.stringify(ADDON)}) + ');' +
        "const w = new addon.Workspace('cpu', 'gelu_scale', 'fp32', [16], [1.4], { variant: -1, passes: 0, spin: 0, maxBlocks: 0 });" +
        "require('node:worker_threads').parentPort.postMessage('ready');" +
        'for (;;) w.time(0);', { eval: true });
      busy.once('message', () => {
        const w = new addon.Workspace('cpu', 'gelu_scale', 'fp32', [16], [1.4], { ...OPTIONS, variant: 1, spin: 100e6 });
        const times = [0, 1, 2].map(() => w.time(1));
        console.log(Math.min(...times));
        process.exit(0);
      });
    `);
    expect(r.status, r.stderr).toBe(0);
    expect(Number(r.stdout)).toBeGreaterThanOrEqual(100);
  }, 120_000);

  test('a synchronous loop of downloads frees what it no longer holds', () => {
    // 40 downloads of 64 MiB: 2.5 GiB if none were freed before the loop ends (as with arrays the addon
    // allocated, whose finalizers Node runs only once the event loop turns).
    const r = child(`
      const w = new addon.Workspace('cpu', 'gelu_scale', 'fp32', [2 ** 24], [1.4], OPTIONS);
      let peak = 0;
      for (let i = 0; i < 40; i++) {
        const out = new Float32Array(2 ** 24);
        w.download('y', out);
        peak = Math.max(peak, process.memoryUsage().rss);
      }
      console.log(peak);
    `);
    expect(r.status, r.stderr).toBe(0);
    expect(Number(r.stdout)).toBeLessThan(1.25 * 2 ** 30);
  }, 120_000);
});
