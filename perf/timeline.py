#!/usr/bin/env python3
"""The overlapped halo exchange on a GPU timeline (perf/cuda_timeline.cpp's CSVs, one a rank).

    python3 perf/timeline.py /tmp/tl.rank0.csv              # summary and one step, as text
    python3 perf/timeline.py /tmp/tl.rank*.csv              # every rank of the run
    python3 perf/timeline.py FILE --expect shwa::halo_pack --min-steps 6
                                            # exit 1 without such kernels or so many steps
    python3 perf/timeline.py FILE --kernels # what a step's kernels cost on the GPU (any run)

An overlapped step (core/solver.hpp) updates the band of owned cells other blocks need and the
interior on two streams; the band's stream then packs the band, copies it to the host (staged
transport), the host sends it and waits (regions shwa::halo_post and shwa::halo_wait), and the band's
stream copies the neighbours' cells back and unpacks them. For each pack kernel, the step's interior
is the update kernel on a stream that is neither the pack's nor the default one, launched between
the previous exchange's unpack and this one's, nearest the pack (launch order: CUPTI's correlation
ids; packs on the CFL pass's stream, the default one, belong to exchanges that are not overlapped); the halo's span runs from the pack's start to the end of the next unpack. The
summary says how much of each span lay inside the rank's interior update, how long it went on past
the interior's end (what the step then waits for), and, given several ranks,
inside some rank's interior (ranks that share one GPU; CUPTI's clock is the host's, so ranks of
one node only), and prints the first rank's step nearest the
median as a table of events relative to the interior's start.
"""
import argparse
import csv
import statistics
import sys


# A kernel whose Kokkos label CUPTI did not correlate keeps its mangled name; these parts of it name
# the kernels this script looks for.
MANGLED = [("DecoupledUpdate", "shwa::flux_update_decoupled"), ("RecomputeUpdate", "shwa::flux_update_recompute"),
           ("6unpack", "shwa::halo_unpack"), ("4pack", "shwa::halo_pack"), ("CflMaxZ", "shwa::cfl_max_z")]


def label(kind, name):
    if kind == "kernel" and not name.startswith("shwa::"):
        return next((lab for part, lab in MANGLED if part in name), name)
    return name


def load(path):
    with open(path) as f:
        return [dict(kind=r["kind"], name=label(r["kind"], r["name"]), stream=int(r["stream"]),
                     start=int(r["start_ns"]), end=int(r["end_ns"]), launch=int(r["launch"]))
                for r in csv.DictReader(f)]


def overlapped_steps(ev):
    """(interior, [events of the halo span], span start, span end) for each pack kernel."""
    ev = sorted(ev, key=lambda e: e["start"])
    updates = [e for e in ev if e["kind"] == "kernel" and e["name"].startswith("shwa::flux_update")]
    # Exchanges outside overlapped steps (set-up, overlap off) pack on the default stream, the CFL
    # pass's.
    default = {e["stream"] for e in ev if e["kind"] == "kernel" and e["name"].startswith("shwa::cfl")}
    unpacks = [e for e in ev if e["kind"] == "kernel" and e["name"] == "shwa::halo_unpack"]
    steps = []
    for p in (e for e in ev if e["kind"] == "kernel" and e["name"] == "shwa::halo_pack"
              and e["stream"] not in default):
        unpack = min((u for u in unpacks if u["launch"] > p["launch"]), key=lambda u: u["launch"], default=None)
        if unpack is None:
            continue
        # The step's interior: launched after the previous exchange's unpack and before this one's,
        # on a stream that is neither the pack's nor the default one.
        after = max((u["launch"] for u in unpacks if u["launch"] < p["launch"]), default=-1)
        others = [u for u in updates if u["stream"] != p["stream"] and u["stream"] not in default
                  and after < u["launch"] < unpack["launch"]]
        if not others:
            continue
        interior = min(others, key=lambda u: abs(u["launch"] - p["launch"]))
        lo, hi = p["start"], unpack["end"]
        span = [e for e in ev if e["start"] >= min(lo, interior["start"]) - 50_000 and e["start"] <= hi
                and e is not interior and (e["kind"] != "kernel" or e["stream"] == p["stream"]
                                           or e["name"].startswith("shwa::flux_update"))]
        steps.append((interior, span, lo, hi))
    return steps


def covered(lo, hi, intervals):
    """Length of [lo, hi] covered by the union of the (sorted) intervals."""
    total, reach = 0, lo
    for a, b in intervals:
        a, b = max(a, reach), min(b, hi)
        if b > a:
            total += b - a
            reach = b
    return total


def kernel_table(path, ev, step_kernel):
    """Each kernel's share of a step, over the steps from the first launch of step_kernel to the
    last (a step: one launch of it), and how much of a step the GPU ran any kernel."""
    ks = sorted((e for e in ev if e["kind"] == "kernel"), key=lambda e: e["start"])
    marks = [e["start"] for e in ks if e["name"] == step_kernel]
    if len(marks) < 2:
        print(f"{path}: fewer than two launches of {step_kernel}", file=sys.stderr)
        return None
    lo, hi, steps = marks[0], marks[-1], len(marks) - 1
    inside = [e for e in ks if lo <= e["start"] < hi]
    busy = covered(lo, hi, [(e["start"], e["end"]) for e in inside])
    print(f"{path}: {steps} steps, {(hi - lo) / 1e3 / steps:.1f} us a step, GPU busy {busy / 1e3 / steps:.1f} us "
          f"a step ({100 * busy / (hi - lo):.0f} %)")
    by = {}
    for e in inside:
        by.setdefault(e["name"], []).append((e["end"] - e["start"]) / 1e3)
    print(f"  {'kernel':40} {'a step':>7} {'mean us':>8} {'median':>8} {'us a step':>10}")
    for name, d in sorted(by.items(), key=lambda t: -sum(t[1])):
        print(f"  {name:40} {len(d) / steps:7.2f} {statistics.mean(d):8.2f} {statistics.median(d):8.2f} "
              f"{sum(d) / steps:10.2f}")
    return steps


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", nargs="+", help="one rank's timeline; several: the ranks of one run")
    ap.add_argument("--expect", action="append", default=[], help="a kernel name that must occur")
    ap.add_argument("--min-steps", type=int, default=0, help="exit 1 with fewer overlapped steps (with --kernels: fewer steps)")
    ap.add_argument("--kernels", action="store_true", help="each kernel's time a step instead")
    ap.add_argument("--step-kernel", default="shwa::cfl_max_z", help="with --kernels: the kernel launched once a step")
    a = ap.parse_args()
    if a.kernels:
        for path in a.csv:
            steps = kernel_table(path, load(path), a.step_kernel)
            if steps is None:
                return 1
            if steps < a.min_steps:
                print(f"{path}: fewer steps than {a.min_steps}", file=sys.stderr)
                return 1
        return 0
    runs = []
    for path in a.csv:
        ev = load(path)
        missing = [n for n in a.expect if not any(e["kind"] == "kernel" and e["name"] == n for e in ev)]
        if missing:
            print(f"{path}: no kernel named {', '.join(missing)}", file=sys.stderr)
            return 1
        steps = overlapped_steps(ev)
        kernels = sum(e["kind"] == "kernel" for e in ev)
        print(f"{path}: {len(ev)} events ({kernels} kernels), {len(steps)} overlapped steps")
        if len(steps) < a.min_steps:
            print(f"{path}: fewer overlapped steps than {a.min_steps}", file=sys.stderr)
            return 1
        if not steps:
            continue
        hidden = [covered(lo, hi, [(i["start"], i["end"])]) / max(1, hi - lo) for i, _, lo, hi in steps]
        print("  halo span (pack start to unpack end) inside this rank's interior update: "
              f"median {100 * statistics.median(hidden):.0f} %, min {100 * min(hidden):.0f} %, "
              f"max {100 * max(hidden):.0f} %")
        late = [max(0, hi - i["end"]) / 1e3 for i, _, _, hi in steps]
        print(f"  halo beyond the end of this rank's interior update (the step waits for it): median "
              f"{statistics.median(late):.1f} us, max {max(late):.1f} us")
        print(f"  interior update: median {statistics.median((s[0]['end'] - s[0]['start']) / 1e3 for s in steps):.1f} us;"
              f" halo span: median {statistics.median((s[3] - s[2]) / 1e3 for s in steps):.1f} us")
        runs.append((path, steps, hidden))
    if len(a.csv) > 1 and runs:
        # Ranks that share one GPU: while one rank's halo travels, the GPU may be busy with another
        # rank's interior instead of its own (CUPTI's clock is the host's, common to the ranks).
        interiors = sorted((i["start"], i["end"]) for _, steps, _ in runs for i, _, _, _ in steps)
        any_ = [covered(lo, hi, interiors) / max(1, hi - lo) for _, steps, _ in runs for _, _, lo, hi in steps]
        print("halo spans inside some rank's interior update (ranks sharing a GPU): "
              f"median {100 * statistics.median(any_):.0f} %, min {100 * min(any_):.0f} %")
    if not runs:
        return 0
    path, steps, hidden = runs[0]
    order = sorted(range(len(steps)), key=lambda k: hidden[k])
    interior, span, lo, hi = steps[order[len(order) // 2]]
    t0 = interior["start"]
    print(f"\n{path}, the median step, times in us from the interior's start (interior: stream "
          f"{interior['stream']}, {(interior['end'] - t0) / 1e3:.1f} us):")
    print(f"{'start':>9} {'end':>9} {'stream':>6}  event")
    rows = sorted(span + [interior], key=lambda e: e["start"])
    for e in rows:
        s = "host" if e["stream"] < 0 else str(e["stream"])
        tag = "  <- interior" if e is interior else ""
        print(f"{(e['start'] - t0) / 1e3:9.1f} {(e['end'] - t0) / 1e3:9.1f} {s:>6}  {e['kind']} {e['name']}{tag}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
