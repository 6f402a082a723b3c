// shwa/app/parallel.hpp — the app's side of an MPI run (built only with SHWA_WITH_MPI): the
// agreement on errors that keeps every rank on the same path (one error printed by rank 0, every
// rank exits with the same code, none waits), and the collective calls of the whole grid through
// the root. mpi_collective.hpp joins them into the Collective of a run.
#pragma once

#include <mpi.h>

#include <exception>
#include <string>
#include <vector>

namespace shwa::comm {
class CartDecomposition;
}  // namespace shwa::comm

namespace shwa::app {

/// When any rank of comm passes an exception, every rank throws the lowest failing rank's error
/// (its class: BlowUp, io::OutputError, else io::InputError; its message, prefixed "rank R: "
/// when R is not 0). Collective over comm.
void agree_on_error(MPI_Comm comm, std::exception_ptr e);

/// Runs f on every rank of comm; an exception on any rank is thrown on all.
template <class F>
void collectively(MPI_Comm comm, F&& f) {
  std::exception_ptr e;
  try {
    f();
  } catch (...) {
    e = std::current_exception();
  }
  agree_on_error(comm, e);
}

/// The owned cells of every block, row-major, cut from the root's global array (root) and sent.
std::vector<double> scatter_from_root(const comm::CartDecomposition& cart, const std::vector<double>& global);
void broadcast_from_root(MPI_Comm comm, std::vector<double>& v);
double max_over(MPI_Comm comm, double x);
void sum_over(MPI_Comm comm, std::vector<double>& v);

}  // namespace shwa::app
