#pragma once
// Work shared over threads of shwa's own (std::thread), for the host-side passes of an output
// that would otherwise run on one core of a machine whose cores the run leaves idle then (a GPU
// run's host, or a CPU run between steps): converting and compressing VTK arrays, deriving the
// output fields.

#include <exception>
#include <system_error>
#include <thread>
#include <vector>

namespace shwa::io {

/// Calls work(w) once for each w in [0, threads): w = 0 on the calling thread, each other on a
/// thread of its own that first calls on_start() (which may rebind it, for example). A worker
/// whose thread cannot be started is run on the calling thread after its own, so that every
/// share of the work is done. Returns when all have; the first exception (lowest w) is rethrown.
template <class Work, class OnStart>
void run_on_threads(int threads, Work&& work, OnStart&& on_start) {
  const std::size_t n = std::size_t(threads > 1 ? threads : 1);
  std::vector<std::exception_ptr> errors(n);
  auto run = [&](std::size_t w) {
    try {
      work(int(w));
    } catch (...) {
      errors[w] = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  std::vector<std::size_t> left;  // workers without a thread of their own
  for (std::size_t w = 1; w < n; ++w) {
    try {
      pool.emplace_back([&run, &on_start, w] {
        on_start();
        run(w);
      });
    } catch (const std::system_error&) {
      left.push_back(w);
    }
  }
  run(0);
  for (const std::size_t w : left) run(w);
  for (std::thread& t : pool) t.join();
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}

template <class Work>
void run_on_threads(int threads, Work&& work) {
  run_on_threads(threads, static_cast<Work&&>(work), [] {});
}

}  // namespace shwa::io
