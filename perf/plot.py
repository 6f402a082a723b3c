#!/usr/bin/python3
"""Plots of the measured results (Debian's python3-matplotlib).

    perf/plot.py [RESULTS_DIR [OUT_DIR]]  # default perf/results; writes throughput.png and scaling.png
                                          # to OUT_DIR (default: RESULTS_DIR)
    perf/plot.py --speedup DIR            # only the GPU vs CPU table (no matplotlib needed)

throughput.png: cell updates per second against the grid size, for the CUDA build on one GPU and the
OpenMP build on the host cores of the same machine, double and float, best tile of each variant,
with the GPU's ceiling: the copy bandwidth measured in the same process over the bytes a step moves
a cell (13 values).
scaling.png: shwa_scale on 1 and 2 GPUs: time per step split into compute, halo and allreduce, and
the strong and weak scaling efficiencies.
history.png: the GPU performance history (gpu-history.csv, perf/history.py) over commits, drops
of more than 5 % against the previous run of the same configuration marked.
"""
import glob
import json
import os
import re
import sys


SKIP = 77  # ctest's SKIP_RETURN_CODE for perf.plots: reported as not run, not as passed


def plt():
    try:
        import matplotlib
    except ImportError:
        print("plot.py: matplotlib is missing (Debian: python3-matplotlib); no plots drawn", file=sys.stderr)
        sys.exit(SKIP)

    matplotlib.use("Agg")
    import matplotlib.pyplot as pyplot

    return pyplot


def best_by_size(path):
    """{variant: [(n, best G cell updates/s over tiles)]} of one shwa_bench JSON file."""
    data = json.load(open(path))
    best = {}
    for r in data["results"]:
        key = (r["variant"], r["n"])
        best[key] = max(best.get(key, 0.0), r["cell_updates_per_s"] / 1e9)
    out = {}
    for (variant, n), g in sorted(best.items(), key=lambda kv: kv[0][1]):
        out.setdefault(variant, []).append((n, g))
    return out


def parse_scale(path):
    """Rows of a shwa_scale log: dicts with ranks, grid, k, overlap, ms, compute, halo, allred, G."""
    rows, mode = [], None
    for line in open(path):
        m = re.match(r"# shwa_scale: .* (\d+) ranks, (\w+) scaling", line)
        if m:
            mode = m.group(2)
            continue
        f = line.split()
        if len(f) == 12 and f[0].isdigit():
            nx, ny = f[2].split("x")
            rows.append(dict(mode=mode, ranks=int(f[0]), nx=int(nx), ny=int(ny), k=int(f[3]),
                             overlap=f[4] == "on", ms=float(f[7]), compute=float(f[8]),
                             halo=float(f[9]), allred=float(f[10]), gcups=float(f[11])))
    return rows


def throughput(results, out):
    fig, ax = plt().subplots(figsize=(10, 5))
    styles = {"recompute": "--", "decoupled": "-"}
    for path, label, color in [
        ("*-h200-cuda-double.json", "CUDA H200, double", "tab:blue"),
        ("*-h200-cuda-float.json", "CUDA H200, float", "tab:cyan"),
        ("*-host-openmp-double-t16.json", "OpenMP 16 cores, double", "tab:red"),
        ("*-host-openmp-float-t16.json", "OpenMP 16 cores, float", "tab:orange"),
    ]:
        files = sorted(glob.glob(os.path.join(results, path)))
        if not files:
            continue
        for variant, pts in best_by_size(files[-1]).items():
            ax.plot([p[0] for p in pts], [p[1] for p in pts], styles.get(variant, ":"), color=color,
                    marker="o", label=f"{label}, {variant}")
        if "cuda" in path:
            # The ceiling: every value a step reads or writes moved at the copy kernel's bandwidth
            # (largest grid of the file, where the copy is fastest).
            data = json.load(open(files[-1]))
            r = max(data["results"], key=lambda r: r["n"])
            copy = r["GBps"] / (r["percent_of_copy"] / 100)  # GB/s
            size = 8 if data["precision"] == "double" else 4
            ceiling = copy / (13 * size)
            ax.axhline(ceiling, color=color, ls=":", lw=1)
            ax.text(300, ceiling * 1.04, f"ceiling, {data['precision']}: {ceiling:.0f} G "
                    f"(13 values a cell at {copy / 1000:.2f} TB/s)", color=color, fontsize=7)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("grid size n (n x n cells)")
    ax.set_ylabel("G cell updates / s")
    ax.set_title("shwa step throughput (best tile per variant)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1))  # beside the axes: no point hidden
    fig.tight_layout()
    fig.savefig(out, dpi=120)


def scaling(results, out):
    files = sorted(glob.glob(os.path.join(results, "*-scale-cuda-double.txt")))
    if not files:
        return
    rows = [r for r in parse_scale(files[-1]) if r["k"] == 1 and not r["overlap"]]
    one = {r["nx"]: r for r in rows if r["ranks"] == 1}
    fig, (a1, a2) = plt().subplots(1, 2, figsize=(11, 4.5))
    labels, x = [], 0
    for r in rows:
        if r["mode"] != "strong" and r["ranks"] == 1:
            continue
        parts = [(r["compute"], "tab:blue", "compute"), (r["halo"], "tab:orange", "halo"),
                 (r["allred"], "tab:green", "allreduce")]
        bottom = 0.0
        for v, c, name in parts:
            a1.bar(x, v, bottom=bottom, color=c, label=name if x == 0 else None)
            bottom += v
        labels.append(f"{r['nx']}x{r['ny']}\n{r['ranks']} GPU" + ("s" if r["ranks"] > 1 else ""))
        x += 1
    a1.set_xticks(range(len(labels)))
    a1.set_xticklabels(labels, fontsize=7)
    a1.set_ylabel("ms per step")
    a1.set_title("time per step (k = 1, overlap off)")
    a1.legend(fontsize=8)
    eff_labels, effs = [], []
    for r in rows:
        if r["ranks"] < 2:
            continue
        if r["mode"] == "strong" and r["nx"] in one:
            effs.append(100 * one[r["nx"]]["ms"] / (r["ranks"] * r["ms"]))
            eff_labels.append(f"strong\n{r['nx']}^2")
        elif r["mode"] == "weak":
            base = one.get(r["nx"] if r["nx"] == r["ny"] else min(r["nx"], r["ny"]))
            if base:
                effs.append(100 * base["ms"] / r["ms"])
                eff_labels.append(f"weak\n{min(r['nx'], r['ny'])}^2/GPU")
    a2.bar(range(len(effs)), effs, color="tab:purple")
    for i, e in enumerate(effs):
        a2.text(i, e + 1, f"{e:.1f}%", ha="center", fontsize=8)
    a2.axhline(90, color="gray", ls="--", lw=0.8)
    a2.set_xticks(range(len(eff_labels)))
    a2.set_xticklabels(eff_labels, fontsize=8)
    a2.set_ylim(0, 110)
    a2.set_ylabel("parallel efficiency, 1 -> 2 GPUs (%)")
    a2.set_title("scaling efficiency")
    fig.tight_layout()
    fig.savefig(out, dpi=120)


def history(results, out):
    """Throughput over the history's runs, one line a configuration, drops marked."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import history as hist

    rows = hist.read(os.path.join(results, "gpu-history.csv"))
    if not rows:
        return False
    runs = []  # (date, commit) in the order of the file
    for r in rows:
        if (r["date"], r["commit"]) not in runs:
            runs.append((r["date"], r["commit"]))
    fig, ax = plt().subplots(figsize=(10, 6))
    previous, lines = {}, {}
    for r in rows:
        x = runs.index((r["date"], r["commit"]))
        change, flag = hist.compare(previous, r)
        previous[hist.key(r)] = r
        # One line a configuration and machine: runs on another GPU are not joined to these.
        k = (r["machine"], r["precision"], int(r["n"]), r["variant"])
        if k[2] not in (1024, 4096, 16384):
            continue
        lines.setdefault(k, []).append((x, float(r["gcups"]), flag))
    colors = {1024: "tab:green", 4096: "tab:blue", 16384: "tab:purple"}
    machines = sorted({k[0] for k in lines})
    for (machine, prec, n, variant), pts in sorted(lines.items()):
        style = ("-" if variant == "decoupled" else "--") + ("o" if prec == "double" else "s")
        # The first machine's markers filled, the others' hollow.
        fill = colors[n] if machine == machines[0] else "none"
        ax.plot([p[0] for p in pts], [p[1] for p in pts], style, color=colors[n], ms=4, mfc=fill,
                label=f"{n}^2 {variant} {prec}, {machine}")
        for x, g, flag in pts:
            if flag:
                ax.plot(x, g, "x", color="red", ms=10, mew=2)
    ax.set_xticks(range(len(runs)))
    ax.set_xticklabels([f"{c[:7]} {d}" for d, c in runs], fontsize=6, rotation=90)
    ax.set_yscale("log")
    ax.set_ylabel("G cell updates / s")
    ax.set_title("GPU performance history (red x: more than 5 % below the previous run)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=6, ncol=2)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    return True


def speedup(results):
    """GPU over CPU, same host and problem: best CUDA result over best OpenMP result at each size."""
    print("%-6s %7s %8s %12s %12s %8s" % ("prec", "threads", "n", "GPU G/s", "CPU G/s", "speedup"))
    for prec in ("double", "float"):
        gpu = sorted(glob.glob(os.path.join(results, "*cuda-%s.json" % prec)))
        if not gpu:
            continue
        gbest = {}
        for pts in best_by_size(gpu[-1]).values():
            for n, v in pts:
                gbest[n] = max(gbest.get(n, 0.0), v)
        for f in sorted(glob.glob(os.path.join(results, "*openmp-%s-t*.json" % prec))):
            threads = re.search(r"-t(\d+)\.json$", f).group(1)
            cbest = {}
            for pts in best_by_size(f).values():
                for n, v in pts:
                    cbest[n] = max(cbest.get(n, 0.0), v)
            for n in sorted(set(gbest) & set(cbest)):
                print("%-6s %7s %8d %12.3f %12.4f %7.0fx" % (prec, threads, n, gbest[n], cbest[n],
                                                            gbest[n] / cbest[n]))


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--speedup":
        speedup(sys.argv[2])
        sys.exit(0)
    res = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "results")
    out = sys.argv[2] if len(sys.argv) > 2 else res
    speedup(res)
    throughput(res, os.path.join(out, "throughput.png"))
    scaling(res, os.path.join(out, "scaling.png"))
    names = ["throughput.png", "scaling.png"]
    if history(res, os.path.join(out, "history.png")):
        names.append("history.png")
    for name in names:
        if not os.path.getsize(os.path.join(out, name)):
            sys.exit("plot.py: %s is empty" % name)
    print("wrote", ", ".join(os.path.join(out, n) for n in names))
