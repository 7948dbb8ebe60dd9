// Runs a case's variants at one of its GPU shapes a few times on random inputs (no reference, no
// timing): the workload to hand ncu on a GPU machine, e.g.
//
//   ncu --section SpeedOfLight --section MemoryWorkloadAnalysis \
//     node --experimental-strip-types scripts/device/profile-shape.ts gelu_scale 16M bf16 fused
//
// Arguments: case, shape label (as the report names it), precision, variant (unfused, fused or both;
// default both), runs (default 3), and `time` to time each run (the caches flushed first) and print each
// variant's median in ms: the way to time a measuring aid whose numbers are wrong by design, which the
// harness would refuse. Exits 2 on a usage error, 1 when a run throws.
import { loadCases } from '../../cases/registry.ts';
import { cudaProbe, Workspace } from '../../src/addon/native.ts';
import { freshSeed } from '../../src/base/rng.ts';
import { summarize } from '../../src/base/stats.ts';

function usage(why: string): never {
  console.error(
    `profile-shape.ts: ${why}\nusage: profile-shape.ts <case> <shape> <precision> [unfused|fused|both] [runs] [time]`,
  );
  process.exit(2);
}

const [name, label, dtype, which = 'both', runsArg = '3', mode] = process.argv.slice(2);
if (mode !== undefined && mode !== 'time')
  usage(`the sixth argument is "time" or nothing, not ${JSON.stringify(mode)}`);
if (!name || !label || !dtype) usage('name a case, a shape and a precision');
const runs = Number(runsArg);
if (!Number.isInteger(runs) || runs < 1 || runs > 100)
  usage(`runs must be an integer from 1 to 100, not ${JSON.stringify(runsArg)}`);
if (!['unfused', 'fused', 'both'].includes(which)) usage(`unknown variant ${JSON.stringify(which)}`);
if (cudaProbe().deviceCount === 0) usage('no CUDA device here');
const def = (await loadCases()).find((c) => c.name === name && c.dtype === dtype);
if (!def) usage(`no case ${JSON.stringify(name)} in ${JSON.stringify(dtype)}`);
const shape = def.shapes('cuda').find((s) => s.label === label);
if (!shape)
  usage(
    `${name} has no GPU shape ${JSON.stringify(label)}: ${def
      .shapes('cuda')
      .map((s) => s.label)
      .join(', ')}`,
  );
const ws = new Workspace('cuda', def.nativeCase, def.dtype, shape.dims, [...def.params], undefined);
try {
  for (const [buffer, data] of Object.entries(def.inputs(shape.dims, freshSeed()))) ws.upload(buffer, data);
  const variants =
    which === 'both' ? [def.variants.unfused, def.variants.fused] : [def.variants[which as 'unfused' | 'fused']];
  for (const v of variants) {
    if (mode === 'time') {
      ws.run(v); // the first call (cuBLAS handles, tensor maps) untimed
      const ms = summarize(Array.from({ length: runs }, () => ws.time(v)));
      console.log(`time ${v}: median ${ms.median.toFixed(4)} ms, min ${ms.min.toFixed(4)} over ${runs}`);
    } else {
      for (let i = 0; i < runs; i++) ws.run(v);
    }
  }
  console.log(`ran ${variants.join(', ')} ×${runs}: ${name} ${label} ${dtype}`);
} catch (e) {
  console.error(`profile-shape.ts: ${(e as Error).message}`);
  process.exitCode = 1;
} finally {
  ws.dispose();
}
