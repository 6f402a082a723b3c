// shwa/core/quiet.hpp — dry land that cannot change this step, so that the kernels skip it
// (docs/kernels.md, "Skipping dry land").
//
// An edge between two dry cells carries nothing and has no wave speed (core/roe.hpp), and the update
// of a dry cell with no flux leaves it as it is, once an update has applied the dry rule to it (its
// discharges are then zero, its depth is not below zero). So a tile whose cells and four
// neighbours are all dry, and were all left as they were by the update that produced them, would
// be written with W^{n+1} = W^n: the second set of Views already holds W^{n-1}, which is the same
// bits. The kernels then skip the tile, writing nothing, and the CFL pass skips it too (its cells'
// Z_i are 0). The fields are bit for bit those of computing everything (tested).
//
// The block's storage is cut into squares of kCells x kCells cells. last(square) is the greatest
// step count e at which one of its cells was active in W^e: wet (h >= eps_h), or not the same bits
// as in W^{e-1}. A square with last < epoch (the count of the current state W^epoch) is quiet. The
// update that produces W^{epoch+1} raises the squares of its active cells to epoch + 1 (a tile's
// whole rows or columns may be marked: more active squares are always safe). A skipped tile marks
// nothing: its cells stay as they were. Tiles whose ring of neighbours leaves `inner` (the owned
// cells: ghost layers are rewritten by the boundaries and the halo exchange) are never skipped
// whole. A host tile skips part of itself where that part's cells are quiet with quiet neighbours
// and away from the edge of `inner` (active_part).
#pragma once

#include "types.hpp"

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

namespace shwa {

template <class E>
struct QuietMap {
  static constexpr int kCells = 8;
  using Last = Kokkos::View<int**, Kokkos::LayoutRight, typename E::memory_space>;

  Last last;
  int epoch = 0;  // the step count of the current state, for this map (not the solver's steps())
  Box inner;      // skipping needs a tile and its ring inside these cells
  bool on = false;

  QuietMap() = default;
  /// A map over ny_padded x nx_padded cells of storage.
  QuietMap(const std::string& name, int ny_padded, int nx_padded, const Box& owned, bool enabled)
      : last(name, (ny_padded + kCells - 1) / kCells, (nx_padded + kCells - 1) / kCells),
        inner(owned),
        on(enabled) {
    reset();
  }

  /// Every square active in this state and the next one: the next two updates compute everything,
  /// so both sets of Views hold states that an update has produced (the state was set from
  /// outside: initial condition, restart).
  void reset() {
    if (last.extent(0) > 0) Kokkos::deep_copy(last, epoch + 1);
  }
  /// After each step.
  void advance() { ++epoch; }

  /// Whether the ring of cells around [i0, i1) x [j0, j1) lies inside `inner` (and skipping is on).
  KOKKOS_INLINE_FUNCTION bool may_skip(int i0, int i1, int j0, int j1) const {
    return on && i0 - 1 >= inner.i0 && i1 + 1 <= inner.i1 && j0 - 1 >= inner.j0 && j1 + 1 <= inner.j1;
  }
  /// Whether the squares of column c from row j0 to row j1 (inclusive) are all quiet.
  KOKKOS_INLINE_FUNCTION bool quiet_column(int c, int j0, int j1) const {
    const int ib = c / kCells;
    for (int jb = j0 / kCells; jb <= j1 / kCells; ++jb)
      if (last(jb, ib) >= epoch) return false;
    return true;
  }
  /// Shrinks the cells [i0, i1) x [j0, j1) to the part of them a host tile computes: the bounding
  /// box of the cells that lie in an active square or next to one (the square grown by a cell each
  /// way), and of those outside `inner` or next to its edge. Every other cell is quiet with quiet
  /// neighbours, as every cell of a tile team_quiet skips is, so a wide tile skips dry land as
  /// finely as the squares do. Returns false where no cell is left; leaves the cells as they are
  /// where skipping is off.
  KOKKOS_INLINE_FUNCTION bool active_part(int& i0, int& i1, int& j0, int& j1) const {
    if (!on) return true;
    int a0 = i1, a1 = i0, b0 = j1, b1 = j0;  // the box so far: empty
    auto add = [&](int x0, int x1, int y0, int y1) {
      a0 = x0 < a0 ? x0 : a0;
      a1 = x1 > a1 ? x1 : a1;
      b0 = y0 < b0 ? y0 : b0;
      b1 = y1 > b1 ? y1 : b1;
    };
    if (i0 - 1 < inner.i0) add(i0, inner.i0 + 1, j0, j1);
    if (i1 + 1 > inner.i1) add(inner.i1 - 1, i1, j0, j1);
    if (j0 - 1 < inner.j0) add(i0, i1, j0, inner.j0 + 1);
    if (j1 + 1 > inner.j1) add(i0, i1, inner.j1 - 1, j1);
    const int ib0 = (i0 > 0 ? i0 - 1 : 0) / kCells, jb0 = (j0 > 0 ? j0 - 1 : 0) / kCells;
    const int ib1 = i1 / kCells < int(last.extent(1)) ? i1 / kCells : int(last.extent(1)) - 1;
    const int jb1 = j1 / kCells < int(last.extent(0)) ? j1 / kCells : int(last.extent(0)) - 1;
    // The squares of two opposite corners, grown, already span the cells: a wet tile's answer in
    // two loads.
    if (last(jb0, ib0) >= epoch && last(jb1, ib1) >= epoch) return true;
    for (int jb = jb0; jb <= jb1; ++jb)
      for (int ib = ib0; ib <= ib1; ++ib)
        if (last(jb, ib) >= epoch)
          add(ib * kCells - 1, (ib + 1) * kCells + 1, jb * kCells - 1, (jb + 1) * kCells + 1);
    a0 = a0 > i0 ? a0 : i0;
    a1 = a1 < i1 ? a1 : i1;
    b0 = b0 > j0 ? b0 : j0;
    b1 = b1 < j1 ? b1 : j1;
    if (a0 >= a1 || b0 >= b1) return false;
    i0 = a0, i1 = a1, j0 = b0, j1 = b1;
    return true;
  }
  /// Marks the squares of the cells [i0, i1) x [j0, j1) active in the next state. During a step
  /// every writer writes the same value, epoch + 1, over older ones, so that on a device plain
  /// stores do (atomics, one a square and team, are a measurable part of a wet step); host
  /// threads, which mark a few squares a tile, use an atomic maximum.
  KOKKOS_INLINE_FUNCTION void mark(int i0, int i1, int j0, int j1) const {
    for (int jb = j0 / kCells; jb <= (j1 - 1) / kCells; ++jb)
      for (int ib = i0 / kCells; ib <= (i1 - 1) / kCells; ++ib) {
        if constexpr (is_host_space<E>())
          Kokkos::atomic_fetch_max(&last(jb, ib), epoch + 1);
        else
          last(jb, ib) = epoch + 1;
      }
  }
};

/// Whether a device team may skip the cells [i0, i1) x [j0, j1): they and their four neighbours
/// are quiet. The team's threads share the columns; every thread gets the same answer. (Host
/// tiles, one thread each, skip by their parts: QuietMap::active_part.)
template <class Member, class E>
KOKKOS_INLINE_FUNCTION bool team_quiet(const Member& m, const QuietMap<E>& q, int i0, int i1, int j0,
                                       int j1) {
  if (!q.may_skip(i0, i1, j0, j1)) return false;
  int active = 0;
  Kokkos::parallel_reduce(
      Kokkos::TeamThreadRange(m, i1 - i0 + 2),
      [&](const int l, int& a) {
        if (!q.quiet_column(i0 - 1 + l, j0 - 1, j1)) a = 1;
      },
      Kokkos::Max<int>(active));
  return active <= 0;  // (Max starts from the lowest int)
}

/// Whether W^{n+1} of a cell is active: wet, or not the same bits as W^n (NaN included).
KOKKOS_FORCEINLINE_FUNCTION bool same_bits(Real a, Real b) {
  using Bits = std::conditional_t<sizeof(Real) == 8, std::uint64_t, std::uint32_t>;
  Bits x, y;
  std::memcpy(&x, &a, sizeof x);
  std::memcpy(&y, &b, sizeof y);
  return x == y;
}

KOKKOS_FORCEINLINE_FUNCTION bool active_cell(Real h, Real qx, Real qy, Real hc, Real h0, Real qx0,
                                             Real qy0, Real hc0, Real eps_h) {
  return !(h < eps_h) | !same_bits(h, h0) | !same_bits(qx, qx0) | !same_bits(qy, qy0) |
         !same_bits(hc, hc0);
}

/// active_cell where a branch is cheaper than the comparisons (a device thread): a wet cell is
/// active without them.
KOKKOS_FORCEINLINE_FUNCTION bool active_cell_branch(Real h, Real qx, Real qy, Real hc, Real h0, Real qx0,
                                                    Real qy0, Real hc0, Real eps_h) {
  if (!(h < eps_h)) return true;
  return !same_bits(h, h0) | !same_bits(qx, qx0) | !same_bits(qy, qy0) | !same_bits(hc, hc0);
}

}  // namespace shwa
