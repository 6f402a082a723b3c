// shwa/comm/cart.cpp — the Cartesian decomposition, its checks, and the gather and scatter of owned blocks.
#include "cart.hpp"

#include "mpi_check.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <utility>

namespace shwa::comm {

namespace {

std::string by(int a, int b) { return std::to_string(a) + " x " + std::to_string(b); }

Grid block_of(const Grid& global, Dims dims, int cx, int cy) {
  Grid g = global;
  const Span sx = split_evenly(global.nx_global, dims.px, cx);
  const Span sy = split_evenly(global.ny_global, dims.py, cy);
  g.nx = sx.size;
  g.ny = sy.size;
  g.ioff = sx.offset;
  g.joff = sy.offset;
  g.physical = {cx == 0, cx == dims.px - 1, cy == 0, cy == dims.py - 1};
  return g;
}

}  // namespace

Span split_evenly(int n, int p, int c) {
  const int base = n / p, extra = n % p;
  return Span{c * base + std::min(c, extra), base + (c < extra ? 1 : 0)};
}

Dims choose_dims(int nranks, const Grid& g, Decomposition d) {
  auto fail = [](const std::string& m) { throw ConfigError(m); };
  if (g.nx < 1 || g.ny < 1)
    fail("the grid needs at least one cell each way, got " + by(g.nx, g.ny));
  if (g.ng < 1) fail("the halo width k must be at least 1, got " + std::to_string(g.ng));
  if (d.px < 0 || d.py < 0) fail("decomposition " + by(d.px, d.py) + ": negative block count");
  if (d.px > 0 && d.py > 0 && d.px * d.py != nranks)
    fail("decomposition " + by(d.px, d.py) + " needs " + std::to_string(d.px * d.py) +
         " ranks, the run has " + std::to_string(nranks));
  if (d.px > 0 && nranks % d.px != 0)
    fail(std::to_string(d.px) + " blocks along x cannot divide " + std::to_string(nranks) +
         " ranks");
  if (d.py > 0 && nranks % d.py != 0)
    fail(std::to_string(d.py) + " blocks along y cannot divide " + std::to_string(nranks) +
         " ranks");

  // Every factorisation px x py = nranks that the request allows, keeping those whose blocks are
  // valid: the thinnest block (split_evenly makes the last ones the smallest) must hold k cells
  // along each split axis, since a neighbour's halo is cut from one block only. Of those, the one
  // with the least surface between blocks (the cells a halo exchange sends, per layer) wins; a tie
  // goes to more blocks along y (whole rows: contiguous bands, the paper's strips).
  const auto thin_axis = [&](Dims c, int& w) -> const char* {
    if (c.px > 1 && g.nx / c.px < g.ng) return w = g.nx / c.px, "x";
    if (c.py > 1 && g.ny / c.py < g.ng) return w = g.ny / c.py, "y";
    return nullptr;
  };
  const auto surface = [&](Dims c) {
    return std::int64_t(c.px - 1) * g.ny + std::int64_t(c.py - 1) * g.nx;
  };
  Dims best{0, 0};
  Dims first_tried{0, 0};
  for (int px = 1; px <= nranks; ++px) {
    if (nranks % px != 0) continue;
    const Dims c{px, nranks / px};
    if ((d.px > 0 && c.px != d.px) || (d.py > 0 && c.py != d.py)) continue;
    if (first_tried.px == 0) first_tried = c;
    int w = 0;
    if (thin_axis(c, w)) continue;
    if (best.px == 0 || surface(c) < surface(best) || (surface(c) == surface(best) && c.py > best.py))
      best = c;
  }
  if (best.px != 0) return best;
  // No valid choice: a request that fixes the blocks names them; automatic names the grid.
  if (d.px > 0 || d.py > 0) {
    int w = 0;
    const char* axis = thin_axis(first_tried, w);
    fail("blocks of the " + by(g.nx, g.ny) + " grid split " + by(first_tried.px, first_tried.py) +
         " are " + std::to_string(w) + " cell(s) thin along " + axis +
         ", fewer than the halo width k = " + std::to_string(g.ng));
  }
  fail("no split of the " + by(g.nx, g.ny) + " grid into " + std::to_string(nranks) +
       " blocks gives every block at least the halo width k = " + std::to_string(g.ng) +
       " cell(s) along each split axis; run fewer ranks or a smaller halo width");
  return best;
}

CartDecomposition::CartDecomposition(MPI_Comm parent, const Grid& global, Decomposition d)
    : global_(global) {
  global_.nx_global = global.nx;
  global_.ny_global = global.ny;
  global_.ioff = global_.joff = 0;
  global_.physical = {true, true, true, true};
  SHWA_MPI_CHECK(MPI_Comm_size(parent, &size_));

  // Ranks given different inputs would take different paths below and wait for each other forever:
  // compare them first, in the one collective every rank reaches. MIN over (v, -v) gives the
  // minimum and minus the maximum of each input at once.
  const int inputs[5] = {global.nx, global.ny, global.ng, d.px, d.py};
  int local[10], reduced[10];
  for (int k = 0; k < 5; ++k) local[k] = inputs[k], local[5 + k] = -inputs[k];
  SHWA_MPI_CHECK(MPI_Allreduce(local, reduced, 10, MPI_INT, MPI_MIN, parent));
  for (int k = 0; k < 5; ++k)
    if (reduced[k] != -reduced[5 + k])
      throw ConfigError("the ranks were given different grid sizes, halo widths or decompositions");

  dims_ = choose_dims(size_, global_, d);
  const int dims[2] = {dims_.py, dims_.px}, periods[2] = {0, 0};
  SHWA_MPI_CHECK(MPI_Cart_create(parent, 2, dims, periods, /*reorder=*/0, &comm_));
  SHWA_MPI_CHECK(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN));
  SHWA_MPI_CHECK(MPI_Comm_rank(comm_, &rank_));
  int coords[2];
  SHWA_MPI_CHECK(MPI_Cart_coords(comm_, rank_, 2, coords));
  cy_ = coords[0];
  cx_ = coords[1];
  grid_ = block_of(global_, dims_, cx_, cy_);
  for (int dj = -1; dj <= 1; ++dj)
    for (int di = -1; di <= 1; ++di) {
      const int x = cx_ + di, y = cy_ + dj;
      int& r = neighbors_[(dj + 1) * 3 + (di + 1)];
      r = MPI_PROC_NULL;
      if (x >= 0 && x < dims_.px && y >= 0 && y < dims_.py) {
        const int c[2] = {y, x};
        SHWA_MPI_CHECK(MPI_Cart_rank(comm_, c, &r));
      }
    }
}

CartDecomposition::~CartDecomposition() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (comm_ != MPI_COMM_NULL && !finalized) MPI_Comm_free(&comm_);
}

Grid CartDecomposition::grid_of(int rank) const {
  int coords[2];
  SHWA_MPI_CHECK(MPI_Cart_coords(comm_, rank, 2, coords));
  return block_of(global_, dims_, coords[1], coords[0]);
}

void report_on_root(MPI_Comm comm, const std::string& message) {
  int rank = 0;
  SHWA_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  if (rank != 0) return;
  std::fprintf(stderr, "shwa: error: %s\n", message.c_str());
  std::fflush(stderr);
}

namespace {
/// The whole grid's cells, checked to fit the int counts of MPI_Gatherv and MPI_Scatterv.
std::size_t global_cells(const Grid& g, const char* what) {
  const std::int64_t total = std::int64_t(g.nx_global) * g.ny_global;
  if (total > INT_MAX) throw std::invalid_argument(std::string(what) + ": grid too large for MPI");
  return std::size_t(total);
}

/// Each rank's owned cells and where they start in the root's packed buffer (rank order).
void counts_and_displacements(const CartDecomposition& cart, std::vector<int>& counts, std::vector<int>& displs) {
  counts.resize(size_t(cart.size()));
  displs.resize(size_t(cart.size()));
  int at = 0;
  for (int r = 0; r < cart.size(); ++r) {
    counts[size_t(r)] = int(cart.grid_of(r).owned_cells());
    displs[size_t(r)] = at;
    at += counts[size_t(r)];
  }
}
}  // namespace

std::vector<double> gather_to_root(const CartDecomposition& cart, const std::vector<double>& owned) {
  const std::size_t total = global_cells(cart.grid(), "gather_to_root");
  std::vector<double> out(cart.rank() == 0 ? total : 0);
  gather_to_root(cart, owned.data(), owned.size(), out.data());
  return out;
}

void gather_to_root(const CartDecomposition& cart, const double* owned, std::size_t n, double* whole) {
  const Grid& g = cart.grid();
  if (n != size_t(g.owned_cells()))
    throw std::invalid_argument("gather_to_root: " + std::to_string(n) + " values for a block of " +
                                std::to_string(g.owned_cells()) + " cells");
  const std::size_t total = global_cells(g, "gather_to_root");
  const bool root = cart.rank() == 0;
  std::vector<int> counts, displs;
  // Filled whole by MPI_Gatherv: left unset, not zeroed first on this thread.
  std::unique_ptr<double[]> packed;
  if (root) {
    counts_and_displacements(cart, counts, displs);
    packed.reset(new double[total]);
  }
  SHWA_MPI_CHECK(MPI_Gatherv(owned, int(n), MPI_DOUBLE, packed.get(), counts.data(), displs.data(), MPI_DOUBLE, 0,
                             cart.comm()));
  if (!root) return;
  for (int r = 0; r < cart.size(); ++r) {
    const Grid b = cart.grid_of(r);
    const double* src = packed.get() + displs[size_t(r)];
    for (int j = 0; j < b.ny; ++j)
      std::copy(src + size_t(j) * b.nx, src + size_t(j + 1) * b.nx, whole + (std::int64_t(b.joff + j) * g.nx_global + b.ioff));
  }
}

std::vector<double> scatter_from_root(const CartDecomposition& cart, const std::vector<double>& global) {
  const Grid& g = cart.grid();
  if (cart.rank() == 0 && global.size() != global_cells(g, "scatter_from_root"))
    throw std::invalid_argument("scatter_from_root: the global array has the wrong size");
  return scatter_from_root(cart, global.data());
}

std::vector<double> scatter_from_root(const CartDecomposition& cart, const double* global) {
  const Grid& g = cart.grid();
  const std::size_t total = global_cells(g, "scatter_from_root");  // on every rank: all throw alike
  const bool root = cart.rank() == 0;
  std::vector<int> counts, displs;
  std::unique_ptr<double[]> packed;  // every value written below: left unset, not zeroed first
  if (root) {
    counts_and_displacements(cart, counts, displs);
    packed.reset(new double[total]);
    for (int r = 0; r < cart.size(); ++r) {
      const Grid b = cart.grid_of(r);
      double* to = packed.get() + displs[size_t(r)];
      for (int j = 0; j < b.ny; ++j) {
        const double* row = global + (std::int64_t(b.joff + j) * g.nx_global + b.ioff);
        std::copy(row, row + b.nx, to + size_t(j) * b.nx);
      }
    }
  }
  std::vector<double> owned(size_t(g.owned_cells()));
  SHWA_MPI_CHECK(MPI_Scatterv(packed.get(), counts.data(), displs.data(), MPI_DOUBLE, owned.data(), int(owned.size()),
                              MPI_DOUBLE, 0, cart.comm()));
  return owned;
}

}  // namespace shwa::comm
