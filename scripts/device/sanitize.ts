// Runs the named cases' CUDA variants once each at their test shapes, on fresh random inputs with
// every output and scratch buffer poisoned, and checks them against the float64 reference: the
// workload to hand compute-sanitizer on a GPU machine, where a race or a stray access shows up:
//
//   compute-sanitizer --tool memcheck node --experimental-strip-types scripts/device/sanitize.ts gemm ffn
//   compute-sanitizer --tool racecheck node --experimental-strip-types scripts/device/sanitize.ts gemm
//
// A name selects that comparison and every comparison whose name extends it (layernorm_linear also
// runs layernorm_linear_prefolded), in every precision the device runs, or in those `--dtype fp32,bf16`
// names. Exits 1 when a variant is wrong or throws, 2 when a name matches no case.
import { loadCases } from '../../cases/registry.ts';
import { cudaDeviceInfo, cudaProbe, Workspace } from '../../src/native.ts';
import { freshSeed } from '../../src/rng.ts';
import { checkVariant } from '../../src/run-case.ts';

const args = process.argv.slice(2);
const at = args.indexOf('--dtype');
const dtypes = at >= 0 ? (args.splice(at, 2)[1] ?? '').split(',') : undefined;
const names = args;
if (names.length === 0 || cudaProbe().deviceCount === 0) {
  console.error('usage (on a CUDA machine): sanitize.ts <case> [<case> ...]');
  process.exit(2);
}
const device = cudaDeviceInfo();
const cases = (await loadCases()).filter(
  (c) => names.some((n) => c.name === n || c.name.startsWith(`${n}_`)) && (!dtypes || dtypes.includes(c.dtype)),
);
const unmatched = names.filter((n) => !cases.some((c) => c.name === n || c.name.startsWith(`${n}_`)));
if (unmatched.length > 0) {
  console.error(`sanitize.ts: no case named ${unmatched.join(', ')}`);
  process.exit(2);
}
let failures = 0;
for (const def of cases) {
  const why = def.unavailableReason('cuda', device);
  if (why) {
    console.log(`skip ${def.name} ${def.dtype}: ${why}`);
    continue;
  }
  for (const dims of def.testShapes) {
    const seed = freshSeed();
    const ws = new Workspace('cuda', def.nativeCase, def.dtype, [...dims], [...def.params], undefined);
    try {
      for (const variant of [def.variants.unfused, def.variants.fused]) {
        const { report } = checkVariant(def, ws, [...dims], variant, seed);
        const line = `${def.name} ${def.dtype} ${variant} [${dims.join(', ')}] seed ${seed}`;
        if (report.failure) {
          failures++;
          console.log(`FAIL ${line}: ${report.failure}`);
        } else {
          console.log(`ok ${line}`);
        }
      }
    } catch (e) {
      failures++;
      console.log(`FAIL ${def.name} ${def.dtype} [${dims.join(', ')}]: ${(e as Error).message}`);
    } finally {
      ws.dispose();
    }
  }
}
console.log(`${failures} failures`);
process.exit(failures > 0 ? 1 : 0);
