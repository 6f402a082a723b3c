#!/bin/bash
# SIGTERM to one rank of `mpiexec -n 2 shwa run` stops every rank after the same step: they agree
# at a health check (every numerics.health_interval = 10 steps), the root, which got no signal,
# writes the checkpoint and names the step once, and one process resumes from it to the end with
# the files of one uninterrupted process, byte for byte.
# Each run has LIMIT seconds (default 120; a run takes a few): one that hangs fails the test,
# naming the run, with its processes' states and output, instead of holding the suite.
#   mpi_interrupt.sh MPIEXEC "MPIEXEC FLAGS" SHWA DECK SCRATCH_DIR
set -u
mpiexec=$1 flags=$2 exe=$3 deck=$4 dir=$5 limit=${LIMIT:-120}
rm -rf "$dir" && mkdir -p "$dir" || exit 1
fail() {
  echo "FAIL: $*"
  exit 1
}
# hung NAME PID LOG...: the process PID (NAME) outlived the limit: its tree's states (what each
# waits in) and the logs, then the tree killed, and the test failed.
hung() {
  local name=$1 logs=("${@:3}") tree=("$2") i=0 p f
  while [ "$i" -lt "${#tree[@]}" ]; do
    for p in $(pgrep -P "${tree[$i]}"); do tree+=("$p"); done
    i=$((i + 1))
  done
  echo "FAIL: $name still running after $limit s; its processes:"
  ps -o pid,ppid,etime,stat,wchan:32,args -p "$(IFS=,; echo "${tree[*]}")"
  for f in "${logs[@]}"; do [ -e "$f" ] && { echo "-- $f"; tail -n 30 "$f"; }; done
  kill -KILL "${tree[@]}" 2> /dev/null
  exit 1
}
# bounded NAME PID LOG...: waits for PID up to the limit; its exit status.
bounded() {
  local pid=$2
  for _ in $(seq $((limit * 10))); do
    kill -0 "$pid" 2> /dev/null || break
    sleep 0.1
  done
  kill -0 "$pid" 2> /dev/null && hung "$@"
  wait "$pid"
}
# The deck's 64 x 40 grid refined 4x (16x the cells, 4x the steps: about 2 s of loop on two ranks,
# against 0.05 s unrefined, which a fast machine finished before the signal came); outputs at the
# start and the end only.
long=(--set grid.nx=256 --set grid.ny=160 --set grid.dx=0.25
  --set time.end=120.0 --set time.output_interval=120.0)

"$exe" run "$deck" --set "output.dir=\"$dir/np1\"" "${long[@]}" > "$dir/np1.log" 2>&1 &
bounded "the reference run" $! "$dir/np1.log" || fail "the reference run failed: $(cat "$dir/np1.log")"

# shellcheck disable=SC2086  # the flags are words
$mpiexec -n 2 $flags "$exe" run "$deck" --set "output.dir=\"$dir/int\"" "${long[@]}" > "$dir/int.out" 2> "$dir/int.err" &
launcher=$!
for _ in $(seq 6000); do
  [ -e "$dir/int/asc/h_0000.asc" ] && break
  sleep 0.01
done
# Rank 1 alone (Open MPI names the rank in each process's environment); else every rank.
target=""
for p in $(pgrep -P "$launcher"); do
  grep -qxz 'OMPI_COMM_WORLD_RANK=1' "/proc/$p/environ" 2> /dev/null && target=$p
done
[ -n "$target" ] || target=$(pgrep -P "$launcher" | tr '\n' ' ')
[ -n "$target" ] || fail "no rank to signal (the run ended already?)"
echo "SIGTERM to process $target"
# shellcheck disable=SC2086
kill -TERM $target
bounded "the interrupted run (mpiexec)" "$launcher" "$dir/int.out" "$dir/int.err"
rc=$?
cat "$dir/int.err"
[ "$rc" -ne 0 ] || fail "the interrupted run exited 0 (did it end before the signal came?)"
[ "$(grep -c 'stopped the run after step' "$dir/int.err")" -eq 1 ] || fail "expected the stop named once"
step=$(sed -n 's/.*stopped the run after step \([0-9]*\) .*/\1/p' "$dir/int.err")
[ -n "$step" ] && [ $((step % 10)) -eq 0 ] || fail "stopped after step '$step', not at a health check"
grep -q "resume with: .* --restart" "$dir/int.err" || fail "no resume command"
checkpoint=$(printf '%s/int/checkpoints/checkpoint_%010d.shck' "$dir" "$step")
[ -e "$checkpoint" ] || fail "no $checkpoint"
[ ! -e "$dir/int/summary.json" ] || fail "an interrupted run wrote its summary"

"$exe" run "$deck" --set "output.dir=\"$dir/int\"" "${long[@]}" --restart > "$dir/resumed.log" 2>&1 &
bounded "the resumed run" $! "$dir/resumed.log" || fail "the resumed run failed: $(cat "$dir/resumed.log")"
n=0
while IFS= read -r f; do
  cmp -s "$dir/np1/$f" "$dir/int/$f" || fail "$dir/int/$f differs from $dir/np1/$f (one process)"
  n=$((n + 1))
done < <(cd "$dir/np1" && find . -name '*.asc' -o -name gauges.csv)
[ "$n" -ge 10 ] || fail "only $n files to compare"
echo "stopped after step $step; resumed: $n files byte for byte those of one uninterrupted process"
rm -rf "$dir"
