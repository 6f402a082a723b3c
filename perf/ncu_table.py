#!/usr/bin/env python3
"""The kernels of an Nsight Compute run, one line each: launches and the mean of every metric.

    ncu --csv --page raw --metrics M1,M2,... PROGRAM > run.csv
    perf/ncu_table.py run.csv [--metrics M1,M2,...] [--width 60]

ncu's CSV has a header row of metric names, a row of units, then one row a kernel launch; the
lines ncu and the program print before it are skipped, and so are the columns not in --metrics
(default: every column ncu was asked for by name, gpu__, sm__, smsp__ and launch__grid_size /
launch__waves_per_multiprocessor / launch__registers_per_thread). Kernels are grouped by their
demangled name, cut to --width characters after Kokkos' launch wrapper.
"""
import argparse
import collections
import csv
import re
import sys


def short(name, width):
    name = re.sub(r"^void (Kokkos::Impl::)?cuda_parallel_launch_\w+<", "", name)
    name = re.sub(r"^(Kokkos::Impl::)?(ParallelFor|ParallelReduce)<(Kokkos::Impl::)?(CudaFunctorAdapter<)?", "", name)
    return name[:width]


DEFAULT = ("gpu__", "sm__", "smsp__", "launch__grid_size", "launch__waves_per_multiprocessor",
           "launch__registers_per_thread")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv")
    ap.add_argument("--metrics", default="", help="comma-separated metric names to show")
    ap.add_argument("--width", type=int, default=60)
    a = ap.parse_args()
    rows = list(csv.reader(open(a.csv, newline="")))
    start = next((k for k, r in enumerate(rows) if "Kernel Name" in r), None)
    if start is None:
        sys.exit(f"{a.csv}: no ncu table (no 'Kernel Name' column)")
    head, units = rows[start], rows[start + 1]
    name = head.index("Kernel Name")
    wanted = [m for m in a.metrics.split(",") if m]
    metrics = [k for k, h in enumerate(head)
               if (h in wanted if wanted else h.startswith(DEFAULT) and not h.startswith(("sm__maximum", "smsp__maximum")))]
    groups = collections.OrderedDict()
    for r in rows[start + 2:]:
        if len(r) != len(head):
            continue
        values = []
        for k in metrics:
            try:
                values.append(float(r[k].replace(",", "")))
            except ValueError:
                values.append(float("nan"))
        groups.setdefault(short(r[name], a.width), []).append(values)
    print(f"{'launches':>8}  " + "  ".join(f"{head[k]} [{units[k]}]" for k in metrics) + "  kernel")
    for kernel, runs in groups.items():
        means = [sum(v[m] for v in runs) / len(runs) for m in range(len(metrics))]
        print(f"{len(runs):8d}  " + "  ".join(f"{x:>{len(head[k]) + len(units[k]) + 3}.4g}" for x, k in zip(means, metrics))
              + f"  {kernel}")


if __name__ == "__main__":
    main()
