#!/usr/bin/env python3
"""How far a change moved a kernel's code: the shift at which most of its instructions recur, byte for byte.

    python3 scripts/device/code-shift.py NAME[,NAME...] BASE.cubin OTHER.cubin...

NAME: substrings that all occur in the kernel's .text section name (e.g. `llama_decode_ring,bf16`); the largest
section that matches is taken. Build the cubins with the addon's flags and -cubin, e.g.
    nvcc -std=c++17 -I native -I kernels -I . -DFUSEBENCH_WITH_CUDA -DFUSEBENCH_SM90A -DFB_LAYOUT_PAD=7 \\
      -cubin -gencode arch=compute_90a,code=sm_90a cases/llama_decode/llama_decode_fused.cu -o p7.cubin
For each OTHER it prints the section's size, the shift in bytes, the shift modulo 256 (what instruction fetch
pays for, docs/llama-decode.md, "Where the code sits") and how many of BASE's instructions recur at it: when
few do, ptxas scheduled the code anew and the shift says little. Needs readelf; standard library otherwise."""
import collections
import shutil
import subprocess
import sys


def usage(why):
    sys.exit(f"code-shift.py: {why}\n{__doc__}")


def kernel_text(path, names):
    """The bytes of the largest .text section of `path` whose name holds every one of `names`."""
    try:
        data = open(path, "rb").read()
    except OSError as e:
        usage(f"cannot read {path}: {e.strerror}")
    run = subprocess.run(["readelf", "-S", "-W", path], capture_output=True, text=True)
    if run.returncode != 0:
        usage(f"readelf cannot read {path}: {run.stderr.strip() or 'not an ELF file'}")
    best = b""
    for line in run.stdout.splitlines():
        parts = line.replace("[ ", "[").split()
        if len(parts) > 5 and parts[1].startswith(".text.") and all(n in parts[1] for n in names):
            off, size = int(parts[4], 16), int(parts[5], 16)
            if size > len(best):
                best = data[off : off + size]
    if not best:
        usage(f"{path} has no .text section whose name holds {', '.join(names)}")
    return best


def instructions(text):
    return [text[i : i + 16] for i in range(0, len(text), 16)]


def shift(base, other, reach=4096):
    """(shift in bytes, instructions of `base` found at it in `other`)."""
    where = collections.defaultdict(list)
    for j, ins in enumerate(other):
        where[ins].append(j)
    count = collections.Counter(j - i for i, ins in enumerate(base) for j in where[ins] if abs(j - i) < reach)
    if not count:
        return 0, 0
    (d, n), = count.most_common(1)
    return 16 * d, n


def main(argv):
    if len(argv) < 3:
        usage("give the kernel's name parts, a base cubin and at least one other")
    if not shutil.which("readelf"):
        usage("readelf is not on PATH (binutils)")
    names = [n for n in argv[0].split(",") if n]
    if not names:
        usage(f"no kernel name in {argv[0]!r}")
    base = instructions(kernel_text(argv[1], names))
    print(f"{argv[1]}: {16 * len(base)} bytes, {len(base)} instructions")
    for path in argv[2:]:
        other = kernel_text(path, names)
        d, n = shift(base, instructions(other))
        print(f"{path}: {len(other)} bytes, shift {d} (mod 256: {d % 256}), {n} of {len(base)} instructions at it")


if __name__ == "__main__":
    main(sys.argv[1:])
