#!/usr/bin/env python3
"""Shows that the test suite can fail: applies deliberate one-line bugs to the sources, one at a
time, builds the core tests and reports which tests catch each bug and how long ctest took.

It works on a scratch copy of the committed sources (git archive HEAD), never on the working
tree: SCRATCH/src holds the copy and SCRATCH/build its build (Release, core tests only: no app,
no MPI, no benchmarks). Each mutation replaces one exact line of one file (or a few, for one bug
that takes more than one line); the file is restored before the next. A mutation whose line is not
found is reported (the code moved on: update the list), as is one that no longer compiles.

    tests/mutations.py                    every mutation below
    tests/mutations.py friction stage     the ones named
    tests/mutations.py --list             their names

Options: --scratch DIR (default /tmp/shwa-mutations), --jobs N (default 2), --timeout S (seconds
a ctest entry may run, default 300; a run whose time step collapses fails sooner, at the step limit
of tests/harness.hpp, so the timeout is a backstop for a test that hangs some other way),
--label L (the ctest label to run, default core). Exit status 1 if a mutation compiled and no test
caught it.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
import io

# name, file, the exact line (stripped) to replace, its replacement, what the bug is; a tuple of
# lines and a tuple of their replacements for a bug of several lines
MUTATIONS = [
    ("friction", "core/kernels.hpp",
     "const Real h73 = select(use, h * h * cbrt_h, Real(1));",
     "const Real h73 = select(use, h * h, Real(1));",
     "Manning friction with h^2 in place of h^(7/3)"),
    ("friction-norm", "core/kernels.hpp",
     "const Real qn = shwa::sqrt_nonneg(qx * qx + qy * qy);",
     "const Real qn = shwa::sqrt_nonneg(qx * qx);",
     "friction from qx alone instead of the norm of q"),
    ("stage", "core/boundary.hpp",
     "const Real h = shwa::max(Real(0), b.v[k] + H(jg, ig));",
     "const Real h = shwa::max(Real(0), b.v[k] + H(jg, ig)) + Real(0.05);",
     "stage boundary's ghost depth 5 cm too high"),
    ("discharge-sign", "core/boundary.hpp",
     "qn = inward * q;",
     "qn = -inward * q;",
     "discharge boundary pointing out of the domain"),
    ("wall-sign", "core/boundary.hpp",
     "qn = -qn_from;",
     "qn = qn_from;",
     "wall ghost keeps the normal discharge"),
    ("corner-stored", "core/boundary.hpp",
     "if (listed[West] && i < geo.ng) return ghost<false>(West, geo.ng - 1 - i, j, jg, ig);",
     "if (false) return ghost<false>(West, geo.ng - 1 - i, j, jg, ig);",
     "the one-launch fill's south and north corners read the west ghosts stored before the launch"),
    ("corner-race", "core/boundary.hpp",
     "if (xside && ((p < geo.ng && listed[South]) || (p >= geo.ng + geo.ny && listed[North]))) return;",
     "",
     "the one-launch fill's west and east threads also write the corners south and north write"),
    ("entropy-fix", "core/roe.hpp",
     "const bool fix1 = (l1L < Real(0)) & (l1R > Real(0));",
     "const bool fix1 = false;",
     "no entropy fix on the first acoustic field"),
    # Without the fix on either field the time step collapses in Thacker's oscillation: the tests'
    # step limit (tests/harness.hpp) has to stop the run.
    ("entropy-fix-both", "core/roe.hpp",
     ("const bool fix1 = (l1L < Real(0)) & (l1R > Real(0));",
      "const bool fix3 = (l3L < Real(0)) & (l3R > Real(0));"),
     ("const bool fix1 = false;", "const bool fix3 = false;"),
     "no entropy fix on either acoustic field"),
    ("upwind-reversed", "core/roe.hpp",
     "const bool from_left = !(F <= Real(0));",
     "const bool from_left = F <= Real(0);",
     "pollutant taken from the downwind cell"),
    ("dry-c-zero", "core/roe.hpp",
     "p.c = select(holds, mul_rn(hc, rh), Real(0));",
     "p.c = select(wet, mul_rn(hc, rh), Real(0));",
     "cells below eps_h enter the fluxes with c = 0"),
    ("cfl-factor", "core/kernels_host.hpp",
     "const Real num = Real(2) * cfl * dx * dy;",
     "const Real num = Real(4) * cfl * dx * dy;",
     "host CFL step twice too long"),
]


def run(cmd, cwd=None, timeout=None):
    return subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=timeout)


def export_head(repo, dest):
    if os.path.isdir(dest):
        shutil.rmtree(dest)
    os.makedirs(dest)
    archive = subprocess.run(["git", "-C", repo, "archive", "HEAD"], stdout=subprocess.PIPE,
                             check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as t:
        t.extractall(dest)


def failed_tests(ctest_output):
    """The ctest entries listed as failed (including timeouts)."""
    names, on = [], False
    for line in ctest_output.splitlines():
        if line.startswith("The following tests FAILED"):
            on = True
            continue
        if on:
            m = re.match(r"\s*\d+ - (\S+) \((.*)\)", line)
            if m:
                names.append(m.group(1) + ("" if m.group(2) == "Failed" else " [" + m.group(2) + "]"))
            elif line.strip() and not line.startswith("Errors"):
                break
    return names


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("names", nargs="*")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--scratch", default="/tmp/shwa-mutations")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--label", default="core")
    a = ap.parse_args()
    if a.list:
        for name, path, _, _, what in MUTATIONS:
            print(f"{name:16} {path:22} {what}")
        return 0
    chosen = [m for m in MUTATIONS if not a.names or m[0] in a.names]
    unknown = set(a.names) - {m[0] for m in MUTATIONS}
    if unknown:
        sys.exit("unknown mutation(s): " + ", ".join(sorted(unknown)))

    repo = subprocess.run(["git", "-C", os.path.dirname(os.path.abspath(__file__)), "rev-parse",
                           "--show-toplevel"], stdout=subprocess.PIPE, text=True, check=True).stdout.strip()
    src, build = os.path.join(a.scratch, "src"), os.path.join(a.scratch, "build")
    export_head(repo, src)
    if not os.path.isfile(os.path.join(build, "CMakeCache.txt")):
        r = run(["cmake", "-S", src, "-B", build, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
                 "-DSHWA_ENABLE_APP=OFF", "-DSHWA_ENABLE_MPI=OFF", "-DSHWA_ENABLE_PERF=OFF"])
        if r.returncode:
            sys.exit("configure failed:\n" + r.stdout[-3000:])

    def build_and_test():
        """The failed tests (None if the build failed), ctest's output, the seconds ctest took."""
        r = run(["cmake", "--build", build, "-j", str(a.jobs), "--target", "test_core"])
        if r.returncode:
            return None, r.stdout, 0.0
        t0 = time.monotonic()
        r = run(["ctest", "--test-dir", build, "-L", a.label, "-j", str(a.jobs), "--timeout",
                 str(a.timeout)])
        return failed_tests(r.stdout), r.stdout, time.monotonic() - t0

    print("unmutated sources (HEAD) ...", flush=True)
    failed, out, secs = build_and_test()
    if failed is None or failed:
        sys.exit("the unmutated suite must build and pass first:\n" + out[-3000:])
    print(f"  passed, ctest {secs:.0f} s", flush=True)

    rows, uncaught = [], []
    for name, path, old, new, what in chosen:
        f = os.path.join(src, path)
        text = open(f).read()
        lines = text.split("\n")
        olds, news = (old, new) if isinstance(old, tuple) else ((old,), (new,))
        hits = [[i for i, l in enumerate(lines) if l.strip() == o] for o in olds]
        if any(len(h) != 1 for h in hits):
            counts = ", ".join(str(len(h)) for h in hits)
            rows.append((name, what, f"line not found exactly once in {path} ({counts})", ""))
            continue
        for (i,), n in zip(hits, news):
            lines[i] = lines[i][: len(lines[i]) - len(lines[i].lstrip())] + n
        open(f, "w").write("\n".join(lines))
        print(f"{name}: {path}:{','.join(str(h[0] + 1) for h in hits)} ...", flush=True)
        try:
            failed, out, secs = build_and_test()
        finally:
            open(f, "w").write(text)
        if failed is None:
            rows.append((name, what, "does not compile", ""))
        elif not failed:
            rows.append((name, what, "NOT CAUGHT", f"{secs:.0f}"))
            uncaught.append(name)
        else:
            rows.append((name, what, ", ".join(failed), f"{secs:.0f}"))
        print(f"  {rows[-1][2]} ({rows[-1][3] or '-'} s)", flush=True)
    print()
    print("| mutation | bug | caught by | ctest s |")
    print("| --- | --- | --- | --- |")
    for name, what, by, secs in rows:
        print(f"| {name} | {what} | {by} | {secs} |")
    return 1 if uncaught else 0


if __name__ == "__main__":
    sys.exit(main())
