#!/usr/bin/env bash
# Device call 2 of session 49: main's whole CUDA suite (double, the cuda preset) built on the
# device and run, 22c9cbf. Carry .deps/src and .deps/debs.
CTEST_ARGS="-j6 --timeout 150" SHWA_COMMIT=22c9cbf timeout 430 bash perf/gpu_session.sh build test > $OUT/suite.log 2>&1
echo rc=$?
grep -E "tests passed|tests failed|Failed|\*\*\*|Total Test" $OUT/suite.log | tail -25
