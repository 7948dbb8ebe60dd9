// Why the run is on the CPU backend, in words a user can act on: a machine with no NVIDIA driver is said to
// have none, not an "insufficient" one, and every other CUDA error is kept as the runtime gave it.
import { describe, expect, test } from 'vitest';
import { noDeviceReason, resolveBackend } from '../../src/addon/device.ts';

const INSUFFICIENT = 'cudaErrorInsufficientDriver (CUDA driver version is insufficient for CUDA runtime version)';

describe('the backend choice', () => {
  test('no driver loaded: said as no driver, with the runtime error name', () => {
    expect(noDeviceReason(INSUFFICIENT, false)).toBe(
      'no NVIDIA driver is loaded: the CUDA runtime reports cudaErrorInsufficientDriver',
    );
  });

  test('a driver loaded but older than the runtime: the runtime words as given', () => {
    expect(noDeviceReason(INSUFFICIENT, true)).toBe(INSUFFICIENT);
  });

  test('other errors are kept whatever the driver', () => {
    const noDevice = 'cudaErrorNoDevice (no CUDA-capable device is detected)';
    expect(noDeviceReason(noDevice, false)).toBe(noDevice);
    expect(noDeviceReason('cudaGetDeviceCount returned 0 devices', false)).toBe(
      'cudaGetDeviceCount returned 0 devices',
    );
  });

  test('--backend cpu is taken as asked, without probing', () => {
    expect(resolveBackend('cpu')).toEqual({ backend: 'cpu', why: 'asked for with --backend cpu' });
  });
});
