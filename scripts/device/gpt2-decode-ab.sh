#!/usr/bin/env bash
# A/B of gpt2_decode builds on one GPU machine, in one call: build the standalone benchmark once per
# variant (in parallel), check each variant's logits against the unfused twin, then time the fused step of
# every variant in interleaved rounds (so drift hits all of them alike), and optionally print one
# variant's stage spans and run compute-sanitizer on one. Run from the repository root.
#
#   bash scripts/device/gpt2-decode-ab.sh [NAME=FLAGS]...
#
# A variant is NAME=FLAGS: nvcc switches, split on spaces, e.g. "r8=-DGPT2_RING_RESIDUAL_COPIES=8"; "NAME="
# builds this tree as it is. A variant whose FLAGS start with @DIR builds the tree under DIR instead (the
# machine has no git history: export a revision beforehand, e.g.
#   mkdir -p ab/base && git archive HEAD cases kernels native scripts | tar -x -C ab/base
# then "base=@ab/base"). Environment: ARCH (90a), ROUNDS (3), REPS (31 calls a variant a round), DTYPE (bf16), STAGES
# (a variant's name: also build it with -DGPT2_DECODE_STAGE_TIMES and print its spans), SANITIZE (a
# variant's name: memcheck, racecheck and synccheck at the test configuration on a 3-block grid; their
# reports go to $OUT when it is set). A variant whose logits check fails (or crashes) is not timed, and the
# script then exits 1. Output goes to stdout; redirect it under $OUT.
set -uo pipefail
[ $# -gt 0 ] || { awk 'NR > 1 && /^#/ { print; next } NR > 1 { exit }' "$0"; exit 2; }
root=$PWD
bin="$(realpath -m "${BIN_DIR:-/tmp/gpt2-decode-ab}")"
mkdir -p "$bin"
rm -f "$bin"/*.build.log
# shellcheck source=scripts/device/gpt2-decode-build.sh
source "$(dirname "$0")/gpt2-decode-build.sh"
flags=("${gpt2_decode_flags[@]}")
sources=("${gpt2_decode_sources[@]}")
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader
t0=$(date +%s)

names=()
pids=()
build() {  # name, tree, extra nvcc switches...
  local name=$1 tree=$2
  shift 2
  (cd "$tree" && nvcc "${flags[@]}" "$@" "${sources[@]}" -lcublas -lcublasLt -o "$bin/$name") >"$bin/$name.build.log" 2>&1 &
  pids+=($!)
}
for spec in "$@"; do
  [[ $spec == ?*=* ]] || { echo "a variant is NAME=FLAGS or NAME=@DIR [FLAGS], not '$spec'" >&2; exit 2; }
  name=${spec%%=*}
  rest=${spec#*=}
  for seen in "${names[@]}"; do [ "$seen" = "$name" ] && { echo "variant '$name' given twice" >&2; exit 2; }; done
  tree=$root
  if [[ $rest == @* ]]; then
    dir=${rest%% *}
    dir=${dir#@}
    [[ $dir == /* ]] && tree=$dir || tree=$root/$dir
    [[ $rest == *" "* ]] && rest=${rest#* } || rest=""
  fi
  read -ra extra <<<"$rest"
  names+=("$name")
  build "$name" "$tree" "${extra[@]}"
  [ "${STAGES:-}" = "$name" ] && build "$name-stages" "$tree" "${extra[@]}" -DGPT2_DECODE_STAGE_TIMES
done
# Wait for the builds by pid: a bare `wait` would also wait for any process substitution of the caller.
failed=0
for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
echo "build $(($(date +%s) - t0)) s"
if [ $failed = 1 ]; then
  for f in "$bin"/*.build.log; do [ -s "$f" ] && { echo "--- $f"; grep -m5 -i error "$f" || tail -5 "$f"; }; done
  exit 1
fi

dtype="${DTYPE:-bf16}"
echo "=== check ($dtype, against the unfused twin)"
timed=()
status=0
for name in "${names[@]}"; do
  echo "--- $name"
  # The bench exits non-zero when the fused logits disagree with the unfused twin's beyond its tolerance.
  if timeout 60 "$bin/$name" "$dtype" full 0 >"$bin/$name.check.txt" 2>&1; then
    grep -E "fused kernel|^check" "$bin/$name.check.txt"
    timed+=("$name")
  else
    tail -5 "$bin/$name.check.txt"
    echo "$name: check failed, not timed"
    status=1
  fi
done
echo "=== rounds: fused step, median of ${REPS:-31} calls (L2 flushed), $dtype"
for round in $(seq "${ROUNDS:-3}"); do
  for name in "${timed[@]}"; do
    printf "round %s %-12s " "$round" "$name"
    timeout 120 "$bin/$name" "$dtype" full "${REPS:-31}" | grep "time fused" || echo "(no time: the run failed)"
  done
done
if [ -n "${STAGES:-}" ]; then
  echo "=== stages: ${STAGES}"
  timeout 60 "$bin/${STAGES}-stages" "$dtype" full 0 | sed -n '/^stages/,$p'
fi
if [ -n "${SANITIZE:-}" ]; then
  reports="${OUT:-$bin}"
  for tool in memcheck racecheck synccheck; do
    timeout 120 compute-sanitizer --tool "$tool" --error-exitcode 9 "$bin/$SANITIZE" "$dtype" small 0 3 >"$reports/$tool.txt" 2>&1
    rc=$?
    echo "$tool exit $rc ($(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$reports/$tool.txt" | head -1))"
    [ $rc = 0 ] || status=1
  done
fi
echo "total $(($(date +%s) - t0)) s"
exit $status
