#!/usr/bin/env bash
# Checks, with nvcc alone (no GPU), the programmatic dependent launch (PDL) of the graph twin
# (kernels/cuda/launch_pdl.cuh):
#   1. every kernel the graph twins may launch with PDL has griddepcontrol.wait and the trigger in its
#      compute_90 PTX (the kernels of the gpt2_decode unfused twin's own file); the suite's shared building
#      blocks (norm, map and bias-map kernels) have neither: they are launched plainly (with the wait in
#      them, the fused cases built on them measured 3-4% slower on an H100, docs/measuring.md);
#   2. built for sm_80 the instructions are left out, and those files still compile;
#   3. with a runtime older than 12.3 (CUDART_VERSION forced to 12020 after cuda_runtime.h) the PDL launch
#      and the graph's edge listing compile out, and those files still compile.
# Usage, from the project root: bash scripts/device/pdl-compile-check.sh   (NVCC=... to pick a compiler)
set -euo pipefail
NVCC=${NVCC:-nvcc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
flags=(-std=c++17 -O2 -DFUSEBENCH_WITH_CUDA -DFUSEBENCH_WITH_CUBLAS -Inative -Ikernels)
fail=0

# The names of a PTX file's kernels matching the pattern $2, each with 1 where its body has $3, else 0.
entries() {
  awk -v pat="$2" -v ins="$3" '
    function flush() { if (name != "" && name ~ pat) print name, seen }
    /\.entry / { flush(); name = $0; sub(/.*\.entry /, "", name); sub(/\(.*/, "", name); seen = 0 }
    index($0, ins) { seen = 1 }
    END { flush() }' "$1"
}
entries_without() { entries "$@" | awk '$2 == 0 { print $1 }'; }

check_ptx() {  # file, kernel-name pattern
  local f=$1 pat=$2 out
  out="$tmp/$(basename "$1").ptx"
  "$NVCC" "${flags[@]}" -I"$(dirname "$f")" -arch=compute_90 -ptx "$f" -o "$out"
  local n
  n=$(entries "$out" "$pat" "griddepcontrol.wait" | wc -l)
  local missing_wait missing_trigger
  missing_wait=$(entries_without "$out" "$pat" "griddepcontrol.wait")
  missing_trigger=$(entries_without "$out" "$pat" "griddepcontrol.launch_dependents")
  if [[ $n -eq 0 ]]; then echo "FAIL $f: no kernel matches /$pat/"; fail=1
  elif [[ -n $missing_wait || -n $missing_trigger ]]; then
    echo "FAIL $f: kernels without the PDL wait or trigger:"; echo "$missing_wait" "$missing_trigger"; fail=1
  else echo "ok   $f: $n kernels matching /$pat/ wait and trigger (compute_90)"; fi
}

check_ptx cases/gpt2_decode/gpt2_decode_unfused.cu '.'
check_ptx cases/llama_decode/llama_decode_unfused.cu '.'
for f in kernels/cuda/norm_blocks.cu kernels/cuda/elementwise_blocks.cu; do
  "$NVCC" "${flags[@]}" -I"$(dirname "$f")" -arch=compute_90 -ptx "$f" -o "$tmp/shared.ptx"
  if grep -q griddepcontrol "$tmp/shared.ptx"; then echo "FAIL $f: a shared building block has griddepcontrol"; fail=1
  else echo "ok   $f: no griddepcontrol in the shared building blocks (compute_90)"; fi
done

pdl_files=(cases/gpt2_decode/gpt2_decode_unfused.cu cases/llama_decode/llama_decode_unfused.cu kernels/cuda/norm_blocks.cu kernels/cuda/elementwise_blocks.cu
  cases/gelu_scale/gelu_scale.cu native/cuda_graph.cu native/cuda_backend.cu)

for f in "${pdl_files[@]}"; do
  "$NVCC" "${flags[@]}" -I"$(dirname "$f")" -arch=compute_80 -ptx "$f" -o "$tmp/80.ptx"
  if grep -q griddepcontrol "$tmp/80.ptx"; then echo "FAIL $f: griddepcontrol in compute_80 PTX"; fail=1
  else echo "ok   $f: no griddepcontrol for compute_80"; fi
done

cat > "$tmp/old_cudart.h" <<'H'
#include <cuda_runtime.h>
#undef CUDART_VERSION
#define CUDART_VERSION 12020
H
for f in "${pdl_files[@]}"; do
  "$NVCC" "${flags[@]}" -I"$(dirname "$f")" -arch=sm_90a -include "$tmp/old_cudart.h" -c "$f" -o "$tmp/old.o"
  if "$NVCC" "${flags[@]}" -I"$(dirname "$f")" -include "$tmp/old_cudart.h" -E "$f" 2>/dev/null |
    grep -Eq 'cudaLaunchKernelEx\(&config|return cudaGraphGetEdges(_v2)?\(graph'; then
    echo "FAIL $f: the PDL launch or edge listing is still there with CUDART_VERSION 12020"; fail=1
  else echo "ok   $f: compiles with CUDART_VERSION 12020, PDL compiled out"; fi
done
exit $fail
