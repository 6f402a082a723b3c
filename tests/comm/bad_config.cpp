// A run's start-up as the application does it, for the bad-configuration tests:
//   comm_bad_config NX NY K PX PY [--skew]
// builds the decomposition of an NX x NY grid with halo width K into PX x PY blocks (0: free).
// --skew gives every rank a different NX. On a ConfigError rank 0 prints the message, every rank
// finalizes MPI and exits with status 2; on success rank 0 prints "ok" and every rank exits 0.
#include "cart.hpp"

#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

int main(int argc, char* argv[]) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc < 6) {
    if (rank == 0) std::fprintf(stderr, "usage: %s NX NY K PX PY [--skew]\n", argv[0]);
    MPI_Finalize();
    return 1;
  }
  const bool skew = argc > 6 && std::strcmp(argv[6], "--skew") == 0;
  const int nx = std::atoi(argv[1]) + (skew ? rank : 0), ny = std::atoi(argv[2]);
  const int k = std::atoi(argv[3]), px = std::atoi(argv[4]), py = std::atoi(argv[5]);
  int status = 0;
  try {
    shwa::comm::CartDecomposition cart(MPI_COMM_WORLD, shwa::Grid::single(nx, ny, 1, 1, 0, 0, k),
                                       shwa::comm::Decomposition{px, py});
    if (rank == 0) std::printf("ok: %d x %d blocks\n", cart.px(), cart.py());
  } catch (const shwa::comm::ConfigError& e) {
    shwa::comm::report_on_root(MPI_COMM_WORLD, e.what());
    status = 2;
  }
  MPI_Finalize();
  return status;
}
