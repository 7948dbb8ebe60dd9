#!/usr/bin/env bash
# A/B of llama_decode's fused kernel on one GPU machine, in one call, through the harness: build the addon
# once, rebuild it incrementally once per variant (only the translation units a variant touches), then run
# `npm run perf -- --case llama_decode` with each variant's addon in interleaved rounds (so drift hits all of
# them alike) and print the fused medians. Run from the repository root after `source .device/setup.sh`.
#
#   bash scripts/device/llama-decode-ab.sh [NAME=SPEC]...
#
# SPEC is "" (the tree as it is), "-DNAME[=VALUE] ..." (defines put at the top of llama_decode_fused.cu, so
# they reach llama_decode's kernel only), or "@DIR" (the tree with the files under cases/ that differ in DIR
# taken from DIR: export a revision beforehand, e.g.
#   mkdir -p ab/base && git archive HEAD cases | tar -x -C ab/base
# then "base=@ab/base"). Environment: ROUNDS (2), DTYPE (bf16,fp16), FUSEBENCH_CUDA_ARCHS (90). Each run's
# results go to $OUT/ab/<round>-<name> when OUT is set. The tree is put back as it was at the end.
# TIMER=shape times the fused step with scripts/device/profile-shape.ts instead of the harness (REPS calls,
# default 31, each after a cache flush): no numerics check, so that a measuring aid whose numbers are wrong
# by design can be timed.
set -uo pipefail
[ $# -gt 0 ] || { awk 'NR > 1 && /^#/ { print; next } NR > 1 { exit }' "$0"; exit 2; }
root=$PWD
# shellcheck source=scripts/device/defines.sh
source "$(dirname "$0")/defines.sh"
work=$(mktemp -d)
out="${OUT:-$work}/ab"
mkdir -p "$out" "$work/orig" "$work/addons"
fused=cases/llama_decode/llama_decode_fused.cu
nvidia-smi --query-gpu=name,uuid --format=csv,noheader
t0=$(date +%s)
FUSEBENCH_CUDA_ARCHS="${FUSEBENCH_CUDA_ARCHS:-90}" npm run build >"$work/build.log" 2>&1 || { tail -30 "$work/build.log"; exit 1; }
echo "build $(($(date +%s) - t0)) s"
cp build/Release/fusebench.node "$work/tree.node"  # put back at the end, whatever the rounds leave

changed=()  # the files a variant replaced, put back after its build
restore() {
  for f in "${changed[@]}"; do cp "$work/orig/$f" "$f"; done
  changed=()
}
finish() {
  restore
  cp "$work/tree.node" build/Release/fusebench.node 2>/dev/null
}
replace() {  # file, new content from stdin
  mkdir -p "$work/orig/$(dirname "$1")"
  [ -e "$work/orig/$1" ] || cp "$1" "$work/orig/$1"
  cat >"$1"
  changed+=("$1")
}
trap finish EXIT
names=()
for spec in "$@"; do
  [[ $spec == ?*=* ]] || { echo "a variant is NAME=SPEC, not '$spec'" >&2; exit 2; }
  name=${spec%%=*}
  rest=${spec#*=}
  if [[ $rest == @* ]]; then
    dir=${rest#@}
    [[ $dir == /* ]] || dir=$root/$dir
    [ -d "$dir/cases" ] || { echo "variant $name: $dir has no cases/ folder" >&2; exit 2; }
    only=$(cd "$dir" && find cases -type f | while read -r f; do [ -e "$root/$f" ] || echo "$f"; done)
    [ -z "$only" ] || { echo "variant $name: files the tree lacks (not supported): $only" >&2; exit 2; }
    while read -r f; do replace "$f" <"$dir/$f"; done < <(cd "$dir" && find cases -type f | while read -r f; do cmp -s "$f" "$root/$f" || echo "$f"; done)
  elif [ -n "$rest" ]; then
    # shellcheck disable=SC2086 # one define a word
    { define_lines $rest; cat "$fused"; } >"$work/with-defines"
    replace "$fused" <"$work/with-defines"  # not in a pipe: replace records what to put back
  fi
  s0=$(date +%s)
  if ! cmake --build build -j "$(nproc)" >"$work/$name.build.log" 2>&1; then
    grep -m5 -i error "$work/$name.build.log"
    exit 1
  fi
  cp build/Release/fusebench.node "$work/addons/$name.node"
  echo "variant $name (${changed[*]:-as it is}): $(($(date +%s) - s0)) s"
  restore
  names+=("$name")
done

for ((round = 1; round <= ${ROUNDS:-2}; round++)); do
  for name in "${names[@]}"; do
    cp "$work/addons/$name.node" build/Release/fusebench.node
    dir="$out/$round-$name"
    if [ "${TIMER:-perf}" = shape ]; then
      dtypes=${DTYPE:-bf16,fp16}
      for dt in ${dtypes//,/ }; do
        printf 'round %s %-12s %s ' "$round" "$name" "$dt"
        node --experimental-strip-types scripts/device/profile-shape.ts llama_decode 16x2048@1023 "${dt}" fused \
          "${REPS:-31}" time 2>&1 | grep -E '^time|profile-shape' || echo "(no time)"
      done
      continue
    fi
    npm run perf -- --backend cuda --case llama_decode --dtype "${DTYPE:-bf16,fp16}" --out-dir "$dir" >"$dir.log" 2>&1
    # shellcheck disable=SC2016 # JavaScript, not shell
    node -e '
      const r = JSON.parse(require("fs").readFileSync(process.argv[1] + "/fusebench-results.json", "utf8"));
      const row = r.cases.map((c) => c.status === "measured"
        ? `${c.dtype} ${c.timing.fused.median.toFixed(4)}` : `${c.dtype} ${c.status}: ${c.reason ?? ""}`);
      console.log(`round ${process.argv[2]} ${process.argv[3].padEnd(12)} fused ms: ${row.join("  ")}`);
    ' "$dir" "$round" "$name" || tail -5 "$dir.log"
  done
done
