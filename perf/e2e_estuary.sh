#!/usr/bin/env bash
# shwa on the GPU, end to end: the default estuary deck (inputs/estuary.toml, 1200 x 850 cells)
# and its 10 m version (inputs/estuary_fine.toml, 6000 x 4250 = 25.5 M cells), each run with its
# outputs by the GPU build and then by the CPU build on the same machine, one run after the other.
# A table (markdown and JSON) gives for each run: the steps, the wall times, the time a step, the
# simulated seconds a wall second and the GPU-over-CPU speed-up. A failed run is a row that says so.
#
#   perf/e2e_estuary.sh                 (run on the GPU machine, from anywhere, after both builds)
#   perf/e2e_estuary.sh --table DIR     (only rebuild the table of the runs recorded under DIR)
#
# Expected to take some 5 minutes with the defaults on one H200 and 16 cores (an estimate from
# shwa_bench's throughputs: the fine deck's CPU runs take most of it, its GPU runs seconds); where a
# command may run 10 minutes at most, run the decks apart (E2E_DECKS=estuary, then
# E2E_DECKS=estuary_fine) or set E2E_NOSKIP=gpu. Each run is checked (`shwa check`) first; that
# reads the fine deck's 136 MB raster too (seconds), outside every time measured.
#
# Environment:
#   SHWA_GPU      the GPU build's shwa (build/cuda/app/shwa)
#   SHWA_CPU      the CPU build's shwa (build/openmp/app/shwa), run with OMP_NUM_THREADS=$CPU_THREADS,
#                 OMP_PROC_BIND=spread, OMP_PLACES=threads; the GPU build runs in the caller's
#                 environment
#   CPU_THREADS   16
#   OUT           where the table, the logs and each run's small files go (./out/e2e_estuary); the
#                 runs' output folders (GBs for the fine deck) go to E2E_RUNS and are deleted after
#                 each run (their size is recorded) unless E2E_KEEP=1
#   E2E_RUNS      a folder for the runs' outputs (a new one under /tmp)
#   E2E_DECKS     "estuary estuary_fine": the decks (names in inputs/, without .toml)
#   E2E_END       time.end of the default deck for both builds (empty: the deck's, 3600 s)
#   E2E_FINE_END  time.end of the fine deck for both builds (600: a 16-core CPU needs minutes for
#                 this, about 1300 steps of 25.5 M cells; empty: the deck's 3600 s). The deck's
#                 output_interval (600 s) stays, so a run ends with its output at time.end.
#   E2E_FORMATS   output.formats of every run (["vtk"]: estuary.toml asks for vtk and png, and a
#                 build without libpng has no png; every build has vtk and asc). Gauges,
#                 maxima, checkpoints and summary.json are written as the decks say.
#   E2E_NOSKIP    also run with numerics.skip_dry=false (dry-land skipping off): "all" (both
#                 builds, the default), "gpu" (the GPU build only), "none". Left out, and said so
#                 in the table, when a build does not know the key (`shwa check` refuses it).
#   E2E_TIMEOUT   seconds a run may take (0: no limit); a run that takes longer is a failed row
#   E2E_SET       more overrides for every run, e.g. "numerics.kernel=recompute numerics.cfl=0.8"
#   E2E_PACK      1: pack runs/ and info/ of $OUT into $OUT/e2e_estuary_runs.tgz (for a transfer
#                 that returns only a few files); 0 (default) leaves them as they are
#   PYTHON        the Python for the table (python3; the standard library only). The bathymetry
#                 is made with a python3 that has numpy when there is one (seconds, not minutes).
#
# What is measured, per run: `wall` is the process from start to exit (Kokkos and device
# initialisation, reading the deck and the bathymetry raster, outputs: everything), taken here;
# `run` is summary.json's wall_time_s (from reading the deck to the summary: the raster reading,
# set-up on the device, the loop, every output; not the process's start-up); `loop` is its
# time_loop_s (the steps alone: the time loop less its outputs and checkpoints). The time a step
# is loop / steps; simulated seconds a wall second is time.end / wall (and / run); the speed-up is
# the CPU's time over the GPU's, for the same deck, end time and variant.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
PY=${PYTHON:-python3}

table() {  # table DIR: the markdown and JSON tables of the records under DIR/runs
  "$PY" - "$1" <<'PY'
import glob, json, os, sys
out = sys.argv[1]
recs = []
for p in sorted(glob.glob(os.path.join(out, "runs", "*", "record.json"))):
    with open(p) as f:
        recs.append(json.load(f))
recs.sort(key=lambda r: r.get("order", 0))

def fmt(x, spec):
    return "" if x is None else format(x, spec)

def rate(x):  # simulated seconds a wall second: 3 significant digits, no exponent
    return "" if x is None else f"{x:.0f}" if x >= 100 else f"{x:.3g}"

def key(r):
    return (r["deck"], r["variant"], r.get("end"))

ok = {(key(r), r["role"]): r for r in recs if r["status"] == "ok"}
cells = {r["deck"]: r["cells"] for r in recs if r.get("cells")}
for r in recs:
    r["cells"] = r.get("cells") or cells.get(r["deck"])
rows = []
head = ["deck", "cells", "build", "variant", "status", "steps", "simulated s", "wall s", "run s", "loop s",
        "inputs s", "set-up s", "outputs s", "checkpoints s", "ms a step", "sim s / wall s", "sim s / run s", "G cell updates/s (loop)", "outputs", "outputs MB",
        "GPU/CPU wall", "GPU/CPU run", "GPU/CPU loop"]
for r in recs:
    s = r.get("summary") or {}
    ok_run = r["status"] == "ok"
    steps = s.get("steps_this_run")
    loop, run, wall = s.get("time_loop_s"), s.get("wall_time_s"), r.get("wall_s")
    split = s.get("wall_time_split_s", {}) if ok_run else {}  # absent in summaries of older builds
    sim = s.get("end_time", r.get("end"))
    r["ms_per_step"] = 1e3 * loop / steps if ok_run and steps else None
    r["sim_per_wall"] = sim / wall if ok_run and wall else None
    r["sim_per_run"] = sim / run if ok_run and run else None
    sp = {}
    if ok_run and r["role"] == "gpu" and (key(r), "cpu") in ok:
        c = ok[(key(r), "cpu")]
        cs = c["summary"]
        sp = {"wall": c["wall_s"] / wall, "run": cs["wall_time_s"] / run, "loop": cs["time_loop_s"] / loop}
    r["speedup"] = sp or None
    mb = r.get("output_bytes")
    rows.append([r["deck"], fmt(r.get("cells"), ","), f'{r["role"].upper()} ({r.get("space", "?")})', r["variant"],
                 r["status"], fmt(steps, "d"), fmt(sim, "g"), fmt(wall, ".2f") if wall is not None else "",
                 fmt(run, ".2f") if ok_run else "", fmt(loop, ".3f") if ok_run else "",
                 fmt(split.get("inputs"), ".2f"), fmt(split.get("set_up"), ".2f"), fmt(split.get("outputs"), ".2f"), fmt(split.get("checkpoints"), ".2f"),
                 fmt(r["ms_per_step"], ".3f"),
                 rate(r["sim_per_wall"]), rate(r["sim_per_run"]),
                 fmt(s.get("cell_updates_per_s", 0) / 1e9 if ok_run else None, ".3f"),
                 fmt(s.get("outputs_written"), "d"), fmt(mb / 1e6 if mb is not None else None, ".0f"),
                 fmt(sp.get("wall"), ".1f"), fmt(sp.get("run"), ".1f"), fmt(sp.get("loop"), ".1f")])
lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
lines += ["| " + " | ".join(x.replace("|", "/") for x in row) + " |" for row in rows]
md = "\n".join(lines) + "\n"
notes = ("\nwall: the process, start to exit (start-up, raster reading, outputs included); run: summary.json "
         "wall_time_s (inputs, set-up, loop and outputs, not the process's start-up); loop: time_loop_s "
         "(the steps, outputs and checkpoints left out); inputs, set-up, outputs, checkpoints: rank 0's, from summary.json's "
         "wall_time_split_s (outputs_split_s there splits the outputs into the fields from the device and each "
         "format). outputs: output times written (frames of every format, gauges flushed); "
         "outputs MB: every file of the run's output folder. ms a step = loop / steps. sim s / wall s = time.end / wall. "
         "GPU/CPU: the CPU row's time over the GPU row's, same deck, end and variant.\n")
with open(os.path.join(out, "e2e_estuary.md"), "w") as f:
    f.write(md + notes)
with open(os.path.join(out, "e2e_estuary.json"), "w") as f:
    json.dump(recs, f, indent=1)
print(md + notes, end="")
PY
}

if [ "${1:-}" = "--table" ]; then
  [ -n "${2:-}" ] || { echo "usage: $0 --table DIR" >&2; exit 2; }
  table "$2"; exit
fi

gpu=${SHWA_GPU:-build/cuda/app/shwa} cpu=${SHWA_CPU:-build/openmp/app/shwa} threads=${CPU_THREADS:-16}
out=${OUT:-$root/out/e2e_estuary}; mkdir -p "$out/runs" "$out/info"; out=$(cd "$out" && pwd)
runs=${E2E_RUNS:-}; [ -n "$runs" ] || runs=$(mktemp -d /tmp/shwa-e2e.XXXXXX); mkdir -p "$runs"
decks=${E2E_DECKS:-estuary estuary_fine}
end_default=${E2E_END:-} end_fine=${E2E_FINE_END-600}
formats=${E2E_FORMATS:-'["vtk"]'} noskip=${E2E_NOSKIP:-all} limit=${E2E_TIMEOUT:-0}
extra=(); for s in ${E2E_SET:-}; do extra+=(--set "$s"); done
cmds=$out/commands.sh
echo "# perf/e2e_estuary.sh, $(date -u +%FT%TZ), $(git rev-parse --short HEAD 2>/dev/null)$(git diff --quiet HEAD -- 2>/dev/null || echo ' (+ uncommitted changes)')" > "$cmds"
echo "# from the repository root; each run writes into OUTDIR/NAME (its summary.json holds the times)" >> "$cmds"
echo 'OUTDIR=${OUTDIR:-/tmp/shwa-e2e}' >> "$cmds"

elapsed() { "$PY" -c "import sys; print(round(float(sys.argv[2]) - float(sys.argv[1]), 3))" "$1" "$2"; }

# The machine and the builds.
{ date -u; uname -a; nproc; grep -m1 "model name" /proc/cpuinfo; command -v lscpu > /dev/null && lscpu
  command -v nvidia-smi > /dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv; free -g; df -h /tmp "$out"
} > "$out/info/machine.txt" 2>&1
space() {  # the execution space a build reports, e.g. "Cuda" or "OpenMP (concurrency 16)"
  local s; s=$(sed -n 's/^execution space: //p' "$out/info/$1-info.txt" | head -1); echo "${s:-?}"
}
for role in gpu cpu; do
  exe=${gpu}; [ $role = cpu ] && exe=$cpu
  if [ $role = cpu ]; then
    OMP_NUM_THREADS=$threads OMP_PROC_BIND=spread OMP_PLACES=threads "$exe" info > "$out/info/$role-info.txt" 2>&1
  else
    "$exe" info > "$out/info/$role-info.txt" 2>&1
  fi || echo "$role build $exe: shwa info failed (exit $?)" | tee -a "$out/info/$role-info.txt"
done

# The bathymetry, when missing: with numpy where a python3 has it.
pynp=python3
python3 -c "import numpy" 2> /dev/null || { /usr/bin/python3 -c "import numpy" 2> /dev/null && pynp=/usr/bin/python3; }
for deck in $decks; do
  [ -f "inputs/$deck.toml" ] || { echo "no deck inputs/$deck.toml" >&2; continue; }
  [ -f "inputs/$deck/bathymetry.asc" ] && continue
  case $deck in
    estuary) size=() ;;
    estuary_fine) size=(--nx 6000 --ny 4250) ;;
    *) echo "inputs/$deck/bathymetry.asc is missing and this script does not know how to make it" >&2; continue ;;
  esac
  t0=$EPOCHREALTIME
  "$pynp" scripts/make_estuary.py "${size[@]}" --out "inputs/$deck" | tee -a "$out/info/bathymetry.txt"
  echo "made in $(elapsed "$t0" "$EPOCHREALTIME") s with $pynp" | tee -a "$out/info/bathymetry.txt"
  echo "$pynp scripts/make_estuary.py ${size[*]+${size[*]} }--out inputs/$deck" >> "$cmds"
done

order=0
record() {  # record NAME DECK ROLE VARIANT END STATUS RC WALL CELLS SPACE RUNDIR CMD
  "$PY" - "$@" <<'PY'
import json, os, subprocess, sys
name, deck, role, variant, end, status, rc, wall, cells, space, rundir, cmd, order, dest = sys.argv[1:15]
summary = None
sp = os.path.join(rundir, "summary.json")
if os.path.isfile(sp):
    try:
        with open(sp) as f:
            summary = json.load(f)
    except ValueError as e:
        status = f"{status}; summary.json unreadable ({e})"
if status == "ok" and summary is None:
    status = "failed (no summary.json)"
size = files = None
if os.path.isdir(rundir):
    size = files = 0
    for d, _, fs in os.walk(rundir):
        for f in fs:
            size += os.path.getsize(os.path.join(d, f))
            files += 1
rec = {"name": name, "deck": deck, "role": role, "variant": variant, "end": float(end) if end else None,
       "status": status, "exit_code": int(rc) if rc else None, "wall_s": float(wall) if wall else None,
       "cells": int(cells) if cells else None, "space": space, "command": cmd, "order": int(order),
       "output_bytes": size, "output_files": files, "summary": summary}
if summary and not rec["cells"]:
    rec["cells"] = summary["grid"]["nx"] * summary["grid"]["ny"]
if summary and rec["end"] is None:
    rec["end"] = summary["end_time"]
os.makedirs(dest, exist_ok=True)
with open(os.path.join(dest, "record.json"), "w") as f:
    json.dump(rec, f, indent=1)
PY
}

run_one() {  # run_one DECK ROLE VARIANT END
  local deck=$1 role=$2 variant=$3 end=$4 exe name dir dest sets env_=() status rc wall cells t0 t1 cmd
  exe=$gpu; [ "$role" = cpu ] && { exe=$cpu; env_=(OMP_NUM_THREADS="$threads" OMP_PROC_BIND=spread OMP_PLACES=threads); }
  name=$deck-$variant-$role; dir=$runs/$name; dest=$out/runs/$name
  order=$((order + 1)); rm -rf "$dir"; mkdir -p "$dest"
  sets=(--set "output.formats=$formats" --set "output.dir=$dir")
  [ -n "$end" ] && sets+=(--set "time.end=$end")
  [ "$variant" = no-skip-dry ] && sets+=(--set numerics.skip_dry=false)
  sets+=("${extra[@]}")
  cmd=$(printf '%q ' "${env_[@]}" "$exe" run "inputs/$deck.toml" "${sets[@]}"); cmd=${cmd% }
  echo "== $name ($(date +%T)): $cmd"
  # Checked first: a deck or key the build refuses is a row, not a crash.
  env "${env_[@]}" "$exe" check "inputs/$deck.toml" "${sets[@]}" > "$dest/check.txt" 2>&1
  rc=$?
  if [ "$rc" != 0 ]; then
    status="not run: \`shwa check\` failed, exit $rc: $( (grep -m1 -i 'error' "$dest/check.txt" || tail -1 "$dest/check.txt") | cut -c1-160)"
    [ "$variant" = no-skip-dry ] && grep -q "skip_dry" "$dest/check.txt" && status="not run: numerics.skip_dry not in this build"
    echo "   $status"
    record "$name" "$deck" "$role" "$variant" "$end" "$status" "$rc" "" "" "$(space $role)" "$dir" "$cmd" "$order" "$dest"
    return
  fi
  cells=$(sed -n 's/^# grid: .*cells (\([0-9]*\)).*/\1/p' "$dest/check.txt" | head -1)
  echo "$cmd" | sed "s|$dir|\"\$OUTDIR\"/$name|g" >> "$cmds"
  t0=$EPOCHREALTIME
  if [ "$limit" != 0 ]; then
    env "${env_[@]}" timeout "$limit" "$exe" run "inputs/$deck.toml" "${sets[@]}" > "$dest/log.txt" 2>&1
  else
    env "${env_[@]}" "$exe" run "inputs/$deck.toml" "${sets[@]}" > "$dest/log.txt" 2>&1
  fi
  rc=$?; t1=$EPOCHREALTIME
  wall=$(elapsed "$t0" "$t1")
  case $rc in
    0) status=ok ;;
    124) status="failed: timed out after $limit s" ;;
    *) status="failed, exit $rc: $( (grep -m1 -i 'error' "$dest/log.txt" || tail -1 "$dest/log.txt") | cut -c1-160)" ;;
  esac
  echo "   $status, wall $wall s; $(tail -1 "$dest/log.txt")"
  [ "$rc" = 0 ] || tail -5 "$dest/log.txt" | sed 's/^/   | /'
  for f in summary.json deck.toml gauges.csv shwa.pvd; do [ -f "$dir/$f" ] && cp "$dir/$f" "$dest/"; done
  record "$name" "$deck" "$role" "$variant" "$end" "$status" "$rc" "$wall" "$cells" "$(space $role)" "$dir" "$cmd" "$order" "$dest"
  [ "${E2E_KEEP:-0}" = 1 ] || rm -rf "$dir"
}

for deck in $decks; do
  [ -f "inputs/$deck.toml" ] || continue
  end=$end_default; [ "$deck" = estuary_fine ] && end=$end_fine
  variants=(default); [ "$noskip" != none ] && variants+=(no-skip-dry)
  for variant in "${variants[@]}"; do
    run_one "$deck" gpu "$variant" "$end"
    [ "$variant" = no-skip-dry ] && [ "$noskip" = gpu ] && continue
    run_one "$deck" cpu "$variant" "$end"
  done
done
[ "${E2E_KEEP:-0}" = 1 ] || rmdir "$runs" 2> /dev/null
table "$out"
if [ "${E2E_PACK:-0}" = 1 ]; then
  tar czf "$out/e2e_estuary_runs.tgz" -C "$out" runs info && rm -rf "$out/runs" "$out/info"
fi
