#pragma once
// Work shared over threads of shwa's own (std::thread), for the host-side passes that would
// otherwise run on one core of a machine whose cores the run leaves idle then (a GPU run's host,
// or a CPU run between steps): reading rasters, deriving the output fields, converting and
// compressing VTK arrays, compressing and inflating checkpoints, writing the formats at once.

#include <exception>
#include <thread>
#include <vector>

namespace shwa::io {

/// The threads a caller lends a pass: how many, and what each new one calls first (the app
/// rebinds them to all of the run's CPUs: app/affinity.hpp).
struct Workers {
  int count = 1;
  void (*on_start)() = nullptr;
};

/// Calls work(w) once for each w in [0, workers.count): w = 0 on the calling thread, each other
/// on a thread of its own that first calls workers.on_start. A worker whose thread cannot be
/// started is run on the calling thread after its own, so that every share of the work is done.
/// Returns when all have; the first exception (lowest w) is rethrown.
template <class Work>
void run_on_threads(const Workers& workers, Work&& work) {
  const std::size_t n = std::size_t(workers.count > 1 ? workers.count : 1);
  // Allocated before any thread starts: nothing below may throw while one is running.
  std::vector<std::exception_ptr> errors(n);
  std::vector<std::thread> pool;
  pool.reserve(n - 1);
  std::vector<char> own(n, 0);  // whether worker w has a thread of its own
  auto run = [&](std::size_t w, bool started) {
    try {
      if (started && workers.on_start) workers.on_start();
      work(int(w));
    } catch (...) {
      errors[w] = std::current_exception();
    }
  };
  for (std::size_t w = 1; w < n; ++w) {
    try {
      pool.emplace_back(run, w, true);
      own[w] = 1;
    } catch (...) {
      break;  // no more threads to be had (std::system_error, std::bad_alloc): this one runs the rest
    }
  }
  run(0, false);
  for (std::size_t w = 1; w < n; ++w)
    if (!own[w]) run(w, false);
  for (std::thread& t : pool) t.join();
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace shwa::io
