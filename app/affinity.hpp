// shwa/app/affinity.hpp — the CPUs a thread of shwa's own may run on.
//
// With OMP_PROC_BIND set, the OpenMP runtime binds the process's first thread to one place when
// Kokkos starts, and threads started from it afterwards inherit that one place: the output
// writers (run_outputs.cpp) would share one core while the others idle. The process's CPUs
// before that binding (those a launcher such as mpiexec bound the rank to, or all) are taken
// once before Kokkos starts, and a writer thread takes them back.
#pragma once

namespace shwa::app {

/// Takes note of this thread's CPUs; call before Kokkos starts.
void note_process_cpus();
/// Binds the calling thread to the CPUs noted (nothing where none were, or off Linux).
void use_process_cpus();

}  // namespace shwa::app
