// Runs the named cases' CUDA variants once each at their test shapes, on fresh random inputs with
// every output and scratch buffer poisoned, and checks them against the float64 reference: the
// workload to hand compute-sanitizer on a GPU machine, where a race or a stray access shows up:
//
//   compute-sanitizer --tool memcheck node --experimental-strip-types scripts/device/sanitize.ts gemm ffn
//   compute-sanitizer --tool racecheck node --experimental-strip-types scripts/device/sanitize.ts gemm --dtype fp32
//
// A name selects a comparison, or a native case and every comparison built on it (layernorm_linear
// also runs layernorm_linear_prefolded), in every precision the device runs or in those `--dtype
// fp32,bf16` names. Exits 1 when a variant is wrong or throws, 2 on a usage error.
import { loadCases } from '../../cases/registry.ts';
import { cudaDeviceInfo, cudaProbe, Workspace } from '../../src/addon/native.ts';
import { DTYPES } from '../../src/base/dtype.ts';
import { freshSeed } from '../../src/base/rng.ts';
import { checkVariants } from '../../src/run/check-variants.ts';

function usage(why: string): never {
  console.error(`sanitize.ts: ${why}\nusage: sanitize.ts <case> [<case> ...] [--dtype ${DTYPES.join(',')}]`);
  process.exit(2);
}

const names: string[] = [];
let dtypes: string[] | undefined;
const args = process.argv.slice(2);
for (let i = 0; i < args.length; i++) {
  const arg = args[i] as string;
  if (arg === '--dtype') {
    const value = args[++i];
    if (value === undefined) usage('--dtype needs a value');
    dtypes = value.split(',');
    const unknown = dtypes.filter((d) => !(DTYPES as readonly string[]).includes(d));
    if (unknown.length > 0) usage(`unknown precision ${unknown.join(', ')}`);
  } else if (arg.startsWith('-')) {
    usage(`unknown option ${arg}`);
  } else {
    names.push(arg);
  }
}
if (names.length === 0) usage('name at least one case');
if (cudaProbe().deviceCount === 0) {
  console.error('sanitize.ts: no CUDA device here (it runs the CUDA variants)');
  process.exit(2);
}
const device = cudaDeviceInfo();
const all = await loadCases();
const named = (n: string) => all.filter((c) => c.name === n || c.nativeCase === n);
const unmatched = names.filter((n) => named(n).length === 0);
if (unmatched.length > 0) usage(`no case named ${unmatched.join(', ')}`);
const cases = all.filter((c) => names.some((n) => named(n).includes(c)) && (!dtypes || dtypes.includes(c.dtype)));
if (cases.length === 0) usage(`${names.join(', ')} has no registration in ${dtypes?.join(', ')}`);

let failures = 0;
for (const def of cases) {
  const why = def.unavailableReason('cuda', device);
  if (why) {
    console.log(`skip ${def.name} ${def.dtype}: ${why}`);
    continue;
  }
  for (const dims of def.testShapes) {
    const seed = freshSeed();
    const where = `${def.name} ${def.dtype} [${dims.join(', ')}] seed ${seed}`;
    let ws: Workspace | undefined;
    try {
      def.validate([...dims]);
      ws = new Workspace('cuda', def.nativeCase, def.dtype, [...dims], [...def.params], undefined);
      const checked = checkVariants(def, ws, [...dims], seed);
      for (const variant of ['unfused', 'fused'] as const) {
        const { report } = checked[variant];
        if (report.failure) failures++;
        const name = def.variants[variant];
        console.log(report.failure ? `FAIL ${where} ${name}: ${report.failure}` : `ok ${where} ${name}`);
      }
    } catch (e) {
      failures++;
      console.log(`FAIL ${where}: ${(e as Error).message}`);
    } finally {
      ws?.dispose();
    }
  }
}
console.log(`${failures} failures`);
process.exit(failures > 0 ? 1 : 0);
