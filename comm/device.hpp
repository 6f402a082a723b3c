// shwa/comm/device.hpp — one rank per GPU: which GPU a rank takes, and whether MPI takes device
// pointers.
#pragma once

#include "compat.hpp"

#include <mpi.h>

namespace shwa::comm {

/// This rank's place among the ranks of its node (MPI_Comm_split_type, MPI_COMM_TYPE_SHARED).
struct NodeRank {
  int local_rank = 0, local_size = 1;
};
NodeRank node_rank(MPI_Comm comm);

/// The GPU this rank should use: its node-local rank modulo the GPUs it can see; -1 when Kokkos was
/// built without a GPU backend (CUDA or HIP: nothing to choose). Collective over comm. Throws
/// ConfigError when a GPU backend sees no GPU.
int select_device(MPI_Comm comm);

/// Options for Kokkos::initialize (kokkos_settings) with this rank's GPU (select_device). Call
/// after MPI_Init, before Kokkos::initialize; collective over comm.
KokkosOptions kokkos_options(MPI_Comm comm);

/// True when the MPI library says, at run time, that it accepts CUDA device pointers
/// (MPIX_Query_cuda_support where <mpi-ext.h> provides it; false where it cannot tell).
bool mpi_cuda_aware();

}  // namespace shwa::comm
