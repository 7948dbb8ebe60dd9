# Sourced by the device scripts that rebuild a translation unit with extra defines
# (llama-decode-ab.sh, llama-decode-spans.sh, llama-decode-ncu.sh).
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
