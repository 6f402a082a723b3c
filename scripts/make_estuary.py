#!/usr/bin/env python3
"""Generates the bathymetry and the tide of the default deck, inputs/estuary.toml.

    python3 scripts/make_estuary.py [--nx 1200 --ny 850] [--out inputs/estuary]

writes OUT/bathymetry.asc (ESRI ASCII grid of the bottom ELEVATION z in metres, positive up, so
the deck's initial.bathymetry_is = "elevation"; shwa uses H = -z) and OUT/tide.csv (the sea level
at the western boundary: an M2 tide of 2 m amplitude, rising from mean sea level at t = 0).

The estuary, 60 km x 42.5 km (cells of 50 m at the default size), is made of simple shapes, fully deterministic (plain Python, no packages):
  - an open sea in the west, 10 m deep at the western boundary;
  - a meandering channel narrowing from 24 km to 3 km eastwards and shoaling to 2 m, where a river
    enters through the eastern boundary; its banks rise parabolically to +1 m, so their upper
    parts are tidal flats that the tide wets and dries;
  - land beyond the banks, rising 1 m every 500 m (capped at 8 m);
  - three islands (Gaussian mounds, peaks 1.5 to 3 m above mean sea level).
The bathymetry file is about 7 MB, so it is not committed: scripts/run-estuary.sh makes it when
it is missing.
"""
import argparse
import math
import os

LX, LY = 60000.0, 42500.0  # the domain, metres; the cells are LX / nx by LY / ny

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


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--nx", type=int, default=1200)
    p.add_argument("--ny", type=int, default=850)
    p.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "inputs", "estuary"))
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    dx, dy = LX / a.nx, LY / a.ny

    # ESRI ASCII: rows from north to south, centimetres.
    zmin, zmax, wet = math.inf, -math.inf, 0
    tmp = os.path.join(a.out, "bathymetry.asc.tmp")
    with open(tmp, "w") as f:
        f.write(f"ncols {a.nx}\nnrows {a.ny}\nxllcorner 0\nyllcorner 0\ndx {dx:g}\ndy {dy:g}\nNODATA_value -9999\n")
        for j in reversed(range(a.ny)):
            row = [elevation((i + 0.5) * dx, (j + 0.5) * dy) for i in range(a.nx)]
            zmin, zmax, wet = min(zmin, min(row)), max(zmax, max(row)), wet + sum(z < 0 for z in row)
            f.write(" ".join(f"{z:.2f}" for z in row) + "\n")
    os.replace(tmp, os.path.join(a.out, "bathymetry.asc"))

    period = 44712.0  # M2, seconds
    with open(os.path.join(a.out, "tide.csv"), "w") as f:
        f.write("# Sea level at the western boundary [m]: an M2 tide of 2 m amplitude, rising at t = 0\n")
        f.write("time,stage\n")
        for t in range(0, 86400 + 1, 600):
            f.write(f"{t},{2.0 * math.sin(2 * math.pi * t / period):.4f}\n")
    print(f"{a.out}/bathymetry.asc: {a.nx} x {a.ny} cells of {dx:g} x {dy:g} m, z in [{zmin:.2f}, {zmax:.2f}] m, "
          f"{100 * wet / (a.nx * a.ny):.0f}% below mean sea level")


if __name__ == "__main__":
    main()
