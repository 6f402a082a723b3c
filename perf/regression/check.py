#!/usr/bin/env python3
"""CI performance-regression check: instructions per cell update of the step kernels, counted by
valgrind's callgrind on a small single-thread run of shwa_bench, against the baseline of the build's host
ISA: perf/baselines/callgrind-<ISA>.json (x86-64-v3, or default for the compiler's default target).

Only the timed steps are counted (callgrind --toggle-collect on shwa_bench_timed_loop), so the count
is deterministic for a given binary and inputs: reruns agree to a few instructions in 10^8, and a
tolerance of a few percent is pure signal, whatever the load of the CI machine.

    perf/regression/check.py --bench build/openmp/perf/shwa_bench           # compare; exit 1 on regression
    perf/regression/check.py --bench build/openmp/perf/shwa_bench --update  # rewrite the baseline
    perf/regression/check.py --bench ... --repeat 5                         # rerun spread

Exit status: 0 no variant regressed, 1 some variant regressed beyond the tolerance, 2 the
measurement could not be made. With --expect-regression (the test of the check itself, with
--extra-work): 0 when every variant is flagged, 1 when one is not.
See perf/regression/README.md.
"""
import argparse
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
BASELINES = os.path.join(REPO, "perf", "baselines")
DEFAULT_BENCH = os.path.join(REPO, "build", "openmp", "perf", "shwa_bench")
LOOP_FUNCTION = "shwa_bench_timed_loop"
VARIANTS = ["recompute", "decoupled"]
# The problem of the baseline when --update writes a new one (a check uses the baseline's).
DEFAULT_PROBLEM = {"n": 128, "steps": 5, "warmup": 1, "tile": "32x8"}
DEFAULT_TOLERANCE_PERCENT = 3.0


def fail(msg):
    print("check.py: " + msg, file=sys.stderr)
    sys.exit(2)


def parse_build(stdout):
    m = re.search(r"^# shwa_bench: (\S+), (\S+) precision, Kokkos (\d+), compiler (.*), host ISA (\S+)$",
                  stdout, re.M)
    if not m:
        fail("unexpected shwa_bench output:\n" + stdout)
    return {"space": m.group(1), "precision": m.group(2), "kokkos": m.group(3),
            "compiler": m.group(4).strip(), "isa": m.group(5)}


def bench_isa(bench):
    """The host ISA the bench was built for (a tiny run, no valgrind): it picks the baseline."""
    if not os.access(bench, os.X_OK):
        fail("no shwa_bench at %s (build it, or pass --bench)" % bench)
    env = dict(os.environ, OMP_NUM_THREADS="1", OMP_PROC_BIND="false")
    p = subprocess.run([bench, "--sizes", "8", "--steps", "1", "--warmup", "0", "--variants", "decoupled"],
                       env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    return parse_build(p.stdout)["isa"]


def measure(bench, valgrind, variant, problem, extra_work, tmpdir):
    """Instructions executed in the timed loop, and what the bench says of its build."""
    out = os.path.join(tmpdir, "callgrind.%s.out" % variant)
    cmd = [valgrind, "--tool=callgrind", "--toggle-collect=%s*" % LOOP_FUNCTION,
           "--callgrind-out-file=" + out,
           bench, "--sizes", str(problem["n"]), "--variants", variant, "--tiles", problem["tile"],
           "--steps", str(problem["steps"]), "--warmup", str(problem["warmup"])]
    if extra_work > 0:
        cmd += ["--extra-work", repr(extra_work)]
    env = dict(os.environ, OMP_NUM_THREADS="1", OMP_PROC_BIND="false", OMP_WAIT_POLICY="passive")
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    if p.returncode != 0:
        fail("%s failed (exit %d):\n%s\n%s" % (" ".join(cmd), p.returncode, p.stdout, p.stderr))
    build = parse_build(p.stdout)
    ir = None
    with open(out) as f:
        for line in f:
            if line.startswith("summary:") or line.startswith("totals:"):
                ir = int(line.split()[1])
                break
    if not ir:
        fail("callgrind counted nothing in %s (is the function still there, not inlined?)" % LOOP_FUNCTION)
    return ir, build


def measure_all(args, problem):
    if shutil.which(args.valgrind) is None:
        fail("valgrind not found (Debian package valgrind; scripts/install-debian-deps.sh installs it)")
    if not os.access(args.bench, os.X_OK):
        fail("no shwa_bench at %s (build it, or pass --bench)" % args.bench)
    cells = problem["n"] * problem["n"] * problem["steps"]
    runs = {v: [] for v in VARIANTS}
    build = None
    with tempfile.TemporaryDirectory(prefix="shwa-callgrind-") as tmp:
        for _ in range(args.repeat):
            for v in VARIANTS:
                ir, build = measure(args.bench, args.valgrind, v, problem, args.extra_work, tmp)
                runs[v].append(ir)
    if args.repeat > 1:
        print("rerun spread (%d runs each):" % args.repeat)
        for v in VARIANTS:
            lo, hi = min(runs[v]), max(runs[v])
            print("  %-10s instructions %d .. %d, spread %d = %.2e of the count"
                  % (v, lo, hi, hi - lo, (hi - lo) / lo))
    return {v: {"instructions": runs[v][-1], "per_cell_update": runs[v][-1] / cells}
            for v in VARIANTS}, build


def git_head():
    try:
        return subprocess.run(["git", "-C", REPO, "rev-parse", "--short", "HEAD"], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, universal_newlines=True).stdout.strip() or None
    except OSError:
        return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bench", default=DEFAULT_BENCH, help="the shwa_bench to measure (OpenMP or Serial build)")
    ap.add_argument("--baseline", default=None,
                    help="baseline JSON (default: perf/baselines/callgrind-<the bench's host ISA>.json)")
    ap.add_argument("--valgrind", default="valgrind")
    ap.add_argument("--tolerance", type=float, default=None,
                    help="percent increase that fails (default: the baseline's, else %g)" % DEFAULT_TOLERANCE_PERCENT)
    ap.add_argument("--update", action="store_true", help="measure and rewrite the baseline (on purpose only)")
    ap.add_argument("--repeat", type=int, default=1, help="measure N times and print the spread")
    ap.add_argument("--extra-work", type=float, default=0.0,
                    help="TESTS ONLY: pass shwa_bench's deliberate slowdown (fraction of the rows)")
    ap.add_argument("--expect-regression", action="store_true",
                    help="the check's own test: succeed only if every variant is flagged")
    args = ap.parse_args()
    if args.repeat < 1:
        fail("--repeat must be at least 1")
    if args.baseline is None:
        args.baseline = os.path.join(BASELINES, "callgrind-%s.json" % bench_isa(args.bench))

    if args.update:
        if args.extra_work > 0:
            fail("--update with --extra-work would commit a deliberately slow baseline")
        problem = dict(DEFAULT_PROBLEM)
        tol = args.tolerance if args.tolerance is not None else DEFAULT_TOLERANCE_PERCENT
        if os.path.exists(args.baseline):
            with open(args.baseline) as f:
                old = json.load(f)
            problem = old.get("problem", problem)
            if args.tolerance is None:
                tol = old.get("tolerance_percent", tol)
        results, build = measure_all(args, problem)
        base = {
            "what": "instructions per cell update of shwa_bench's timed steps (callgrind, 1 thread)",
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
            "commit": git_head(),
            "build": dict(build, preset="openmp (Release)"),
            "problem": problem,
            "tolerance_percent": tol,
            "results": {v: {"per_cell_update": round(r["per_cell_update"], 3),
                            "instructions": r["instructions"]} for v, r in results.items()},
            "command": "perf/regression/check.py --bench build/openmp/perf/shwa_bench --update",
        }
        os.makedirs(os.path.dirname(os.path.abspath(args.baseline)), exist_ok=True)
        with open(args.baseline, "w") as f:
            json.dump(base, f, indent=2)
            f.write("\n")
        print("baseline written to %s:" % args.baseline)
        for v, r in results.items():
            print("  %-10s %10.2f instructions per cell update" % (v, r["per_cell_update"]))
        return 0

    if not os.path.exists(args.baseline):
        fail("no baseline at %s (create one with --update)" % args.baseline)
    with open(args.baseline) as f:
        base = json.load(f)
    problem = base["problem"]
    tol = args.tolerance if args.tolerance is not None else base.get("tolerance_percent", DEFAULT_TOLERANCE_PERCENT)
    results, build = measure_all(args, problem)

    bb = base.get("build", {})
    if bb.get("precision") != build["precision"]:
        fail("baseline is %s precision, this build %s: not comparable" % (bb.get("precision"), build["precision"]))
    if bb.get("isa", build["isa"]) != build["isa"]:
        fail("baseline is for host ISA %s, this build %s: not comparable" % (bb.get("isa"), build["isa"]))
    mismatch = [k for k in ("compiler", "kokkos", "space") if bb.get(k) != build[k]]
    if mismatch:
        print("WARNING: this build differs from the baseline's in %s (baseline: %s; here: %s). Instruction "
              "counts depend on the compiler and Kokkos: a change below may be that, not the code; if so, "
              "update the baseline on purpose (perf/regression/README.md)."
              % (", ".join(mismatch), ", ".join(str(bb.get(k)) for k in mismatch),
                 ", ".join(build[k] for k in mismatch)))

    print("callgrind instructions per cell update, %dx%d, %d steps after %d, 1 thread; baseline %s (%s)%s"
          % (problem["n"], problem["n"], problem["steps"], problem["warmup"], base.get("date"),
             base.get("commit"), "; --extra-work %g" % args.extra_work if args.extra_work else ""))
    print("%-10s %12s %12s %9s  %s" % ("variant", "baseline", "now", "change", "verdict"))
    flagged = []
    for v in VARIANTS:
        old = base["results"][v]["per_cell_update"]
        new = results[v]["per_cell_update"]
        change = 100.0 * (new - old) / old
        if abs(change) < 0.005:
            change = 0.0  # no "-0.00%"
        if change > tol:
            verdict = "REGRESSION (> +%g%%)" % tol
            flagged.append(v)
        elif change < -tol:
            verdict = "faster (< -%g%%): consider updating the baseline" % tol
        else:
            verdict = "ok"
        print("%-10s %12.2f %12.2f %+8.2f%%  %s" % (v, old, new, change, verdict))

    if args.expect_regression:
        missed = [v for v in VARIANTS if v not in flagged]
        if missed:
            print("expected every variant to be flagged; not flagged: %s" % ", ".join(missed))
            return 1
        print("as expected, the deliberate slowdown was caught in every variant")
        return 0
    if flagged:
        print("performance regression in %s: more instructions per cell update than the baseline allows "
              "(if intended, update the baseline: perf/regression/README.md)" % ", ".join(flagged))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
