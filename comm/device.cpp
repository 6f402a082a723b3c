// shwa/comm/device.cpp — GPU choice from the node-local rank; CUDA-awareness of MPI.
#include "device.hpp"

#include "cart.hpp"
#include "mpi_check.hpp"

#include <string>

#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

namespace shwa::comm {

NodeRank node_rank(MPI_Comm comm) {
  int rank = 0;
  SHWA_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  MPI_Comm node = MPI_COMM_NULL;
  SHWA_MPI_CHECK(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node));
  NodeRank r;
  const int rc1 = MPI_Comm_rank(node, &r.local_rank);
  const int rc2 = MPI_Comm_size(node, &r.local_size);
  MPI_Comm_free(&node);
  SHWA_MPI_CHECK(rc1);
  SHWA_MPI_CHECK(rc2);
  return r;
}

int select_device(MPI_Comm comm) {
  const NodeRank r = node_rank(comm);  // collective in every build
#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
  int count = 0;
#if defined(KOKKOS_ENABLE_CUDA)
  const bool ok = cudaGetDeviceCount(&count) == cudaSuccess;
#else
  const bool ok = hipGetDeviceCount(&count) == hipSuccess;
#endif
  if (!ok || count < 1)
    throw ConfigError("no GPU is visible to rank " + std::to_string(r.local_rank) + " of its node");
  return r.local_rank % count;
#else
  (void)r;
  return -1;
#endif
}

KokkosOptions kokkos_options(MPI_Comm comm) {
  KokkosOptions o;
  o.device = select_device(comm);
  return o;
}

bool mpi_cuda_aware() {
#if defined(MPIX_CUDA_AWARE_SUPPORT)
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

}  // namespace shwa::comm
