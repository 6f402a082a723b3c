// Helpers of the MPI tests. Every rank runs every test case; an assertion that fails on one rank
// must not send it down another path than the others (it would wait forever in a collective), so
// these tests use CHECK, never REQUIRE, once ranks may disagree.
#pragma once

#include "cart.hpp"
#include "device.hpp"
#include "mpi_exchanger.hpp"

#include <catch2/catch.hpp>
#include <mpi.h>

#include <string>
#include <vector>

namespace shwa::test {

inline int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

inline int world_size() {
  int n = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

/// Sum of a count over all ranks (every rank gets it).
inline long sum_over_ranks(long local) {
  long all = 0;
  MPI_Allreduce(&local, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  return all;
}

/// A decomposition with a name for messages.
struct NamedDecomposition {
  std::string name;
  comm::Decomposition d;
};

/// Automatic (2D blocks at 4 ranks), strips 1 x P, columns P x 1.
inline std::vector<NamedDecomposition> decompositions() {
  const int np = world_size();
  return {{"automatic", comm::Decomposition::automatic()},
          {"strips 1 x P", comm::Decomposition::strips()},
          {"columns P x 1", comm::Decomposition::forced(np, 1)}};
}

/// Direct transport hands MPI device pointers: only where the fields live in host memory or the MPI
/// library is CUDA-aware (the GPU machine's OpenMPI is not; passing it device memory crashes).
/// Elsewhere the direct path is reported untested, and Staged stands in for it.
inline bool direct_transport_usable() {
  using E = DefaultExec;
  const bool ok = Kokkos::SpaceAccessibility<Kokkos::HostSpace, E::memory_space>::accessible ||
                  comm::mpi_cuda_aware();
  static bool warned = false;
  if (!ok && !warned && world_rank() == 0) {
    WARN("MPI is not CUDA-aware here: the direct transport of device buffers is NOT tested");
    warned = true;
  }
  return ok;
}

}  // namespace shwa::test
