#!/usr/bin/env python3
"""Instruction mix of the step kernels from Nsight Compute's SASS page.

Input: `ncu -i REPORT --page source --csv --print-source sass` (perf/gpu_session.sh, step ncu with
NCU_SOURCE=1), which lists every SASS instruction of each profiled launch with how often warps
executed it and how often the sampler found a warp stalled on it. Output, per kernel: warp
instructions a launch, thread instructions a cell (32 x warp instructions / cells), and the opcodes
that take most of them, with their share of the stall samples.

    python3 perf/ncu_sass.py ncu-sass.csv --cells 16777216
"""
import argparse
import collections
import csv
import re


def kernel_key(name):
    """A kernel by its functor and the functor's template arguments, namespaces and casts cut:
    "DecoupledUpdateBody<Cuda, DeviceStep, 1, 0, 64>" (Kokkos' launch wrapper begins every
    kernel's name alike); the whole name where it names no functor so (a lambda)."""
    m = re.search(r"Parallel(?:For|Reduce|Scan)<(?:\w+::)*?(\w+)<", name)
    if not m:
        return name
    depth = 0
    for end in range(m.end() - 1, len(name)):
        depth += {"<": 1, ">": -1}.get(name[end], 0)
        if depth == 0:
            break
    args = re.sub(r"\(\w+( \w+)?\)|\b\w+::", "", name[m.end():end])
    return f"{m.group(1)}<{args}>"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv")
    ap.add_argument("--cells", type=float, required=True, help="cells a launch updates (n^2)")
    ap.add_argument("--top", type=int, default=16)
    a = ap.parse_args()

    launches = collections.Counter()
    count = collections.defaultdict(collections.Counter)
    stalls = collections.defaultdict(collections.Counter)
    kernel, header = None, None
    for row in csv.reader(open(a.csv)):
        if not row:
            continue
        if row[0] == "Kernel Name":
            kernel = kernel_key(row[1])
            launches[kernel] += 1
            continue
        if row[0] == "Address":
            header = row
            continue
        if header is None or kernel is None:
            continue
        m = re.match(r"\s*(@!?U?P\w+\s+)?([A-Z0-9_]+(\.[A-Z0-9_]+)*)", row[1])
        op = m.group(2) if m else row[1].strip()
        count[kernel][op] += int(row[header.index("Instructions Executed")] or 0)
        stalls[kernel][op] += int(row[header.index("Warp Stall Sampling (All Samples)")] or 0)

    for k, ops in count.items():
        n = launches[k]
        total, samples = sum(ops.values()), max(1, sum(stalls[k].values()))
        print(f"{k}: {n} launch(es), {total / n:.4g} warp instructions a launch, "
              f"{32 * total / n / a.cells:.0f} thread instructions a cell")
        print(f"  {'opcode':24s} {'a cell':>8s} {'share':>7s} {'stalls':>7s}")
        for op, c in ops.most_common(a.top):
            print(f"  {op:24s} {32 * c / n / a.cells:8.1f} {100 * c / total:6.1f}% {100 * stalls[k][op] / samples:6.1f}%")


if __name__ == "__main__":
    main()
