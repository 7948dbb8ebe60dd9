#!/usr/bin/env bash
# One GPU-machine call for the gpt2_decode notes: build the standalone benchmark, check and time the three
# arms in bf16/fp16/fp32, run compute-sanitizer on the fused kernel at the test configuration, and time the
# PyTorch paths; logs under $OUT (or ./gpt2-out). Run from the repository root (any tree's: the script
# builds the sources under the working directory).
set -uo pipefail
out="${OUT:-$PWD/gpt2-out}"
mkdir -p "$out"
log="$out/gpt2-decode.log"
exec > >(tee "$log") 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv,noheader
nvcc --version | tail -2
# shellcheck source=scripts/device/gpt2-decode-build.sh
source "$(dirname "$0")/gpt2-decode-build.sh"
flags=("${gpt2_decode_flags[@]}")
# NVCC_FLAGS: more flags, split on spaces (a variant's -D switches, e.g. -DGPT2_RING_CONSUMER_WARPS=12).
read -ra extra <<< "${NVCC_FLAGS:-}"
flags+=("${extra[@]}")
sources=("${gpt2_decode_sources[@]}")
# BIN: where the binaries go (two trees side by side need two); REUSE=1: keep binaries built before.
bin="${BIN:-/tmp/gpt2-decode-bench}"
t0=$(date +%s)
if [ "${REUSE:-0}" != 1 ] || [ ! -x "$bin" ] || [ ! -x "$bin-stages" ]; then
  # Both binaries at once (the stage-stamped one for `stages`).
  nvcc "${flags[@]}" "${sources[@]}" -lcublas -lcublasLt -o "$bin" &
  nvcc "${flags[@]}" -DGPT2_DECODE_STAGE_TIMES "${sources[@]}" -lcublas -lcublasLt -o "$bin-stages" &
  wait %1 || exit 1
  wait %2
  echo "build $(($(date +%s) - t0)) s"
fi
for step in "$@"; do
  echo "=== $step"
  case "$step" in
    small) for d in bf16 fp16 fp32; do timeout 20 "$bin" $d small 0; done; timeout 20 "$bin" bf16 small 0 3
      timeout 20 "$bin" fp32 small 0 1; timeout 30 "$bin" bf16 full 0 7 ;;
    bench-*) timeout 60 "$bin" "${step#bench-}" full "${REPS:-51}" ;;
    sanitize) for tool in memcheck racecheck synccheck; do
        timeout 40 compute-sanitizer --tool $tool --error-exitcode 9 "$bin" bf16 small 0 3 >/tmp/san-$tool.txt 2>&1
        rc=$?
        grep -E "^=========" /tmp/san-$tool.txt | head -24
        echo "$tool exit $rc"; done ;;
    torch-*) timeout 240 python3 scripts/device/gpt2-decode-torch.py "${step#torch-}" "${REPS:-51}" 2>&1 | grep -v Warning ;;
    stages) timeout 60 "$bin-stages" bf16 full 0 ;;
    ncu) timeout 200 ncu --section SpeedOfLight --section MemoryWorkloadAnalysis -k regex:"fused|ring" "$bin" bf16 full 0 2>&1 | tail -40 ;;
    stalls) timeout 200 ncu --section WarpStateStats --section InstructionStats --section SchedulerStats \
        -k regex:"fused_kernel|ring" -c 1 "$bin" bf16 full 0 2>&1 | grep -vE "^==PROF==|^check|^gpt2|^logits|^fused" | tail -60 ;;
    sass) cuobjdump -sass "$bin" | awk '/Function :/{f=$3} /^ +\/\*[0-9a-f]{4,}\*\//{n[f]++} END{for (k in n) print n[k], k}' \
        | sort -n | tail -6 ;;
  esac
done
