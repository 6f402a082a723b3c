// shwa/app/host_values.hpp — the host arrays of an output (a block's or the grid's cells), and
// passes over cells shared by every CPU of the run.
//
// std::vector<double>::resize zeroes new storage on the calling thread. For arrays of hundreds of
// MB that is the kernel handing out and zeroing fresh pages one fault at a time on that one thread,
// while the run's other CPUs idle (seconds for a large deck's first frame or a checkpoint:
// perf/results/). HostValues leaves new values unset (io/host_array.hpp), and
// resize_for_overwrite gives them storage zeroed by every CPU of the run at once.
#pragma once

#include "affinity.hpp"
#include "io/host_array.hpp"
#include "io/threads.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace shwa::app {

/// A host array of cells' values (the initial state; an output's fields: Frame, the block's
/// fields on the host; a checkpoint's arrays).
using HostValues = io::HostArray<double>;

/// Calls run(begin, end) on contiguous runs of [0, n) that together cover it once, at once on the
/// calling thread and threads of their own (the run's CPUs, app/affinity.hpp): runs of at least
/// 64 Ki cells, where a thread costs less than what it takes over. Returns when all have.
template <class Run>
void for_cell_runs(std::size_t n, Run&& run) {
  const std::size_t threads = std::min<std::size_t>(std::size_t(process_cpu_count()), std::max<std::size_t>(n / 65536, 1));
  io::run_on_threads(io::Workers{int(threads), use_process_cpus}, [&](int w) {
    run(n * std::size_t(w) / threads, n * std::size_t(w + 1) / threads);
  });
}

/// How many runs of rows of `ny` rows for_row_runs makes: one for each CPU the run may use.
inline int row_runs(int ny) { return std::max(1, std::min(process_cpu_count(), ny)); }

/// Calls rows(run, j0, j1) for row_runs(ny) contiguous runs of rows [j0, j1) at once, on the
/// calling thread and threads of their own, and returns when all have: each call may write its
/// own rows and its run's values, and read anything shared.
template <class Rows>
void for_row_runs(int ny, Rows&& rows) {
  const int runs = row_runs(ny);
  io::run_on_threads(io::Workers{runs, use_process_cpus}, [&](int w) {
    rows(w, int(std::int64_t(ny) * w / runs), int(std::int64_t(ny) * (w + 1) / runs));
  });
}

/// `v` with n values, for a pass that then writes them all. Where its size was another, the old
/// storage is freed first and the new one zeroed by every CPU of the run at once (each faulting in
/// its own pages); where it was n already, storage and values stay as they were.
inline void resize_for_overwrite(HostValues& v, std::size_t n) {
  if (v.size() == n) return;
  v = HostValues();
  v.resize(n);
  double* const p = v.data();
  for_cell_runs(n, [p](std::size_t begin, std::size_t end) { std::fill(p + begin, p + end, 0.0); });
}

}  // namespace shwa::app
