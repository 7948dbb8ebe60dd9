# shellcheck shell=bash
# shellcheck disable=SC2034 # the arrays are for the scripts that source this file
# Sourced by the gpt2_decode device scripts (run-gpt2-decode.sh, gpt2-decode-ab.sh): the standalone
# benchmark's nvcc switches and sources, relative to a tree's root. ARCH (90a) picks the target; sm_90a
# also gets the ring kernel's code (FUSEBENCH_SM90A, as the addon's build defines it for 90).
gpt2_decode_arch="${ARCH:-90a}"
gpt2_decode_flags=(-O3 -std=c++17 -arch="sm_$gpt2_decode_arch" -lineinfo -DFUSEBENCH_WITH_CUDA -DFUSEBENCH_WITH_CUBLAS
  -I kernels -I native -I cases/gpt2_decode)
if [ "$gpt2_decode_arch" = 90a ]; then gpt2_decode_flags+=(-DFUSEBENCH_SM90A); fi
gpt2_decode_sources=(scripts/device/gpt2-decode-bench.cu cases/gpt2_decode/gpt2_decode_fused.cu
  cases/gpt2_decode/gpt2_decode_unfused.cu kernels/cuda/cublas_ops.cu kernels/cuda/elementwise_blocks.cu
  kernels/cuda/norm_blocks.cu)
