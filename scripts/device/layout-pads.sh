#!/usr/bin/env bash
# Which pads put a ring kernel's code at each offset within 256 bytes (docs/llama-decode-tries.md, "Where the code
# sits"): compiles the translation unit once per pad, -DFB_LAYOUT_PAD=n -DFB_LAYOUT_PAD_Z=z, as sm_90a cubins in
# parallel; measures each pad's shift against n = z = 0 with code-shift.py; and prints, for each offset, the pad
# that moves the most instructions whole. Those are the variants of an A/B over placements. Run from the
# repository root with an nvcc that builds sm_90a (CUDA 12.3+: the GPU machine, or a workstation).
#
#   [DEFINES="-DNAME[=VALUE] ..."] bash scripts/device/layout-pads.sh FILE.cu NAME[,NAME...] [MAX_STORES (16)] [MAX_ZEROS (3)]
#
# e.g. bash scripts/device/layout-pads.sh cases/llama_decode/llama_decode_fused.cu llama_decode_ring,bf16
# DEFINES go to every compile, the unpadded one too: the pads of a try that a define turns on.
set -uo pipefail
[ $# -ge 2 ] || { awk 'NR > 1 && /^#/ { print; next } NR > 1 { exit }' "$0"; exit 2; }
file=$1 names=$2 max_n=${3:-16} max_z=${4:-3}
[ -f "$file" ] || { echo "layout-pads.sh: no file $file" >&2; exit 2; }
[[ $max_n =~ ^[0-9]+$ && $max_z =~ ^[0-9]+$ ]] || { echo "layout-pads.sh: MAX_STORES and MAX_ZEROS are counts" >&2; exit 2; }
for d in ${DEFINES:-}; do
  [[ $d =~ ^-D[A-Za-z_][A-Za-z0-9_]*(=.*)?$ ]] || { echo "layout-pads.sh: DEFINES holds '$d', not -DNAME[=VALUE]" >&2; exit 2; }
done
command -v nvcc >/dev/null || { echo "layout-pads.sh: nvcc is not on PATH" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# shellcheck source=scripts/device/defines.sh
source "$(dirname "$0")/defines.sh"
DEFINES=${DEFINES:-}
export file work DEFINES
export -f cubin_sm90a
# shellcheck disable=SC2016 # expanded by the inner bash
for ((n = 0; n <= max_n; n++)); do for ((z = 0; z <= max_z; z++)); do echo "$n $z"; done; done |
  xargs -P "$(nproc)" -L 1 bash -c 'cubin_sm90a "$file" "$work/p$0z$1.cubin" $DEFINES -DFB_LAYOUT_PAD="$0" -DFB_LAYOUT_PAD_Z="$1" \
    2>"$work/p$0z$1.log" || echo "n=$0 z=$1 did not compile: $work/p$0z$1.log" >&2'
[ -f "$work/p0z0.cubin" ] || { echo "layout-pads.sh: the unpadded build failed" >&2; exit 1; }
# code-shift.py --tsv: path, bytes, shift, shift mod 256, instructions at it, the base's instructions.
python3 -B "$(dirname "$0")/code-shift.py" --tsv "$names" "$work/p0z0.cubin" "$work"/p*z*.cubin |
  awk -F '\t' '{ if (match($1, /p[0-9]+z[0-9]+\.cubin$/)) { split(substr($1, RSTART + 1, RLENGTH - 7), nz, "z")
                  print $4, $5, nz[1], nz[2], $3, $6 } }' |
  sort -k1,1n -k2,2nr | awk '
    !seen[$1]++ { printf "offset %3d: -DFB_LAYOUT_PAD=%d -DFB_LAYOUT_PAD_Z=%d (shift %d, %.1f%% of %d instructions at it)\n",
                 $1, $3, $4, $5, 100 * $2 / $6, $6 }
    END { for (o = 0; o < 256; o += 16) if (!(o in seen)) missing = missing " " o
          if (missing != "") print "offsets no pad reached (more stores or zero stores may reach them):" missing }'
