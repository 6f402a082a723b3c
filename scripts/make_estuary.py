#!/usr/bin/env python3
"""Generates the bathymetry and the tide of the default deck, inputs/estuary.toml.

    python3 scripts/make_estuary.py [--nx 1200 --ny 850] [--out inputs/estuary] [--engine auto]

writes OUT/bathymetry.asc (ESRI ASCII grid of the bottom ELEVATION z in metres, positive up, so
the deck's initial.bathymetry_is = "elevation"; shwa uses H = -z) and OUT/tide.csv (the sea level
at the western boundary: a compressed tide, a sine of 2 m amplitude and a period of 1.5 hours, rising
from mean sea level at t = 0; see TIDE_PERIOD).
The finer GPU benchmark deck, inputs/estuary_fine.toml, is the same estuary at 10 m:
`--nx 6000 --ny 4250 --out inputs/estuary_fine` (25.5 M cells, a 136 MB file).

The estuary, 60 km x 42.5 km (cells of 50 m at the default size), is made of simple shapes, fully
deterministic:
  - an open sea in the west, 10 m deep at the western boundary;
  - a meandering channel narrowing from 24 km to 3 km eastwards and shoaling to 2 m, where a river
    enters through the eastern boundary; its banks rise parabolically to +1 m, so their upper
    parts are tidal flats that the tide wets and dries;
  - land beyond the banks, rising 1 m every 500 m (capped at 8 m);
  - three islands (Gaussian mounds, peaks 1.5 to 3 m above mean sea level).

Two engines write the same bytes at every size: plain Python (`--engine python`, no packages: a
few seconds for the default 1200 x 850, minutes for 6000 x 4250) and numpy (`--engine numpy`,
rows in blocks; `auto`, the default, uses it when numpy can be imported). The numpy engine
computes what depends on x or y alone (the centreline's sine, the channel's width and bed, the
islands' offsets) with the plain engine's own `math` calls, and the rest with numpy, whose exp and
products may differ from `math`'s in the last bits. The file holds centimetres ("%.2f"), so such a
difference (about 1e-14 m) changes a written value only when z * 100 lies within it of a
half-integer; every cell whose z * 100 lies within 1e-6 of a half-integer (or whose |z| < 1e-9, where
"-0.00" and "0.00" part) is recomputed and formatted by the plain engine, cell by cell. The other
cells are formatted from their rounded centimetres, exactly as "%.2f" would. Checked (numpy 1.24,
x86-64): both engines write the same bathymetry.asc (same sha256) at 1200 x 850 (where numpy's z
differs from math's in the last bit in 125 cells, none of them written differently) and at
6000 x 4250 (numpy 6 s, plain Python 2 min, one core).
The bathymetry file is about 7 MB (136 MB at 10 m), so it is not committed: building shwa makes the
default one (cmake/default-deck.cmake), and scripts/run-estuary.sh and perf/e2e_estuary.sh make it
when it is missing.
"""
import argparse
import math
import os

LX, LY = 60000.0, 42500.0  # the domain, metres; the cells are LX / nx by LY / ny

# The tide's period, seconds: 1.5 hours, where a real (M2) tide takes 12.42. A compressed tide, so that
# the default deck's run (inputs/estuary.toml: one period, about a minute on 2 cores) shows a whole
# cycle: the flood wetting the flats and carrying the spill up the estuary, then the ebb draining
# them and bringing it back.
TIDE_PERIOD = 5400.0
TIDE_AMPLITUDE = 2.0  # metres

# Islands: (x, offset from the channel's centreline, radius, peak above mean sea level), metres.
ISLANDS = [(25000.0, 1500.0, 1200.0, 3.0), (38000.0, -800.0, 800.0, 2.5), (15000.0, -4000.0, 600.0, 1.5)]


def centreline(x):
    return 0.5 * LY + 3000.0 * math.sin(2 * math.pi * x / 40000.0)


def elevation(x, y):
    """Bottom elevation z(x, y) [m], positive up, mean sea level 0."""
    d = abs(y - centreline(x))
    # Channel half width: 1.5 km at the river, 12 km where the sea begins (x = 8 km), then wider
    # than the domain, which makes the west an open sea.
    w = 1500.0 + 10500.0 * ((LX - x) / 52000.0) ** 1.5 if x >= 8000.0 else 12000.0 + 3.0 * (8000.0 - x)
    zc = -2.0 - 8.0 * ((LX - x) / LX) ** 1.2  # the channel's bed: -10 m at x = 0, -2 m at the river
    bank = 1.0
    z = zc + (bank - zc) * (d / w) ** 2 if d < w else min(bank + (d - w) / 500.0, 8.0)
    for xi, dy, r, peak in ISLANDS:
        g = math.exp(-((x - xi) ** 2 + (y - centreline(xi) - dy) ** 2) / (r * r))
        z = max(z, z + (peak - z) * g)
    return z


def rows_python(nx, ny, dx, dy):
    """The rows of the file, north to south, as (text, zmin, zmax, cells below 0): plain Python."""
    for j in reversed(range(ny)):
        row = [elevation((i + 0.5) * dx, (j + 0.5) * dy) for i in range(nx)]
        yield " ".join(f"{z:.2f}" for z in row), min(row), max(row), sum(z < 0 for z in row)


def rows_numpy(nx, ny, dx, dy, np, block=128):
    """The same rows as rows_python, the same bytes, computed with numpy a block of rows at a time."""
    x = [(i + 0.5) * dx for i in range(nx)]
    # What depends on x alone, with the plain engine's own math calls (elevation() above).
    c = np.array([centreline(xi) for xi in x])
    w = np.array([1500.0 + 10500.0 * ((LX - xi) / 52000.0) ** 1.5 if xi >= 8000.0 else 12000.0 + 3.0 * (8000.0 - xi)
                  for xi in x])
    zc = np.array([-2.0 - 8.0 * ((LX - xi) / LX) ** 1.2 for xi in x])
    bank = 1.0
    islands = [(np.array([(xi - x0) ** 2 for xi in x]), centreline(x0), dy0, r, peak) for x0, dy0, r, peak in ISLANDS]
    text = {}  # centimetres -> "%.2f"

    for top in range(ny - 1, -1, -block):
        js = list(range(top, max(top - block, -1), -1))  # north to south
        ys = [(j + 0.5) * dy for j in js]
        y = np.array(ys)[:, None]
        d = np.abs(y - c)
        q = d / w
        z = np.where(d < w, zc + (bank - zc) * (q * q), np.minimum(bank + (d - w) / 500.0, 8.0))
        for ax, cy, dy0, r, peak in islands:
            ay = np.array([(yj - cy - dy0) ** 2 for yj in ys])[:, None]
            g = np.exp(-(ax + ay) / (r * r))
            z = np.maximum(z, z + (peak - z) * g)
        # "%.2f" from the centimetres, except where numpy's last bits could matter: there, the
        # plain engine's value and formatting.
        z100 = z * 100.0
        cm = np.rint(z100)
        redo = (np.abs(np.abs(z100 - np.floor(z100)) - 0.5) < 1e-6) | (np.abs(z) < 1e-9)
        neg0 = (cm == 0) & (z < 0)
        cm = cm.astype(np.int64)
        for k in np.unique(cm):
            k = int(k)
            if k not in text:
                text[k] = f"{k / 100:.2f}"
        lo = min(text)
        table = np.array([text.get(k, "") for k in range(lo, max(text) + 1)] + ["-0.00"], dtype=object)
        idx = cm - lo
        idx[neg0] = len(table) - 1
        cells = table[idx]
        for r_, i_ in zip(*np.nonzero(redo)):
            zz = elevation(x[i_], ys[r_])
            z[r_, i_] = zz
            cells[r_, i_] = f"{zz:.2f}"
        for r_ in range(len(js)):
            yield " ".join(cells[r_].tolist()), float(z[r_].min()), float(z[r_].max()), int((z[r_] < 0).sum())


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--nx", type=int, default=1200)
    p.add_argument("--ny", type=int, default=850)
    p.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "inputs", "estuary"))
    p.add_argument("--engine", choices=["auto", "numpy", "python"], default="auto",
                   help="numpy, plain Python, or numpy when it can be imported (the default); same bytes")
    a = p.parse_args()
    np = None
    if a.engine != "python":
        try:
            import numpy as np
        except ImportError:
            if a.engine == "numpy":
                raise
    os.makedirs(a.out, exist_ok=True)
    dx, dy = LX / a.nx, LY / a.ny
    rows = rows_numpy(a.nx, a.ny, dx, dy, np) if np is not None else rows_python(a.nx, a.ny, dx, dy)

    # ESRI ASCII: rows from north to south, centimetres.
    zmin, zmax, wet = math.inf, -math.inf, 0
    # A name of this process's own: builds in several folders may make the file at once.
    tmp = os.path.join(a.out, f"bathymetry.asc.tmp.{os.getpid()}")
    with open(tmp, "w") as f:
        f.write(f"ncols {a.nx}\nnrows {a.ny}\nxllcorner 0\nyllcorner 0\ndx {dx:g}\ndy {dy:g}\nNODATA_value -9999\n")
        for text, lo, hi, below in rows:
            zmin, zmax, wet = min(zmin, lo), max(zmax, hi), wet + below
            f.write(text + "\n")
    os.replace(tmp, os.path.join(a.out, "bathymetry.asc"))

    # A day of the compressed tide, a row every 5 minutes.
    with open(os.path.join(a.out, "tide.csv"), "w") as f:
        f.write(f"# Sea level at the western boundary [m]: a compressed tide (not a real one) of {TIDE_AMPLITUDE:g} m "
                f"amplitude and a period of {TIDE_PERIOD:g} s, rising at t = 0 (scripts/make_estuary.py)\n")
        f.write("time,stage\n")
        for t in range(0, 86400 + 1, 300):
            f.write(f"{t},{TIDE_AMPLITUDE * math.sin(2 * math.pi * t / TIDE_PERIOD):.4f}\n")
    print(f"{a.out}/bathymetry.asc: {a.nx} x {a.ny} cells of {dx:g} x {dy:g} m, z in [{zmin:.2f}, {zmax:.2f}] m, "
          f"{100 * wet / (a.nx * a.ny):.0f}% below mean sea level ({'numpy' if np is not None else 'plain Python'})")


if __name__ == "__main__":
    main()
