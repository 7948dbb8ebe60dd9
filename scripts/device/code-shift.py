#!/usr/bin/env python3
"""How far a change moved a kernel's code: the shift at which most of its instructions recur, byte for byte.

    python3 scripts/device/code-shift.py [--tsv | --regions N] NAME[,NAME...][:NAME[,NAME...]] BASE.cubin OTHER.cubin...

NAME: substrings that all occur in the kernel's .text section name (e.g. `llama_decode_ring,bf16`); the largest
section that matches is taken. After a colon, the names of OTHER's kernel when it is another one (e.g.
`llama_decode_ring,bf16:llama_decode_ring,fp16 X.cubin X.cubin`: where fp16's code sits against bf16's).
Build the cubins with the addon's flags and -cubin (`cubin_sm90a` in scripts/device/defines.sh), e.g.
    nvcc -std=c++17 -I native -I kernels -I . -DFUSEBENCH_WITH_CUDA -DFUSEBENCH_SM90A -DFB_LAYOUT_PAD=7 \\
      -cubin -gencode arch=compute_90a,code=sm_90a cases/llama_decode/llama_decode_fused.cu -o p7.cubin
For each OTHER it prints the section's size, the shift in bytes, the shift modulo 256 (what instruction fetch
pays for, docs/llama-decode-tries.md, "Where the code sits") and how many of BASE's instructions recur at it: when
few do, ptxas scheduled the code anew and the shift says little. With --tsv, one line per OTHER for scripts:
path, bytes, shift, shift mod 256, instructions at it, BASE's instructions, tab-separated (no BASE line).
With --regions N, also the two most common shifts of each run of N of BASE's instructions: where a change
moved one part of the code and not another.
Needs readelf; standard library otherwise."""
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


def positions(other):
    """Instruction → the indices at which it occurs in `other`."""
    where = collections.defaultdict(list)
    for j, ins in enumerate(other):
        where[ins].append(j)
    return where


def shifts(base, where, first=0, last=None, reach=4096, top=1):
    """The `top` most common (shift in bytes, instructions of base[first:last] found at it), `where` being
    `positions(other)`."""
    last = len(base) if last is None else last
    count = collections.Counter(j - i for i in range(first, last) for j in where[base[i]] if abs(j - i) < reach)
    return [(16 * d, n) for d, n in count.most_common(top)] or [(0, 0)]


def main(argv):
    tsv, regions = False, 0
    if argv[:1] == ["--tsv"]:
        tsv, argv = True, argv[1:]
    elif argv[:1] == ["--regions"]:
        if len(argv) < 2 or not argv[1].isdigit() or int(argv[1]) < 1:
            usage("--regions takes a count of instructions, 1 or more")
        regions, argv = int(argv[1]), argv[2:]
    if len(argv) < 3:
        usage("give the kernel's name parts, a base cubin and at least one other")
    if not shutil.which("readelf"):
        usage("readelf is not on PATH (binutils)")
    base_spec, _, other_spec = argv[0].partition(":")
    names = [n for n in base_spec.split(",") if n]
    other_names = [n for n in other_spec.split(",") if n] or names
    if not names:
        usage(f"no kernel name in {argv[0]!r}")
    base = instructions(kernel_text(argv[1], names))
    if not tsv:
        print(f"{argv[1]}: {16 * len(base)} bytes, {len(base)} instructions")
    for path in argv[2:]:
        text = kernel_text(path, other_names)
        where = positions(instructions(text))
        (d, n), = shifts(base, where)
        if tsv:
            print("\t".join(str(v) for v in (path, len(text), d, d % 256, n, len(base))))
            continue
        print(f"{path}: {len(text)} bytes, shift {d} (mod 256: {d % 256}), {n} of {len(base)} instructions at it")
        for first in range(0, len(base) if regions else 0, regions or 1):
            last = min(first + regions, len(base))
            top = ", ".join(f"shift {d} ({n})" for d, n in shifts(base, where, first, last, top=2))
            print(f"  instructions {first}..{last - 1}: {top}")


if __name__ == "__main__":
    main(sys.argv[1:])
