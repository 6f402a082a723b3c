// shwa/core/grid.hpp — the geometry of one block of the Cartesian grid and its index spaces.
#pragma once

#include "domain.hpp"
#include "types.hpp"

#include <algorithm>
#include <array>

namespace shwa {

/// One rectangular block of a global nx_global x ny_global grid (the whole grid on one rank).
/// Storage indices are padded by `ng` ghost layers: owned cells are [ng, ng+nx) x [ng, ng+ny).
struct Grid {
  int nx = 0, ny = 0;                // owned cells of this block
  int ng = 1;                        // ghost layers on each side (the halo width k)
  double dx = 1, dy = 1;             // cell size [m]
  double x0 = 0, y0 = 0;             // lower-left corner of the global domain [m]
  int nx_global = 0, ny_global = 0;  // cells of the whole domain
  int ioff = 0, joff = 0;            // global index of this block's first owned cell
  /// Side lies on the domain boundary (true) or faces another block (false).
  std::array<bool, kNumSides> physical{true, true, true, true};

  /// The whole domain as one block.
  static Grid single(int nx, int ny, double dx, double dy, double x0 = 0, double y0 = 0,
                     int ng = 1) {
    Grid g;
    g.nx = g.nx_global = nx;
    g.ny = g.ny_global = ny;
    g.dx = dx;
    g.dy = dy;
    g.x0 = x0;
    g.y0 = y0;
    g.ng = ng;
    return g;
  }

  /// The whole domain as one block, with ng ghost layers.
  static Grid single(const Domain& d, int ng = 1) { return single(d.nx, d.ny, d.dx, d.dy, d.x0, d.y0, ng); }

  /// The whole grid this block is part of.
  Domain domain() const { return Domain{nx_global, ny_global, dx, dy, x0, y0}; }
  /// This block's owned cells in the domain's (global) indices.
  Extent extent() const { return Extent{ioff, ioff + nx, joff, joff + ny}; }

  int nx_padded() const { return nx + 2 * ng; }
  int ny_padded() const { return ny + 2 * ng; }
  Box owned() const { return Box{ng, ng + nx, ng, ng + ny}; }
  Box padded() const { return Box{0, nx + 2 * ng, 0, ny + 2 * ng}; }
  /// Owned cells grown by d on the sides that face another block (physical sides stay put).
  Box grown_inner(int d) const {
    Box b = owned();
    if (!physical[West]) b.i0 -= d;
    if (!physical[East]) b.i1 += d;
    if (!physical[South]) b.j0 -= d;
    if (!physical[North]) b.j1 += d;
    return b;
  }
  /// Owned cells split for overlap: `interior` lies at least k cells from every side that faces
  /// another block (its update needs no halo and is not sent); `band` (up to 4 boxes, some empty)
  /// is the rest of the owned cells.
  void split_for_overlap(int k, Box& interior, Box band[4]) const {
    const Box o = owned();
    const int kw = physical[West] ? 0 : k, ke = physical[East] ? 0 : k;
    const int ks = physical[South] ? 0 : k, kn = physical[North] ? 0 : k;
    const int i0 = std::min(o.i0 + kw, o.i1), i1 = std::max(o.i1 - ke, i0);
    const int j0 = std::min(o.j0 + ks, o.j1), j1 = std::max(o.j1 - kn, j0);
    interior = Box{i0, i1, j0, j1};
    band[0] = Box{o.i0, i0, o.j0, o.j1};
    band[1] = Box{i1, o.i1, o.j0, o.j1};
    band[2] = Box{i0, i1, o.j0, j0};
    band[3] = Box{i0, i1, j1, o.j1};
  }
  /// Cell-centre coordinates of storage index i / j.
  double xc(int i) const { return x0 + (ioff + i - ng + 0.5) * dx; }
  double yc(int j) const { return y0 + (joff + j - ng + 0.5) * dy; }
  std::int64_t owned_cells() const { return std::int64_t(nx) * ny; }
};

}  // namespace shwa
