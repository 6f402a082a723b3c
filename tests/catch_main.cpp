// The Catch2 main of every shwa test executable: Kokkos (and, where built with it, MPI) live for the
// whole run.
#define CATCH_CONFIG_RUNNER
#include <Kokkos_Core.hpp>
#include <catch2/catch.hpp>

#ifdef SHWA_TEST_WITH_MPI
#include <mpi.h>
#endif

int main(int argc, char* argv[]) {
#ifdef SHWA_TEST_WITH_MPI
  MPI_Init(&argc, &argv);
#endif
  int result = 0;
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    result = Catch::Session().run(argc, argv);
  }
#ifdef SHWA_TEST_WITH_MPI
  MPI_Finalize();
#endif
  return result;
}
