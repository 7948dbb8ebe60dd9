// The typed facade over the addon bounds every count before the native call, with an "Expected …"
// message: copy-probe counts and samples, injection passes and spins, the injected variant's name, and a
// recorded graph's facts asked for before any graph was recorded.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, test } from 'vitest';
import { copyTimes, cpuInfo, nativeLinearRow, Workspace } from '../../src/addon/native.ts';
import { BACKENDS_AT_HAND } from '../support/numerics-check.ts';

// This process's CPU backend (created by the first native call below) gets 256 MiB: its cache-flush
// buffer stays small, and the memory check is the same one a full-size backend makes.
process.env.FUSEBENCH_CPU_MEMORY_BYTES = String(256 * 1024 * 1024);

describe('native counts are bounded in the facade', () => {
  test.each([
    [1e30, 1, /^Expected an integer from 1 to 9007199254740991 for `count` but received 1e\+30/],
    [0, 1, /for `count` but received 0/],
    [1.5, 1, /for `count` but received 1.5/],
    [4, 1e10, /^Expected an integer from 1 to 1048576 for `samples` but received 10000000000/],
    [4, 0, /for `samples` but received 0/],
    [4, Number.NaN, /for `samples` but received NaN/],
  ])('copyTimes(count %d, samples %d) is refused', (count, samples, message) => {
    expect(() => copyTimes('cpu', count, samples, 'runtime')).toThrow(message);
  });

  test('a copy count past the backend’s memory is refused by the native side, naming the limit', () => {
    expect(() => copyTimes('cpu', 2 ** 50, 1, 'runtime')).toThrow(
      /copy probe: two buffers of [\d,]+ floats exceed [\d,]+ bytes/,
    );
  });

  test.each([
    [0, 2 ** 40],
    [0, 5],
    [3, 2],
    [2, -1],
    [2, Number.NaN],
  ])('linearRow with a of %i values and n %d past w is refused, not an abort', (k, n) => {
    expect(() => nativeLinearRow(new Float64Array(k), new Float32Array(4), undefined, n)).toThrow(
      'Expected n with n·max(a.length, 1) at most w.length',
    );
  });

  test('linearRow within bounds: an empty a gives the bias', () => {
    expect(nativeLinearRow(new Float64Array(0), new Float32Array(4), new Float32Array([1, 2]), 2)).toEqual(
      new Float64Array([1, 2]),
    );
  });

  test('a copy within bounds returns one time per sample (its source filled a chunk at a time past 2^20 floats)', () => {
    expect(copyTimes('cpu', 2 ** 20 + 5, 1, 'runtime')).toHaveLength(1);
    const times = copyTimes('cpu', 1024, 3, 'kernel');
    expect(times).toHaveLength(3);
    for (const t of times) expect(Number.isFinite(t) && t >= 0).toBe(true);
  });

  test('an injection into a variant the case does not have is refused, naming the variants', () => {
    expect(() => new Workspace('cpu', 'gelu_scale', 'fp32', [1024], [], { variant: 'fussed', passes: 1 })).toThrow(
      "Expected a variant of gelu_scale to inject into (unfused, fused) but received 'fussed'",
    );
  });

  test.each([
    [{ variant: 'fused', passes: -1 }, /`inject.passes` but received -1/],
    [{ variant: 'fused', passes: 2 ** 21 }, /`inject.passes` but received 2097152/],
    [{ variant: 'fused', passes: 0, spin: 2 ** 41 }, /`inject.spin`/],
    [{ variant: 'fused', passes: 0.5 }, /`inject.passes` but received 0.5/],
  ])('injection %j is refused', (inject, message) => {
    expect(() => new Workspace('cpu', 'gelu_scale', 'fp32', [1024], [], inject)).toThrow(message);
  });

  test('a buffer the case does not have is refused, listing the ones it has', () => {
    const ws = new Workspace('cpu', 'gelu_scale', 'fp32', [1024], [1], undefined);
    try {
      expect(() => ws.download('bias')).toThrow(/^gelu_scale has no buffer 'bias'; its buffers: x, \w+/);
      expect(() => ws.upload('bias', new Float32Array(1024))).toThrow(/has no buffer 'bias'; its buffers: x/);
    } finally {
      ws.dispose();
    }
  });

  test('on the CPU no graph is recorded, and the facts of a graph never recorded are refused, naming it', () => {
    const ws = new Workspace('cpu', 'gelu_scale', 'fp32', [1024], [1], undefined);
    try {
      expect(() => ws.timeGraph('unfused', 2)).toThrow(/the CPU backend has no graphs/);
      expect(() => ws.graphFacts('unfused', 2)).toThrow(
        'gelu_scale: no graph of variant 0 with 2 calls was recorded (time it first)',
      );
      expect(() => ws.graphFacts('unfused', 0)).toThrow(/^Expected an integer from 1 to 1048576 for `calls`/);
    } finally {
      ws.dispose();
    }
  });

  test('the issue’s shape is refused before allocation, naming the shape and the limit', () => {
    expect(() => new Workspace('cpu', 'bias_gelu', 'fp32', [2 ** 34, 2 ** 30], [], undefined)).toThrow(
      /^bias_gelu: shape \[17179869184, 1073741824\] \(rows 17179869184, cols 1073741824\) needs a buffer of more than 2\^64 elements; the limit is 268,435,456 bytes, the CPU backend's memory \(FUSEBENCH_CPU_MEMORY_BYTES\)/,
    );
  });
});

describe('the raw addon, called as no facade would call it', () => {
  // The facade's checks come first in fusebench; these calls go past them, as a script could.
  const raw = createRequire(import.meta.url)(
    join(import.meta.dirname, '..', '..', 'build', 'Release', 'fusebench.node'),
  );
  const options = { variant: -1, passes: 0, spin: 0, maxBlocks: 0 };

  test('fillNormal takes its output array after its arguments: a getter that detaches it leaves nothing to write', () => {
    // Taken first, the array's data pointer outlived the getter's detach, and the fill wrote into freed memory.
    const out = new Float32Array(1 << 20);
    const args = [1, 1, 0];
    Object.defineProperty(args, 0, {
      get() {
        // ArrayBuffer.prototype.transfer (ES2024) detaches the array's buffer.
        (out.buffer as ArrayBuffer & { transfer(n: number): ArrayBuffer }).transfer(4);
        return 1;
      },
    });
    expect(raw.fillNormal(out, args, 'fp32')).toBeUndefined();
    expect(out.length).toBe(0);
  });

  test.each([2 ** 32, Number.NaN, 1.5, -0.5, -1])('a variant index of %d is refused, not run as variant 0', (v) => {
    const w = new raw.Workspace('cpu', 'gelu_scale', 'fp32', [16], [1.4], options);
    expect(() => w.run(v)).toThrow(`Expected a variant index (an integer from 0) but received ${v}`);
    expect(() => w.time(v)).toThrow('Expected a variant index');
  });

  // On CUDA a batch holds the device's queue behind a waiting kernel until its timer stops; a batch refused
  // after that hold left the kernel waiting, and the next good batch, 2 s on, reported its timeout.
  test.each(BACKENDS_AT_HAND)(
    '%s: a batch of a variant the case lacks is refused; the next batch times as usual',
    async (backend) => {
      const w = new raw.Workspace(backend, 'gelu_scale', 'fp32', [1024], [1.4], options);
      expect(() => w.timeBatch(7, 4)).toThrow('gelu_scale: no variant 7');
      if (backend === 'cuda') await sleep(2500); // past the hold kernel's 2 s wait
      expect(w.timeBatch(0, 4)).toBeGreaterThan(0);
      expect(w.timeBatch(1, 4)).toBeGreaterThan(0);
    },
  );

  test.each([
    ['a symbol', [Symbol('s')], 'Expected a finite number for `dims[0]` but received a symbol'],
    [
      'an object whose toString throws',
      [
        {
          toString() {
            throw new Error('the caller’s code ran');
          },
        },
      ],
      'Expected a finite number for `dims[0]` but received an object',
    ],
    ['a BigInt', [16, 10n], 'Expected a finite number for `dims[1]` but received 10n (a BigInt)'],
    ['2^60', [2 ** 60], 'Expected an integer within ±2^53 for `dims[0]` but received 1.152921504606847e+18'],
    ['a fraction', [16, 2.5], 'Expected an integer within ±2^53 for `dims[1]` but received 2.5'],
  ])(
    'dims with %s are refused naming the index and what was received, running none of the caller’s code',
    (_what, dims, message) => {
      expect(() => new raw.Workspace('cpu', 'gelu_scale', 'fp32', dims, [1.4], options)).toThrow(message);
    },
  );

  test('a param past float32’s range is refused naming it, not converted (undefined behaviour)', () => {
    expect(() => new raw.Workspace('cpu', 'gelu_scale', 'fp32', [16], [1e300], options)).toThrow(
      /^gelu_scale: params\[0\] \(\w+\) must be a finite float32, within ±3\.4e38$/,
    );
  });

  test('a download goes into the caller’s array of the buffer’s length, and nothing else', () => {
    const w = new raw.Workspace('cpu', 'gelu_scale', 'fp32', [16], [1.4], options);
    try {
      expect(() => w.download('y', new Float32Array(4))).toThrow(
        "gelu_scale: buffer 'y' holds 16 elements but the destination has room for 4",
      );
      expect(() => w.download('y', new Float64Array(16))).toThrow(
        "Expected a Float32Array to download buffer 'y' into",
      );
      expect(() => w.download('y')).toThrow("Expected a Float32Array to download buffer 'y' into");
      const out = new Float32Array(16);
      expect(w.download('y', out)).toBeUndefined();
    } finally {
      w.dispose();
    }
  });

  test('linearRow fills the caller’s y, and refuses a y whose rows pass the end of w', () => {
    const y = new Float64Array(2);
    expect(raw.linearRow(new Float64Array([1, 2]), new Float32Array([1, 1, 2, 2]), undefined, y)).toBeUndefined();
    expect(y).toEqual(new Float64Array([3, 6]));
    expect(() => raw.linearRow(new Float64Array(2), new Float32Array(4), undefined, new Float64Array(3))).toThrow(
      'Expected y.length·max(a.length, 1) at most w.length',
    );
    expect(() => raw.linearRow(new Float64Array(2), new Float32Array(4), undefined, 2)).toThrow(
      'Expected (a: Float64Array, w: Float32Array, b: Float32Array | undefined, y: Float64Array)',
    );
  });

  test('the CPU backend’s limit holds for every workspace alive together, not for each alone', () => {
    // 256 MiB for this process (above): gelu_scale at 2^23 floats holds 96 MiB in three buffers.
    const make = () => new raw.Workspace('cpu', 'gelu_scale', 'fp32', [2 ** 23], [1.4], options);
    const first = make();
    const second = make();
    try {
      expect(make).toThrow(
        /^CPU allocation of 33,?554,?432 bytes refused: the workspaces alive hold \d+ bytes, and the limit is 268435456 bytes, the CPU backend's memory \(FUSEBENCH_CPU_MEMORY_BYTES\) \(dispose\(\) the workspaces no longer used\)$/,
      );
      first.dispose();
      make().dispose(); // the room the first held is free again
    } finally {
      second.dispose();
    }
  });

  test.skipIf(process.platform !== 'linux')('the CPU backend knows what memory is still free to it', () => {
    const cpu = cpuInfo();
    expect(cpu.availableMemoryBytes).toBeGreaterThan(0);
    expect(cpu.availableMemoryBytes).toBeLessThanOrEqual(cpu.memoryBytes);
  });
});
