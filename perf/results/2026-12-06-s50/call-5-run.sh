bash perf/results/2026-12-06-s50/call-5.sh 2>&1 | tee $OUT/call-5.log
