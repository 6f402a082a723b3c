#!/usr/bin/env python3
"""Test of perf/history.py on shwa_bench's own JSON: rows appended, a drop of more than 5 % flagged
and a smaller one not, `check` finding the same drops, and runs of another problem (more tracers, a
different initial velocity) refused with the history left as it was.

    perf/test_history.py SHWA_BENCH
"""
import copy
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
HISTORY = os.path.join(HERE, "history.py")


def bench(exe, out, *extra):
    subprocess.run([exe, "--sizes", "64", "--variants", "decoupled", "--tiles", "32x8", "--steps", "2",
                    "--warmup", "1", "--json", out, *extra], check=True, stdout=subprocess.DEVNULL)
    return json.load(open(out))


def scaled(data, factor, path):
    d = copy.deepcopy(data)
    for r in d["results"]:
        r["cell_updates_per_s"] *= factor
    json.dump(d, open(path, "w"))
    return path


def history(hist, *args):
    return subprocess.run([sys.executable, HISTORY, "--history", hist, *args], capture_output=True, text=True)


def main():
    exe = sys.argv[1]
    failures = []

    def expect(cond, what):
        print(("ok   " if cond else "FAIL ") + what)
        if not cond:
            failures.append(what)

    with tempfile.TemporaryDirectory() as tmp:
        hist = os.path.join(tmp, "history.csv")
        base = bench(exe, os.path.join(tmp, "a.json"))
        r = history(hist, "append", os.path.join(tmp, "a.json"), "--commit", "a", "--machine", "m")
        expect(r.returncode == 0 and "1 rows appended" in r.stdout and "0 drop(s)" in r.stdout,
               "the first run appends one row (one size, one variant), no drop")
        r = history(hist, "append", scaled(base, 0.90, os.path.join(tmp, "b.json")), "--commit", "b", "--machine", "m")
        expect("DROP" in r.stdout and "1 drop(s)" in r.stdout, "a run 10 % slower is flagged")
        r = history(hist, "append", scaled(base, 0.90 * 0.97, os.path.join(tmp, "c.json")), "--commit", "c",
                    "--machine", "m")
        expect("DROP" not in r.stdout and "0 drop(s)" in r.stdout, "a run 3 % slower than the one before is not")
        r = history(hist, "append", scaled(base, 0.5, os.path.join(tmp, "d.json")), "--commit", "d", "--machine", "other")
        expect("0 drop(s)" in r.stdout, "another machine's run is compared with its own machine's only")
        r = history(hist, "check")
        expect("4 rows; 1 drop(s)" in r.stdout, "check finds the one drop in the whole history")
        # A slow machine's figures keep their precision: at 1.3 M cell updates/s (a loaded CI host),
        # four decimals of G would turn 3 % into 8 %.
        slow = os.path.join(tmp, "slow.csv")
        rate = base["results"][0]["cell_updates_per_s"]
        history(slow, "append", scaled(base, 1.3e6 / rate, os.path.join(tmp, "s1.json")), "--commit", "s1",
                "--machine", "m")
        r = history(slow, "append", scaled(base, 0.97 * 1.3e6 / rate, os.path.join(tmp, "s2.json")),
                    "--commit", "s2", "--machine", "m")
        expect("DROP" not in r.stdout and "0 drop(s)" in r.stdout and "-3.0 %" in r.stdout,
               "a slow run's figures keep their precision (-3.0 %, not flagged)")
        before = open(hist).read()
        for extra, what in ((["--velocity", "0"], "velocity"), (["--tracers", "2"], "tracers")):
            path = os.path.join(tmp, f"other-{what}.json")
            bench(exe, path, *extra)
            r = history(hist, "append", path, "--commit", "e", "--machine", "m")
            expect(r.returncode != 0 and what in r.stderr and open(hist).read() == before,
                   f"a run with another value of {what} is refused and the history is unchanged")
    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
