// The Catch2 main of every shwa test executable: Kokkos (and, where built with it, MPI) live for the
// whole run.
#define CATCH_CONFIG_RUNNER
#include <Kokkos_Core.hpp>
#include <catch2/catch.hpp>

#ifdef SHWA_TEST_WITH_MPI
#include "device.hpp"
#include "world.hpp"
#endif

int main(int argc, char* argv[]) {
#ifdef SHWA_TEST_WITH_MPI
  const shwa::comm::Session mpi(argc, argv);
#endif
  int result = 0;
  {
#ifdef SHWA_TEST_WITH_MPI
    // One GPU per rank, as in a run (comm/device.hpp); host builds: the Kokkos defaults.
    Kokkos::ScopeGuard kokkos(shwa::kokkos_settings(shwa::comm::kokkos_options(MPI_COMM_WORLD)));
#else
    Kokkos::ScopeGuard kokkos(argc, argv);
#endif
    result = Catch::Session().run(argc, argv);
  }
  return result;
}
