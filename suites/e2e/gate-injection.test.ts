// The gate end to end on the CPU backend: record a baseline with the update flow, re-run with no
// change (no SLOWER), then with the injection switch on gelu_scale (SLOWER, non-zero exit).
// A shared CI machine's absolute times wander with its load, so these runs use δ = 50% (80% for the
// unchanged re-run) and an injection that makes the fused kernel several times slower: the point is the
// wiring, the statistics are proved in gate-simulation/gate-detection.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { readResults } from '../../src/results/results.ts';
import { ONE_SMALL_CPU_SHAPE, runPerf } from '../support/perf-cli.ts';

const tmp = mkdtempSync(join(tmpdir(), 'fusebench-gate-'));
const baselines = join(tmp, 'baselines');
const common = [...ONE_SMALL_CPU_SHAPE, '--budget-ms', '300', '--baselines-dir', baselines];
const statuses = (dir: string) =>
  readResults(join(dir, 'fusebench-results.json')).cases.map((c) => c.gate?.status ?? c.status);
let record: ReturnType<typeof runPerf>;

beforeAll(() => {
  record = runPerf([...common, '--update-baselines', '--out-dir', join(tmp, 'record')]);
}, 300_000);

describe('the gate on the CPU backend', () => {
  test("--update-baselines creates this device's file and lists each change old → new", () => {
    expect(record.status, record.stderr).toBe(0);
    const files = readdirSync(baselines);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^cpu-.*\.json$/);
    expect(record.stdout).toMatch(
      /gelu_scale\/1K\/fp32: \(none\) → \d\.\d\dx, fused .* ms, batched, δ ±5\.0% \(default\) \(measured\)/,
    );
  });

  test('an unchanged re-run is not SLOWER', () => {
    const out = join(tmp, 'same');
    // δ = 80%: the fused time is judged too, against a baseline another process measured, and the other
    // test files' workers can halve this one's share of a 2-core machine; SLOWER would need a 5x slowdown.
    const r = runPerf([...common, '--delta', '0.8', '--out-dir', out]);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    // Compared with the recorded baseline (not NO_BASELINE), and not SLOWER. SAME is not promised:
    // on a noisy CPU the interval may straddle the band, which the protocol reports as AMBIGUOUS.
    const measured = statuses(out).filter((s) => s !== 'skipped');
    expect(measured).toHaveLength(1);
    expect(['SAME', 'AMBIGUOUS', 'FASTER']).toContain(measured[0]);
  }, 300_000);

  test('injecting a slowdown into gelu_scale gives SLOWER and a failing exit code', () => {
    const out = join(tmp, 'inject');
    const r = runPerf([...common, '--delta', '0.5', '--inject', 'gelu_scale:64', '--out-dir', out]);
    expect(r.status).not.toBe(0);
    expect(statuses(out).filter((s) => s !== 'skipped')).toEqual(['SLOWER']);
    expect(r.stdout + r.stderr).toMatch(/gelu_scale\/1K\/fp32 SLOWER: speedup .* vs baseline/);
  }, 300_000);

  test('a broken baseline file stops the run before anything is measured, naming the file and field', () => {
    const dir = join(tmp, 'broken');
    const out = join(tmp, 'broken-out');
    const file = join(dir, 'x.json');
    const good = JSON.parse(readFileSync(join(baselines, readdirSync(baselines)[0] as string), 'utf8'));
    good.entries['gelu_scale/1K/fp32'].speedup.estimate = 'fast';
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, JSON.stringify(good));
    const r = runPerf([...common.slice(0, -2), '--baselines-dir', dir, '--out-dir', out]);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain(`${file} is not valid:`);
    expect(r.stderr).toContain('entries.gelu_scale/1K/fp32.speedup.estimate');
    expect(existsSync(join(out, 'fusebench-results.json'))).toBe(false);
  });
});
