// shwa/comm/cart.hpp — the Cartesian decomposition of the grid over the ranks (docs/method.md section 7).
//
// px x py blocks, px along x (i), py along y (j); rank r of the decomposition's communicator holds
// block (cx, cy) with r = cy * px + cx (ranks are not reordered, so rank 0 stays rank 0). Each
// dimension is split as evenly as possible, the first (n mod p) blocks one cell larger. Block sides
// on the domain boundary are "physical"; the others face a neighbour block, and keep k ghost layers
// (the halo width) that the MpiExchanger refreshes.
#pragma once

#include "grid.hpp"

#include <mpi.h>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace shwa::comm {

/// A run configuration that cannot work (decomposition, halo width, block size). The same inputs
/// give the same error on every rank: every rank throws it, none is left waiting.
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// How to split the grid over P ranks: blocks along x and y, 0 where choose_dims chooses.
struct Decomposition {
  int px = 0, py = 0;

  /// The factors px x py = P whose blocks are valid for the grid and whose blocks share the least
  /// surface (choose_dims).
  static Decomposition automatic() { return {0, 0}; }
  /// 1 x P strips of whole rows (the paper's decomposition).
  static Decomposition strips() { return {1, 0}; }
  /// Exactly px x py blocks (px * py must equal P).
  static Decomposition forced(int px, int py) { return {px, py}; }
};

/// Cells [offset, offset + size) of block c when n cells are split into p blocks.
struct Span {
  int offset = 0, size = 0;
};
Span split_evenly(int n, int p, int c);

/// Blocks along x and y for P ranks, or a ConfigError. No communication: P, the global grid (its
/// ng is the halo width k) and d decide alone, so every rank reaches the same verdict. Of the
/// factorisations px x py = P that d allows (a nonzero px or py is fixed), those whose thinnest
/// block holds at least k cells along each split axis are valid; the valid one with the least
/// surface between blocks, (px - 1) ny + (py - 1) nx, is chosen, a tie going to more blocks
/// along y. Without a valid one: a ConfigError naming the grid (and the blocks, when d fixed
/// them).
struct Dims {
  int px = 1, py = 1;
};
Dims choose_dims(int nranks, const Grid& global, Decomposition d);

/// The decomposition: owns a Cartesian communicator (MPI_Cart_create, not periodic) whose errors
/// are returned (MPI_ERRORS_RETURN), and this rank's block.
class CartDecomposition {
 public:
  /// `global` describes the whole domain: Grid::single(nx, ny, dx, dy, x0, y0, k). Collective over
  /// `parent`. Throws ConfigError on every rank when the ranks disagree on the inputs or they are
  /// invalid (see choose_dims).
  CartDecomposition(MPI_Comm parent, const Grid& global,
                    Decomposition d = Decomposition::automatic());
  ~CartDecomposition();
  CartDecomposition(const CartDecomposition&) = delete;
  CartDecomposition& operator=(const CartDecomposition&) = delete;

  MPI_Comm comm() const { return comm_; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  int px() const { return dims_.px; }
  int py() const { return dims_.py; }
  int cx() const { return cx_; }
  int cy() const { return cy_; }
  const Grid& global() const { return global_; }
  /// This rank's block (ng = k, ioff/joff, physical flags).
  const Grid& grid() const { return grid_; }
  /// The block of any rank of comm() (no communication).
  Grid grid_of(int rank) const;
  /// Rank of the block at offset (di, dj) in {-1, 0, 1}^2 from this one; MPI_PROC_NULL past the
  /// domain boundary.
  int neighbor(int di, int dj) const { return neighbors_[(dj + 1) * 3 + (di + 1)]; }

 private:
  Grid global_, grid_;
  Dims dims_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1, cx_ = 0, cy_ = 0;
  int neighbors_[9];
};

/// Prints "shwa: error: <message>" on stderr on rank 0 of comm only; every rank may call it (no
/// communication), so an error that all ranks share is reported once.
void report_on_root(MPI_Comm comm, const std::string& message);

/// The owned cells of every block gathered on rank 0 of the decomposition: one global array,
/// row-major (j * nx_global + i, j = 0 the southern row). `owned` is this rank's block, row-major
/// (j * nx + i). Other ranks get an empty vector. Collective.
std::vector<double> gather_to_root(const CartDecomposition& cart, const std::vector<double>& owned);
/// The same into `whole` (nx_global * ny_global values, every one written) on rank 0, from the n
/// values at `owned` (this rank's owned cells); `whole` is not used on other ranks. Collective.
void gather_to_root(const CartDecomposition& cart, const double* owned, std::size_t n, double* whole);

/// This rank's owned cells (row-major, j * nx + i) of the global array that rank 0 of the
/// decomposition holds (row-major, j * nx_global + i; ignored on the other ranks). Collective.
std::vector<double> scatter_from_root(const CartDecomposition& cart, const std::vector<double>& global);
/// The same from the nx_global * ny_global values at `global` on rank 0 (ignored, and may be null,
/// on the other ranks).
std::vector<double> scatter_from_root(const CartDecomposition& cart, const double* global);

}  // namespace shwa::comm
