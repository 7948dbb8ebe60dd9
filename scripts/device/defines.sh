# Sourced by the device scripts that rebuild a translation unit with extra defines or compile its cubins
# (llama-decode-ab.sh, llama-decode-spans.sh, llama-decode-ncu.sh, layout-pads.sh).
# shellcheck shell=bash

# define_lines -DNAME[=VALUE]...: one "#define NAME VALUE" line for each (VALUE empty without "=").
define_lines() {
  local d
  for d in "$@"; do
    d=${d#-D}
    echo "#define ${d%%=*} $([[ $d == *=* ]] && echo "${d#*=}")"
  done
}

# keep_fused: sets `fused` (llama_decode's translation unit, which variants rewrite) and `orig` (a copy of
# it), and puts it back when the script exits.
keep_fused() {
  fused=cases/llama_decode/llama_decode_fused.cu
  orig=$(mktemp)
  cp "$fused" "$orig"
  trap 'cp "$orig" "$fused"' EXIT
}

# rebuild_with LOG -DNAME[=VALUE]...: the addon rebuilt with the defines at the top of $fused (after
# keep_fused), the build's output in LOG; on failure, its first errors and status 1.
rebuild_with() {
  local log=$1
  shift
  { define_lines "$@"; cat "$orig"; } >"$fused"
  cmake --build build -j "$(nproc)" >"$log" 2>&1 || { grep -m5 -i error "$log"; return 1; }
}

# make_out: sets `out` to $OUT (made if missing) or, when OUT is unset, a new temporary folder.
make_out() {
  out="${OUT:-$(mktemp -d)}"
  mkdir -p "$out"
}

# cubin_sm90a FILE.cu OUT.cubin [NVCC FLAGS...]: FILE compiled as the addon compiles it for sm_90a, into a cubin
# (for its SASS: nvdisasm, code-shift.py).
cubin_sm90a() {
  local src=$1 dst=$2
  shift 2
  nvcc -std=c++17 -I native -I kernels -I . -DFUSEBENCH_WITH_CUDA -DFUSEBENCH_SM90A "$@" -cubin \
    -gencode arch=compute_90a,code=sm_90a "$src" -o "$dst"
}
