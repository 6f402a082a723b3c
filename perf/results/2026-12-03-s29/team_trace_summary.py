#!/usr/bin/env python3
"""Summarises the per-team records of team-trace.patch (a diagnostic build, not landed).

    SHWA_TEAM_TRACE=/tmp/tr SHWA_TEAM_TRACE_SKIP=1200 shwa run ...   # writes /tmp/tr-update.bin, /tmp/tr-cfl.bin
    team_trace_summary.py /tmp/tr-update.bin [...]

Each file holds 32 launches: a count of teams, then five 64-bit words a team (multiprocessor |
ran << 32, start and end of %globaltimer in ns, start and end of clock64). Printed, the median over
the launches of: teams, teams that ran (did not skip), the kernel's span (first start to last end),
the walk of a team that ran (median, mean, longest), a skipping team's time, teams that ran a
multiprocessor (most, mean, least), their summed walks over a multiprocessor's 8 slots (most,
mean), when the first multiprocessor was done, and the start of the teams that ran (median, 90th
percentile), all in microseconds.
"""
import sys

import numpy as np


def launches(path):
    a = np.fromfile(path, dtype=np.uint64)
    out, o = [], 0
    while o < len(a):
        n = int(a[o])
        out.append(a[o + 1:o + 1 + 5 * n].reshape(n, 5))
        o += 1 + 5 * n
    return out


for path in sys.argv[1:]:
    rows = []
    for r in launches(path):
        sm = (r[:, 0] & 0xFFFFFFFF).astype(int)
        ran = (r[:, 0] >> 32).astype(bool)
        t0 = r[:, 1].astype(np.int64)
        t1 = r[:, 2].astype(np.int64)
        base = t0.min()
        t0, t1 = (t0 - base) / 1e3, (t1 - base) / 1e3
        d = t1 - t0
        nsm = sm.max() + 1
        per = np.bincount(sm[ran], minlength=nsm)
        work = np.bincount(sm[ran], weights=d[ran], minlength=nsm)
        sm_end = np.zeros(nsm)
        np.maximum.at(sm_end, sm, t1)
        rows.append([len(r), ran.sum(), t1.max(), np.median(d[ran]), d[ran].mean(), d[ran].max(),
                     np.median(d[~ran]) if (~ran).any() else 0, per.max(), per.mean(), per.min(),
                     work.max() / 8, work.mean() / 8, sm_end.min(), np.median(t0[ran]),
                     np.percentile(t0[ran], 90)])
    m = np.median(np.array(rows), axis=0)
    print(f"{path}: teams {m[0]:.0f} ran {m[1]:.0f} span {m[2]:.1f} walk {m[3]:.1f}/{m[4]:.1f}/{m[5]:.1f} "
          f"skip {m[6]:.2f} | ran a multiprocessor {m[7]:.0f}/{m[8]:.1f}/{m[9]:.0f} | walks over 8 slots "
          f"{m[10]:.1f}/{m[11]:.1f} | first multiprocessor done {m[12]:.1f} | start {m[13]:.1f}/{m[14]:.1f}")
