#!/usr/bin/env bash
# Issue 30, the short-shape gap of the sm_90 attention kernel: builds the standalone harness
# (flash-attention-sm90.cu) on this tree's kernel (and once per extra set of compile-time switches) and
# once on main's kernel, checks each one's numerics at every
# harness shape in bf16 and fp16 (against the harness's fp32 reference), times them in interleaved rounds
# at 32x12x512x64 and 8x16x4096x128 (causal, fusebench's L2 flush, median), runs PyTorch's default SDPA
# in the same call, and writes one table to $OUT/attn-variants.txt (logs beside it). A variant that fails
# to build or to match is reported and the others go on.
#
#   bash scripts/device/attn-variants.sh      # from the repository root on an H100 with nvcc (CUDA 12+)
#
# ROUNDS (default 3) timing rounds; MAIN_REF (default main) the commit whose kernel is the "main" row: the
# GPU machine's copy of the history can lag the working tree (on the lent machines its refs were a
# session old), so check which commit that row was.
set -u
cd "$(dirname "$0")/../.." || exit 1
OUT=${OUT:-$PWD/attn-variants-out}
ROUNDS=${ROUNDS:-3}
MAIN_REF=${MAIN_REF:-main}
LOGS="$OUT/attn-variants-logs"
mkdir -p "$LOGS"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
START=$(date +%s)

# name|switches: the tree's kernel, plus any compile-time switch sets given in VARIANTS (one "name|-DX=1 ..."
# per line), each against main's kernel.
mapfile -t VARIANTS < <(printf 'tree|\n%s\n' "${VARIANTS:-}" | grep -v '^$')
# shellcheck disable=SC2054 # the commas belong to one nvcc flag
NVCC_FLAGS=(-O3 -std=c++17 -lineinfo -gencode=arch=compute_90a,code=sm_90a -DFUSEBENCH_SM90A -Xptxas -v)

# main's kernel: its header in a copy of kernels/ (the harness is this tree's).
NAMES=()
if mkdir -p "$WORK/main-kernels" && cp -r kernels/. "$WORK/main-kernels/" &&
  git show "$MAIN_REF:kernels/cuda/flash_attention_sm90.cuh" >"$WORK/main-kernels/cuda/flash_attention_sm90.cuh" 2>"$LOGS/main-header.log" &&
  git show "$MAIN_REF:kernels/cuda/sm90_ops.cuh" >"$WORK/main-kernels/cuda/sm90_ops.cuh" 2>>"$LOGS/main-header.log"; then
  NAMES+=(main)
  (nvcc "${NVCC_FLAGS[@]}" -I"$WORK/main-kernels" scripts/device/flash-attention-sm90.cu -o "$WORK/main" \
    >"$LOGS/build-main.log" 2>&1; echo $? >"$WORK/main.rc") &
else
  echo "main's kernel not found at $MAIN_REF" >>"$LOGS/main-header.log"
fi
for v in "${VARIANTS[@]}"; do
  name=${v%%|*} flags=${v#*|}
  NAMES+=("$name")
  # shellcheck disable=SC2086
  (nvcc "${NVCC_FLAGS[@]}" $flags -Ikernels scripts/device/flash-attention-sm90.cu -o "$WORK/$name" \
    >"$LOGS/build-$name.log" 2>&1; echo $? >"$WORK/$name.rc") &
done
wait
echo "built in $(($(date +%s) - START)) s"

# Numerics, all variants at once (correctness only; nothing is timed meanwhile).
for n in "${NAMES[@]}"; do
  if [ "$(cat "$WORK/$n.rc" 2>/dev/null)" = 0 ]; then
    (timeout 120 "$WORK/$n" vcheck >"$LOGS/check-$n.txt" 2>&1; echo $? >"$WORK/$n.check") &
  fi
done
wait
echo "checked at $(($(date +%s) - START)) s"

# Timing: ROUNDS rounds, each variant once per round (one process per run), then SDPA.
for r in $(seq 1 "$ROUNDS"); do
  for n in "${NAMES[@]}"; do
    [ "$(cat "$WORK/$n.rc" 2>/dev/null)" = 0 ] || continue
    timeout 60 "$WORK/$n" vtime 2>&1 | sed "s/^T /T $n $r /" >>"$LOGS/time.txt"
  done
done
echo "timed at $(($(date +%s) - START)) s"
timeout 120 python3 scripts/device/sdpa-compare.py 101 --default-only >"$LOGS/sdpa.txt" 2>&1
echo "sdpa at $(($(date +%s) - START)) s"

# Registers and spills of the flash90 kernels (ptxas -v), per build.
for n in "${NAMES[@]}"; do
  grep -A3 "flash90_kernel" "$LOGS/build-$n.log" 2>/dev/null | grep -E "Compiling|spill|Used" |
    sed -e 's/.*flash90_kernelI[0-9_]*\(nv_bfloat16\|half\)Li\([0-9]*\)ELb\([01]\)E.*/\1 d=\2 pp=\3:/' \
      -e 's/ptxas info *: //' -e 's/ *bytes stack frame, /-byte stack, /' -e 's/, used [0-9]* barriers.*//' |
    paste -d ' ' - - - | tr -s ' ' | sort -u | sed "s/^/$n /" >>"$LOGS/regs.txt"
done

python3 - "$WORK" "$LOGS" "${NAMES[@]}" >"$OUT/attn-variants.txt" <<'EOF'
import os, re, statistics, sys

work, logs, names = sys.argv[1], sys.argv[2], sys.argv[3:]
times = {}
for line in open(os.path.join(logs, "time.txt"), errors="replace") if os.path.exists(os.path.join(logs, "time.txt")) else []:
    p = line.split()
    if len(p) == 6 and p[0] == "T":
        times.setdefault((p[1], p[3], p[4]), []).append(float(p[5]))
sdpa = {}
for line in open(os.path.join(logs, "sdpa.txt"), errors="replace") if os.path.exists(os.path.join(logs, "sdpa.txt")) else []:
    m = re.match(r"\| (\d+)×(\d+)×(\d+)×(\d+) \| (\w+) \| default \| ([\d.]+) \|", line)
    if m:
        sdpa[("x".join(m.group(1, 2, 3, 4)), m.group(5))] = float(m.group(6))


def read(path):
    try:
        return open(path, errors="replace").read().strip()
    except OSError:
        return None


cols = [("32x12x512x64", "bf16"), ("32x12x512x64", "fp16"), ("8x16x4096x128", "bf16"), ("8x16x4096x128", "fp16")]
dev = next((l for l in (read(os.path.join(logs, "sdpa.txt")) or "").splitlines() if l.startswith("device")), "")
print(dev or "device: (sdpa.txt has no device line)")
print("µs, median over rounds of each run's median (causal, L2 flushed); (min..max over rounds); numerics: vcheck")
print("| variant | numerics | " + " | ".join(f"{s} {d}" for s, d in cols) + " |")
print("|---|---|" + "---|" * len(cols))
for n in names:
    if read(os.path.join(work, n + ".rc")) != "0":
        print(f"| {n} | BUILD FAILED (attn-variants-logs/build-{n}.log) |" + " |" * len(cols))
        continue
    chk = read(os.path.join(logs, f"check-{n}.txt")) or ""
    rc = read(os.path.join(work, n + ".check"))
    fails = sum(1 for l in chk.splitlines() if l.endswith("FAIL"))
    status = "OK" if rc == "0" and "ALL OK" in chk else f"FAIL ({fails} shapes, rc {rc})"
    cells = []
    for s, d in cols:
        t = times.get((n, s, d))
        cells.append(f"{statistics.median(t):.2f} ({min(t):.2f}..{max(t):.2f})" if t else "no time")
    print(f"| {n} | {status} | " + " | ".join(cells) + " |")
print("| SDPA default | | " + " | ".join(f"{sdpa[(s, d)]:.2f}" if (s, d) in sdpa else "none" for s, d in cols) + " |")
print()
print("registers / spills (ptxas -v, flash90_kernel<T, D, ping-pong>):")
print(read(os.path.join(logs, "regs.txt")) or "(none)")
EOF
echo "done at $(($(date +%s) - START)) s" | tee -a "$OUT/attn-variants.txt"
cat "$OUT/attn-variants.txt"
