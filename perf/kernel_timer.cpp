// shwa/perf/kernel_timer.cpp — a Kokkos profiling tool: the wall time of each kernel and of each
// profiling region of a run, by name.
//
//   KOKKOS_PROFILE_LIBRARY=build/openmp/perf/libshwa_kernel_timer.so shwa run DECK
//   (SHWA_KERNEL_TIMES=FILE writes the table there instead of standard error)
//
// Kokkos calls the tool before and after each parallel_for / reduce / scan and at each region's
// push and pop. On host back ends (Serial, OpenMP) a kernel has ended when its end hook runs, so
// the times are the kernels'. On a GPU a launch returns before the kernel ends, and the times are
// those of the launches: use Nsight Compute or Nsight Systems there (perf/gpu_session.sh ncu-app).
//
// The table's first line gives the time from Kokkos' start to its end, the part of it spent in
// kernels and the rest: set-up, output, and whatever the host does between kernels.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct Entry {
  long calls = 0;
  double seconds = 0;
};

struct Open {
  std::string name;
  Clock::time_point start;
};

struct State {
  std::mutex mutex;
  std::map<std::string, Entry> kernels, regions;
  std::map<std::uint64_t, Open> running;  // kernels begun and not ended, by the id given to Kokkos
  std::vector<Open> region_stack;
  std::uint64_t next_id = 0;
  Clock::time_point start = Clock::now();
};

State& state() {
  static State s;
  return s;
}

void begin_kernel(const char* name, std::uint64_t* id) {
  State& s = state();
  const std::lock_guard<std::mutex> lock(s.mutex);
  *id = s.next_id++;
  s.running[*id] = Open{name, Clock::now()};
}

void end_kernel(std::uint64_t id) {
  const auto now = Clock::now();
  State& s = state();
  const std::lock_guard<std::mutex> lock(s.mutex);
  const auto it = s.running.find(id);
  if (it == s.running.end()) return;
  Entry& e = s.kernels[it->second.name];
  ++e.calls;
  e.seconds += std::chrono::duration<double>(now - it->second.start).count();
  s.running.erase(it);
}

void print_table(std::FILE* f, const char* title, const std::map<std::string, Entry>& m, double total) {
  std::vector<std::pair<std::string, Entry>> rows(m.begin(), m.end());
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.second.seconds > b.second.seconds; });
  std::fprintf(f, "%-9s %10s %12s %12s %7s  %s\n", title, "calls", "total [s]", "mean [us]", "share", "name");
  for (const auto& [name, e] : rows)
    std::fprintf(f, "%-9s %10ld %12.4f %12.2f %6.1f%%  %s\n", "", e.calls, e.seconds, 1e6 * e.seconds / double(e.calls),
                 total > 0 ? 100 * e.seconds / total : 0.0, name.c_str());
}

}  // namespace

extern "C" {

void kokkosp_init_library(const int, const std::uint64_t, const std::uint32_t, void*) { state().start = Clock::now(); }

void kokkosp_begin_parallel_for(const char* name, const std::uint32_t, std::uint64_t* id) { begin_kernel(name, id); }
void kokkosp_end_parallel_for(const std::uint64_t id) { end_kernel(id); }
void kokkosp_begin_parallel_reduce(const char* name, const std::uint32_t, std::uint64_t* id) { begin_kernel(name, id); }
void kokkosp_end_parallel_reduce(const std::uint64_t id) { end_kernel(id); }
void kokkosp_begin_parallel_scan(const char* name, const std::uint32_t, std::uint64_t* id) { begin_kernel(name, id); }
void kokkosp_end_parallel_scan(const std::uint64_t id) { end_kernel(id); }

void kokkosp_push_profile_region(const char* name) {
  State& s = state();
  const std::lock_guard<std::mutex> lock(s.mutex);
  s.region_stack.push_back(Open{name, Clock::now()});
}

void kokkosp_pop_profile_region() {
  const auto now = Clock::now();
  State& s = state();
  const std::lock_guard<std::mutex> lock(s.mutex);
  if (s.region_stack.empty()) return;
  const Open r = s.region_stack.back();
  s.region_stack.pop_back();
  Entry& e = s.regions[r.name];
  ++e.calls;
  e.seconds += std::chrono::duration<double>(now - r.start).count();
}

void kokkosp_finalize_library() {
  State& s = state();
  const std::lock_guard<std::mutex> lock(s.mutex);
  const double total = std::chrono::duration<double>(Clock::now() - s.start).count();
  double in_kernels = 0;
  for (const auto& kv : s.kernels) in_kernels += kv.second.seconds;
  const char* path = std::getenv("SHWA_KERNEL_TIMES");
  std::FILE* f = path && *path ? std::fopen(path, "w") : stderr;
  if (!f) {
    std::fprintf(stderr, "shwa kernel timer: cannot write %s\n", path);
    f = stderr;
  }
  std::fprintf(f, "shwa kernel timer: %.4f s from Kokkos' start to its end, %.4f s in kernels, %.4f s outside them\n",
               total, in_kernels, total - in_kernels);
  print_table(f, "kernels", s.kernels, total);
  if (!s.regions.empty()) print_table(f, "regions", s.regions, total);
  if (f != stderr) std::fclose(f);
}

}  // extern "C"
