#!/usr/bin/env python3
"""Puts ncu's sampled warp stalls on source lines (scripts/device/llama-decode-ncu.sh writes the inputs).

    python3 scripts/device/sass-stalls.py SASS.txt SOURCE.csv [SASS2.txt SOURCE2.csv] [--top N]

SASS.txt is `nvdisasm --print-line-info` of the kernel's cubin, SOURCE.csv is `ncu -i REPORT --page source
--csv --print-source sass` of one profiled launch. The kernel is the one the CSV names; its code is found in
SASS.txt by the CSV's instruction count. With one pair: the source lines with the most samples, with their
three largest stall reasons, and those with the most `no_inst` samples (instruction fetch). With two
pairs: the lines whose samples changed most from the first to the second. With one pair it also counts the
`no_inst` samples by the instruction's address modulo 256 (docs/llama-decode-tries.md, "Where the code sits").
Standard library only."""
import collections
import csv
import re
import sys


def usage(why):
    sys.exit(f"sass-stalls.py: {why}\n{__doc__}")


def lines_of(path):
    """The lines of a text file, or a usage error naming it."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.readlines()
    except OSError as e:
        usage(f"cannot read {path}: {e.strerror}")


def sass_lines(path, count):
    """Offset → (file, line) of the .text section of `count` instructions."""
    sections, cur, where = [], None, None
    for text in lines_of(path):
        if text.startswith(".text."):
            cur = {}
            sections.append(cur)
            continue
        if cur is None:
            continue
        m = re.match(r'\s*//## File "([^"]+)", line (\d+)', text)
        if m:
            where = (m.group(1).rsplit("/", 1)[-1], int(m.group(2)))
            continue
        m = re.search(r"/\*([0-9a-f]{4,})\*/", text)
        if m:
            cur[int(m.group(1), 16)] = where
    fits = [s for s in sections if len(s) == count]
    if not fits:
        usage(f"{path} has no kernel of {count} instructions (sizes: {sorted(len(s) for s in sections)})")
    return fits[0]


def source_rows(csv_path):
    """The column names and the instruction rows of ncu's source page."""
    rows = list(csv.reader(lines_of(csv_path)))
    head = next((i for i, r in enumerate(rows) if "Address" in r), None)
    if head is None:
        usage(f"{csv_path} has no 'Address' column: not ncu's source page as CSV")
    names, data = rows[head], [r for r in rows[head + 1 :] if len(r) == len(rows[head])]
    if not data:
        usage(f"{csv_path} has no instruction rows")
    return names, data


def fetch_by_offset(csv_path, names, data):
    """no_inst samples by the instruction's address modulo 256, in 16 slots of one instruction."""
    if "stall_no_inst" not in names:
        return None
    address, no_inst = names.index("Address"), names.index("stall_no_inst")
    slots = [0] * 16
    try:
        for r in data:
            slots[int(r[address], 16) % 256 // 16] += int(r[no_inst] or 0)
    except ValueError as e:
        usage(f"{csv_path}: a cell that is not a number ({e})")
    return slots


def stalls(sass_path, csv_path, names, data):
    """(file, line) → Counter of stall reason → samples, from the CSV's rows (`source_rows`)."""
    reasons = [(i, n[len("stall_") :]) for i, n in enumerate(names) if n.startswith("stall_") and "(" not in n]
    address = names.index("Address")
    where = sass_lines(sass_path, len(data))
    out = collections.defaultdict(collections.Counter)
    try:
        first = int(data[0][address], 16)
        for r in data:
            line = where.get(int(r[address], 16) - first) or ("?", 0)
            for i, reason in reasons:
                out[line][reason] += int(r[i] or 0)
    except ValueError as e:
        usage(f"{csv_path}: a cell that is not a number ({e})")
    return out


def name(line):
    return f"{line[0]}:{line[1]}"


def main(argv):
    top = 25
    if "--top" in argv:
        i = argv.index("--top")
        value = argv[i + 1] if i + 1 < len(argv) else ""
        if not value.isdigit() or int(value) < 1:
            usage(f"--top takes a positive integer, not {value!r}")
        top = int(value)
        argv = argv[:i] + argv[i + 2 :]
    if len(argv) not in (2, 4):
        usage("give one or two pairs of SASS.txt SOURCE.csv")
    rows = source_rows(argv[1])
    a = stalls(argv[0], argv[1], *rows)
    total = sum(sum(c.values()) for c in a.values())
    if len(argv) == 2:
        fetch = sum(c["no_inst"] for c in a.values())
        print(f"{total} samples, {fetch} of them no_inst ({100 * fetch / max(total, 1):.1f}%)")
        for title, key in (("samples", lambda c: sum(c.values())), ("no_inst", lambda c: c["no_inst"])):
            print(f"\nsource lines by {title}:")
            for line, c in sorted(a.items(), key=lambda kv: -key(kv[1]))[:top]:
                reasons = ", ".join(f"{r} {n}" for r, n in c.most_common(3))
                print(f"{key(c):8d} {100 * key(c) / max(total, 1):5.1f}%  {name(line):34s} {reasons}")
        slots = fetch_by_offset(argv[1], *rows)
        if slots:
            print("\nno_inst by the instruction's address modulo 256 (0, 16, ..., 240):")
            print(" ".join(str(n) for n in slots))
        return
    b = stalls(argv[2], argv[3], *source_rows(argv[3]))
    print(f"samples: {total} -> {sum(sum(c.values()) for c in b.values())}")
    change = sorted(set(a) | set(b), key=lambda k: -abs(sum(b[k].values()) - sum(a[k].values())))
    for line in change[:top]:
        delta = {r: b[line][r] - a[line][r] for r in set(a[line]) | set(b[line])}
        reasons = ", ".join(f"{r} {d:+d}" for r, d in sorted(delta.items(), key=lambda kv: -abs(kv[1]))[:3])
        print(f"{sum(delta.values()):+8d}  {name(line):34s} {reasons}")


if __name__ == "__main__":
    main(sys.argv[1:])
