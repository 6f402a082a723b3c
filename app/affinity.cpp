// shwa/app/affinity.cpp — see affinity.hpp.
#include "affinity.hpp"

#ifdef __linux__
#include <sched.h>
#endif
#ifdef _OPENMP
#include <omp.h>
#endif

#include <algorithm>
#include <thread>
#include <vector>

namespace shwa::app {

#ifdef __linux__
namespace {
cpu_set_t g_cpus;
bool g_noted = false;
}  // namespace

void note_process_cpus() {
  CPU_ZERO(&g_cpus);
#ifdef _OPENMP
  // The union of the places: where the process's first thread is bound already, its own mask
  // holds one of them only.
  for (int p = 0; p < omp_get_num_places(); ++p) {
    std::vector<int> ids(std::size_t(omp_get_place_num_procs(p)));
    omp_get_place_proc_ids(p, ids.data());
    for (const int id : ids)
      if (id >= 0 && id < CPU_SETSIZE) CPU_SET(id, &g_cpus);
  }
#endif
  g_noted = CPU_COUNT(&g_cpus) > 0 || sched_getaffinity(0, sizeof g_cpus, &g_cpus) == 0;
}

void use_process_cpus() {
  if (g_noted) sched_setaffinity(0, sizeof g_cpus, &g_cpus);  // best effort: a refusal leaves it bound
}

int process_cpu_count() {
  return g_noted ? CPU_COUNT(&g_cpus) : std::max(1, int(std::thread::hardware_concurrency()));
}
#else
void note_process_cpus() {}
void use_process_cpus() {}
int process_cpu_count() { return std::max(1, int(std::thread::hardware_concurrency())); }
#endif

}  // namespace shwa::app
