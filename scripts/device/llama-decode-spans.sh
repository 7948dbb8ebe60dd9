#!/usr/bin/env bash
# llama_decode's spans aid (LLAMA_DECODE_SPANS, llama_decode_ring.cuh) on one GPU machine, in one call: for
# each variant, rebuild the addon with the aid (and the variant's defines) put at the top of
# llama_decode_fused.cu, run the fused step twice at the Llama-3.2-1B shape in bf16
# (scripts/device/profile-shape.ts), and print the barriers' lines. Run from the repository root after
# `source .device/setup.sh`; builds the addon first when there is no build folder.
#
#   bash scripts/device/llama-decode-spans.sh NAME[:-DA=1 -DB ...]...
#
# Each run's whole output goes to $OUT/spans-NAME.txt (OUT: a temporary folder when unset). The file is
# put back as it was at the end.
set -uo pipefail
[ $# -gt 0 ] || { awk 'NR > 1 && /^#/ { print; next } NR > 1 { exit }' "$0"; exit 2; }
# shellcheck source=scripts/device/defines.sh
source "$(dirname "$0")/defines.sh"
make_out
keep_fused
if [ ! -d build ]; then
  FUSEBENCH_CUDA_ARCHS="${FUSEBENCH_CUDA_ARCHS:-90}" npm run build >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
fi
for spec in "$@"; do
  name=${spec%%:*}
  defs=""
  [[ $spec == *:* ]] && defs=${spec#*:}
  # shellcheck disable=SC2086 # one define a word
  rebuild_with "$out/spans-$name.build.log" -DLLAMA_DECODE_SPANS $defs || exit 1
  node --experimental-strip-types scripts/device/profile-shape.ts llama_decode 16x2048@1023 bf16 fused 2 >"$out/spans-$name.txt" 2>&1
  echo "== $name ($out/spans-$name.txt)"
  grep -E '^span (barrier|total)|mean release' "$out/spans-$name.txt" | tail -10
done
# a normal build again, so that what follows measures the addon without the aid
cp "$orig" "$fused"
cmake --build build -j "$(nproc)" >"$out/rebuild.log" 2>&1 || tail -10 "$out/rebuild.log"
