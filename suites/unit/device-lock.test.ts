// The device lock (src/run/device-lock.ts): in /tmp, which every user and job of a host shares whatever its
// TMPDIR; held by a live run, it refuses; a lock this user cannot take is warned of, and the run goes on.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { deviceLock, holdDeviceLock } from '../../src/run/device-lock.ts';

describe('the device lock', () => {
  test.runIf(process.platform === 'linux')(
    'lives in /tmp whatever TMPDIR says, or where FUSEBENCH_DEVICE_LOCK_DIR says',
    () => {
      expect(deviceLock('cpu', {}).lock).toBe('/tmp/fusebench-device-cpu.lock');
      expect(deviceLock('cpu', { FUSEBENCH_DEVICE_LOCK_DIR: '/x' })).toEqual({
        lock: '/x/fusebench-device-cpu.lock',
        what: "this host's CPU",
      });
    },
  );

  test('is held and released; a live holder refuses the run, naming it', () => {
    const env = { FUSEBENCH_DEVICE_LOCK_DIR: mkdtempSync(join(tmpdir(), 'fusebench-device-lock-')) };
    const warnings: string[] = [];
    const lock = deviceLock('cpu', env).lock;
    const release = holdDeviceLock('cpu', 'first', (m) => warnings.push(m), env);
    expect(JSON.parse(readFileSync(lock, 'utf8'))).toMatchObject({ pid: process.pid, command: 'first' });
    release();
    expect(existsSync(lock)).toBe(false);
    // Held by another live process (this one's parent): refused, naming it.
    const holder = {
      pid: process.ppid,
      host: hostname(),
      started: '2026-11-29T12:00:00.000Z',
      command: 'npm run perf',
    };
    writeFileSync(lock, JSON.stringify(holder));
    expect(() => holdDeviceLock('cpu', 'second', (m) => warnings.push(m), env)).toThrow(
      `this host's CPU is in use by another fusebench run: pid ${process.ppid} on ${hostname()}`,
    );
    expect(warnings).toEqual([]);
  });

  test('that cannot be taken for a file system’s reason is warned of, naming why, and nothing is held', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'fusebench-device-lock-')), 'a-file');
    writeFileSync(file, '');
    const warnings: string[] = [];
    const release = holdDeviceLock('cpu', 'run', (m) => warnings.push(m), { FUSEBENCH_DEVICE_LOCK_DIR: file });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      /^fusebench: warning: measuring without the lock on this host's CPU, which keeps a second run off the device: .*a-file\/fusebench-device-cpu\.lock could not be taken \(ENOTDIR: /,
    );
    release();
  });
});
