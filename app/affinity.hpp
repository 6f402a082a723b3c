// shwa/app/affinity.hpp — the CPUs a thread of shwa's own may run on.
//
// With OMP_PROC_BIND set, the OpenMP runtime binds the process's first thread to one place (GNU's
// as it loads, before main), and threads started from it inherit that one place: the output
// writers (run_outputs.cpp) would share one core while the others idle. They run instead on the
// CPUs of all of OpenMP's places, or, where OpenMP binds nothing, on those the process had (the
// ones a launcher such as mpiexec bound the rank to, or all).
#pragma once

namespace shwa::app {

/// Takes note of the CPUs the writers may use; call from the first thread, before Kokkos starts.
void note_process_cpus();
/// Binds the calling thread to the CPUs noted (nothing where none were, or off Linux).
void use_process_cpus();
/// How many CPUs were noted (at least 1; where none were, the hardware's count).
int process_cpu_count();

}  // namespace shwa::app
