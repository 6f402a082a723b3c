// shwa/app/parallel.cpp — see parallel.hpp and mpi_collective.hpp.
#include "parallel.hpp"

#include "mpi_collective.hpp"
#include "simulation.hpp"

#include "cart.hpp"
#include "mpi_check.hpp"

#include "io/error.hpp"

#include <algorithm>
#include <cstdint>

namespace shwa::app {

namespace {

enum Kind : int { kNone = 0, kInput = 1, kOutput = 2, kBlowUp = 3 };

}  // namespace

void agree_on_error(MPI_Comm comm, std::exception_ptr e) {
  int rank = 0, size = 1;
  SHWA_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  SHWA_MPI_CHECK(MPI_Comm_size(comm, &size));
  int kind = kNone;
  std::string message;
  if (e) {
    kind = kInput;
    try {
      std::rethrow_exception(e);
    } catch (const BlowUp& x) {
      kind = kBlowUp, message = x.what();
    } catch (const io::OutputError& x) {
      kind = kOutput, message = x.what();
    } catch (const std::exception& x) {
      message = x.what();
    } catch (...) {
      message = "unknown error";
    }
  }
  const int mine = kind != kNone ? rank : size;
  int first = size;
  SHWA_MPI_CHECK(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm));
  if (first == size) return;
  int head[2] = {kind, int(message.size())};
  SHWA_MPI_CHECK(MPI_Bcast(head, 2, MPI_INT, first, comm));
  message.resize(std::size_t(head[1]));
  SHWA_MPI_CHECK(MPI_Bcast(message.data(), head[1], MPI_CHAR, first, comm));
  if (first != 0) message = "rank " + std::to_string(first) + ": " + message;
  if (head[0] == kBlowUp) throw BlowUp(message);
  if (head[0] == kOutput) throw io::OutputError(message);
  throw io::InputError(message);
}

comm::Transport transport_of(const std::string& name) {
  if (name == "direct") return comm::Transport::Direct;
  if (name == "staged") return comm::Transport::Staged;
  return comm::Transport::Auto;
}

std::vector<double> scatter_from_root(const comm::CartDecomposition& cart, const std::vector<double>& global) {
  const Grid& g = cart.grid();
  const bool root = cart.rank() == 0;
  std::vector<int> counts, displs;
  std::vector<double> packed;
  if (root) {
    if (global.size() != std::size_t(std::int64_t(g.nx_global) * g.ny_global))
      throw std::invalid_argument("scatter_from_root: the global array has the wrong size");
    counts.resize(std::size_t(cart.size()));
    displs.resize(std::size_t(cart.size()));
    int at = 0;
    for (int r = 0; r < cart.size(); ++r) {
      const Grid b = cart.grid_of(r);
      counts[std::size_t(r)] = int(b.owned_cells());
      displs[std::size_t(r)] = at;
      at += counts[std::size_t(r)];
      for (int j = 0; j < b.ny; ++j) {
        const auto row = global.begin() + (std::int64_t(b.joff + j) * g.nx_global + b.ioff);
        packed.insert(packed.end(), row, row + b.nx);
      }
    }
  }
  std::vector<double> owned(std::size_t(g.owned_cells()));
  SHWA_MPI_CHECK(MPI_Scatterv(packed.data(), counts.data(), displs.data(), MPI_DOUBLE, owned.data(),
                              int(owned.size()), MPI_DOUBLE, 0, cart.comm()));
  return owned;
}

void broadcast_from_root(MPI_Comm comm, std::vector<double>& v) {
  SHWA_MPI_CHECK(MPI_Bcast(v.data(), int(v.size()), MPI_DOUBLE, 0, comm));
}

double max_over(MPI_Comm comm, double x) {
  double all = x;
  SHWA_MPI_CHECK(MPI_Allreduce(&x, &all, 1, MPI_DOUBLE, MPI_MAX, comm));
  return all;
}

void sum_over(MPI_Comm comm, std::vector<double>& v) {
  if (v.empty()) return;
  SHWA_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, v.data(), int(v.size()), MPI_DOUBLE, MPI_SUM, comm));
}

}  // namespace shwa::app
