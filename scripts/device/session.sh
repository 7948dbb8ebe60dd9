#!/usr/bin/env bash
# One GPU-machine session in one command: unpack .device/ (bundle.sh), build for the GPU at hand, then run
# each step given, in order, logging each with its wall time; every log, results file and the device's
# baseline file land in one tarball under $OUT (the tool that copies $OUT back takes few files).
#   bash scripts/device/session.sh "perf --update-baselines" "numerics" "perf --case attention --inject attention:3%"
# A step is `perf <perf options>` (always --backend cuda, its own --out-dir), `numerics` (the numerics
# suite on every backend at hand), `fuzz [RUNS]` (suites/unit/native-fuzz.test.ts on the CUDA backend, RUNS
# sessions, default 5000), `memcheck-fuzz [RUNS]` (the same under compute-sanitizer's memcheck, which sees an
# access out of bounds that does not fault; default 500; each child's report in memcheck/) or `probe NAME
# [ARGS]` (scripts/device/NAME.cu built for sm_90a and run with ARGS, e.g. "probe chain-cluster-probe 15").
# A failing step is logged and the next one still runs.
set -uo pipefail
out="${OUT:-$PWD/device-out}"
work="$(mktemp -d)"
mkdir -p "$out"
# shellcheck disable=SC1091 # made by bundle.sh
source .device/setup.sh
# The commit measured: FUSEBENCH_COMMIT as given (perf refuses one that is not a commit id), else perf asks
# git itself, which adds +dirty when the tracked files differ from HEAD (a copied tree whose .git is older
# than its files is labelled so, not as that older commit); with neither, perf names the commit "unknown".
nvidia-smi --query-gpu=name,uuid,clocks.max.sm,clocks.max.mem --format=csv,noheader | tee "$work/gpu.txt"
t0=$(date +%s)
if ! FUSEBENCH_CUDA_ARCHS="${FUSEBENCH_CUDA_ARCHS:-90}" npm run build >"$work/build.log" 2>&1; then
  tail -40 "$work/build.log"
  tar czf "$out/session.tgz" -C "$work" .
  exit 1
fi
echo "session: build $(($(date +%s) - t0)) s"
n=0
for step in "$@"; do
  n=$((n + 1))
  log="$work/step$n.log"
  s0=$(date +%s)
  case "$step" in
    perf*)
      # shellcheck disable=SC2086 # the step's options are words
      npm run perf -- --backend cuda ${step#perf} --out-dir "$work/step$n" >"$log" 2>&1
      ;;
    numerics) FUSEBENCH_REQUIRE_BACKEND=cuda npx vitest run suites/unit/cases.numerics.test.ts >"$log" 2>&1 ;;
    memcheck-fuzz | memcheck-fuzz\ *)
      runs="${step#memcheck-fuzz}"
      runs="${runs// /}"
      mkdir -p "$work/memcheck"
      # The fuzz's child (the process that calls the addon) runs under the sanitizer; %p: one log a child.
      FUSEBENCH_FUZZ_BACKEND=cuda FUSEBENCH_FUZZ_RUNS="${runs:-500}" FUSEBENCH_FUZZ_SLOWDOWN=20 \
        FUSEBENCH_FUZZ_WRAP="$(command -v compute-sanitizer) --tool memcheck --log-file $work/memcheck/%p.log" \
        npx vitest run suites/unit/native-fuzz.test.ts >"$log" 2>&1
      fuzzed=$?
      # Every process's summary: a report with errors fails the step, as a failed fuzz does.
      echo "memcheck: $(find "$work/memcheck" -name '*.log' | wc -l) child log(s)" >>"$log"
      grep -h "ERROR SUMMARY" "$work"/memcheck/*.log | sort | uniq -c >>"$log"
      ! grep -qE "ERROR SUMMARY: [1-9]" "$work"/memcheck/*.log && ((fuzzed == 0))
      ;;
    fuzz | fuzz\ *)
      runs="${step#fuzz}"
      runs="${runs// /}"
      FUSEBENCH_FUZZ_BACKEND=cuda FUSEBENCH_FUZZ_RUNS="${runs:-5000}" \
        npx vitest run suites/unit/native-fuzz.test.ts >"$log" 2>&1
      ;;
    probe\ *)
      read -r -a words <<<"${step#probe }"
      src="scripts/device/${words[0]}.cu"
      if [[ ! ${words[0]} =~ ^[A-Za-z0-9_-]+$ || ! -f $src ]]; then
        echo "session: no probe '${words[0]}' (scripts/device/NAME.cu)" >"$log"
        false
      else
        { nvcc -O3 -std=c++17 -arch=sm_90a -I kernels "$src" -o "$work/${words[0]}" &&
          "$work/${words[0]}" "${words[@]:1}"; } >"$log" 2>&1
      fi
      ;;
    *) echo "session: unknown step '$step'" >"$log" ;;
  esac
  status=$?
  echo "session: step $n ($step): exit $status, $(($(date +%s) - s0)) s"
  if [[ $step == probe\ * ]]; then
    tail -40 "$log"
  else
    grep -E "^(SLOWER|time:|wrote|native fuzz:|fusebench: .*(SLOWER|FASTER|AMBIGUOUS))| Tests |×|ERROR SUMMARY|^memcheck:" "$log" |
      sed 's/\x1b\[[0-9;]*m//g' | tail -8
  fi
  # After every step, so a session stopped at its time limit still returns what it finished.
  cp baselines/nvidia-*.json "$work/" 2>/dev/null
  tar czf "$out/session.tgz" -C "$work" .
done
