#!/usr/bin/env python3
"""Checks that the host kernels' hot loops were vectorized in a built binary (or object file).

The host sweeps (core/kernels_host.hpp) are `omp simd` loops; a compiler that leaves one scalar
still gives the right answers, only 2-4x more slowly, so no other test notices. This script
disassembles the functions that hold the one-tracer Roe and update loops (objdump -d -C) and
counts packed floating-point arithmetic (addps, vmulpd, ...) in each: a loop that was vectorized
has dozens, a scalar one none. Exit status 1 names every function below --min, or missing.

    host_simd.py BINARY [--function REGEX ...] [--min N]
"""
import argparse
import re
import subprocess
import sys

# The one-tracer loops every step runs: the Roe rows (wet/dry x with/without the rare cases) and the
# update rows of the two variants. "A || B": B where the compiler inlined A into it (GCC 13 inlines
# update_row into the tile sweeps).
DEFAULT_FUNCTIONS = [
    r"roe_row_impl<false, false, 1>",
    r"roe_row_impl<false, true, 1>",
    r"roe_row_impl<true, false, 1>",
    r"roe_row_impl<true, true, 1>",
    r"update_row<1, [^>]*EdgeRows<1> > || host_flux_update_decoupled<1, ",
    r"update_row<1, [^>]*SumRows<1> > || host_flux_update_recompute<1, ",
]
PACKED = re.compile(r"\bv?(add|sub|mul|div|sqrt|min|max)p[sd]\b")
SCALAR = re.compile(r"\bv?(add|sub|mul|div|sqrt|min|max)s[sd]\b")
HEADER = re.compile(r"^[0-9a-f]+ <(.*)>:$")


def count(binary):
    """Packed and scalar arithmetic instructions of every function, by demangled name."""
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", "-C", binary], check=True,
                         capture_output=True, text=True).stdout
    stats, name = {}, None
    for line in out.splitlines():
        m = HEADER.match(line)
        if m:
            name = m.group(1)
            stats.setdefault(name, [0, 0])
        elif name is not None:
            stats[name][0] += bool(PACKED.search(line))
            stats[name][1] += bool(SCALAR.search(line))
    return stats


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("binary")
    ap.add_argument("--function", action="append",
                    help="regex of a function that must be vectorized ('A || B': B where A is missing)")
    ap.add_argument("--min", type=int, default=16, help="packed instructions a vectorized loop has at least")
    args = ap.parse_args()
    stats = count(args.binary)
    bad = 0
    for pattern in args.function or DEFAULT_FUNCTIONS:
        for alternative in pattern.split(" || "):
            rx = re.compile(alternative)
            hits = {n: s for n, s in stats.items() if rx.search(n)}
            if hits:
                break
        if not hits:
            print(f"MISSING  {pattern}: no such function in {args.binary}")
            bad += 1
            continue
        # A function may appear as several symbols (clones such as .isra, a sweep's lambdas): the one
        # with the most packed instructions counts, so a scalar clone beside a vectorized one passes.
        packed, scalar = max(hits.values())
        ok = packed >= args.min
        bad += not ok
        print(f"{'ok      ' if ok else 'SCALAR  '}{pattern}: {packed} packed, {scalar} scalar "
              f"arithmetic instructions ({len(hits)} symbol{'s' if len(hits) > 1 else ''})")
    if bad:
        print(f"{bad} hot host loop(s) not vectorized: see docs/kernels.md, 'Host vectorization'")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
