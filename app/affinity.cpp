// shwa/app/affinity.cpp — see affinity.hpp.
#include "affinity.hpp"

#ifdef __linux__
#include <sched.h>
#endif

namespace shwa::app {

#ifdef __linux__
namespace {
cpu_set_t g_cpus;
bool g_noted = false;
}  // namespace

void note_process_cpus() { g_noted = sched_getaffinity(0, sizeof g_cpus, &g_cpus) == 0; }

void use_process_cpus() {
  if (g_noted) sched_setaffinity(0, sizeof g_cpus, &g_cpus);  // best effort: a refusal leaves it bound
}
#else
void note_process_cpus() {}
void use_process_cpus() {}
#endif

}  // namespace shwa::app
