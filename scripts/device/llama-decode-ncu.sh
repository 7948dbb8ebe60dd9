#!/usr/bin/env bash
# Where llama_decode's fused kernel stalls, instruction by instruction, on one GPU machine in one call: for
# each variant, rebuild the addon with -lineinfo (and the variant's defines put at the top of
# llama_decode_fused.cu), run the fused step once at the Llama-3.2-1B shape in bf16 under ncu
# (WarpStateStats: the stall reasons; SourceCounters: the sampled stalls of every SASS instruction), and
# write the SASS of the bf16 kernel with its source lines beside it, so that the stalls can be put on the
# code (scripts/device/sass-stalls.py). Run from the repository root after `source .device/setup.sh`.
#
#   bash scripts/device/llama-decode-ncu.sh NAME[:-DA=1 -DB ...]...
#
# Writes $OUT/ncu-NAME.txt (the sections), $OUT/ncu-NAME-source.csv (per instruction) and
# $OUT/sass-NAME.txt (nvdisasm --print-line-info) for each variant (OUT: a temporary folder when unset).
# The build folder is configured with -lineinfo here; the file is put back as it was at the end.
set -uo pipefail
[ $# -gt 0 ] || { awk 'NR > 1 && /^#/ { print; next } NR > 1 { exit }' "$0"; exit 2; }
# shellcheck source=scripts/device/defines.sh
source "$(dirname "$0")/defines.sh"
make_out
keep_fused
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader
rm -rf build
CUDAFLAGS=-lineinfo FUSEBENCH_CUDA_ARCHS="${FUSEBENCH_CUDA_ARCHS:-90}" npm run build >"$out/build.log" 2>&1 ||
  { tail -30 "$out/build.log"; exit 1; }
for spec in "$@"; do
  name=${spec%%:*}
  defs=""
  [[ $spec == *:* ]] && defs=${spec#*:}
  # shellcheck disable=SC2086 # one define a word
  rebuild_with "$out/ncu-$name.build.log" $defs || exit 1
  # The SASS of the kernel as the addon has it, with line info.
  cubin_sm90a "$fused" "$out/$name.cubin" -lineinfo 2>"$out/sass-$name.log" &&
    nvdisasm --print-line-info --print-code "$out/$name.cubin" >"$out/sass-$name.txt" 2>>"$out/sass-$name.log"
  rm -f "$out/$name.cubin"
  ncu --kernel-name regex:llama_decode_ring --launch-count 1 --section WarpStateStats --section SchedulerStats \
    --section SourceCounters --section InstructionStats -o "$out/ncu-$name" -f \
    node --experimental-strip-types scripts/device/profile-shape.ts llama_decode 16x2048@1023 bf16 fused 1 \
    >"$out/ncu-$name.log" 2>&1 || tail -5 "$out/ncu-$name.log"
  ncu -i "$out/ncu-$name.ncu-rep" --print-details all >"$out/ncu-$name.txt" 2>&1
  ncu -i "$out/ncu-$name.ncu-rep" --page source --csv --print-source sass >"$out/ncu-$name-source.csv" 2>&1
  echo "== $name: $(wc -l <"$out/sass-$name.txt") SASS lines, $(wc -l <"$out/ncu-$name-source.csv") source rows"
  grep -iE 'no instruction|stall|warp cycles per issued' "$out/ncu-$name.txt" | head -20
done
