# Sourced by the device scripts that rebuild a translation unit with extra defines
# (llama-decode-ab.sh, llama-decode-spans.sh).
# shellcheck shell=bash

# define_lines -DNAME[=VALUE]...: one "#define NAME VALUE" line for each (VALUE empty without "=").
define_lines() {
  local d
  for d in "$@"; do
    d=${d#-D}
    echo "#define ${d%%=*} $([[ $d == *=* ]] && echo "${d#*=}")"
  done
}
