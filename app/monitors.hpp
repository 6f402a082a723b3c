// shwa/app/monitors.hpp — the app's own small device kernels, run between the solver's steps:
// the maxima maps, the health check that detects a blow-up, and the gauge samples.
//
// They live in app/ because they watch a run rather than advance it; core/ stays the solver.
// Free function templates (no member lambdas) so that nvcc accepts the KOKKOS_LAMBDAs.
#pragma once

#include "fields.hpp"
#include "grid.hpp"
#include "types.hpp"

#include <cstdint>
#include <vector>

namespace shwa::app {

/// Per-cell maxima of a run over the block's owned cells, (ny, nx) without ghosts: the greatest
/// depth, the greatest concentration of a wet cell, and the first time the concentration
/// exceeded the arrival threshold (-1: not yet).
template <class E>
struct Maxima {
  Field<E> hmax, cmax, arrival;

  explicit Maxima(const Grid& g)
      : hmax("hmax", g.ny, g.nx), cmax("cmax", g.ny, g.nx), arrival("arrival", g.ny, g.nx) {
    Kokkos::deep_copy(arrival, Real(-1));
  }
};

/// A non-finite value or a negative depth in an owned cell.
KOKKOS_INLINE_FUNCTION bool unhealthy(Real h, Real qx, Real qy, Real hc) {
  // x - x == 0 is false exactly for NaN and infinities, and works under fast-math flags.
  return !(h - h == Real(0) && qx - qx == Real(0) && qy - qy == Real(0) && hc - hc == Real(0)) ||
         h < Real(0);
}

/// Folds the state at time t into the maxima and returns the number of unhealthy cells (the
/// same pass checks the state's health, so a run with maxima needs no separate check).
template <class E>
std::int64_t update_maxima(const Conserved<E>& w, const Grid& g, const Maxima<E>& m, double t, Real eps_h,
                           Real threshold) {
  const int ng = g.ng;
  const Real time = Real(t);
  const auto h = w.h, qx = w.qx, qy = w.qy, hc = w.hc;
  const auto hmax = m.hmax, cmax = m.cmax, arrival = m.arrival;
  std::int64_t bad = 0;
  Kokkos::parallel_reduce(
      "shwa::app::update_maxima", Kokkos::MDRangePolicy<E, Kokkos::Rank<2>>({0, 0}, {g.ny, g.nx}),
      KOKKOS_LAMBDA(int j, int i, std::int64_t& nbad) {
        const Real d = h(j + ng, i + ng), s = hc(j + ng, i + ng);
        if (unhealthy(d, qx(j + ng, i + ng), qy(j + ng, i + ng), s)) ++nbad;
        if (d > hmax(j, i)) hmax(j, i) = d;
        const Real c = d >= eps_h ? s / d : Real(0);
        if (c > cmax(j, i)) cmax(j, i) = c;
        if (arrival(j, i) < Real(0) && c > threshold) arrival(j, i) = time;
      },
      bad);
  return bad;
}

/// The number of unhealthy owned cells.
template <class E>
std::int64_t count_unhealthy(const Conserved<E>& w, const Grid& g) {
  const int ng = g.ng;
  const auto h = w.h, qx = w.qx, qy = w.qy, hc = w.hc;
  std::int64_t bad = 0;
  Kokkos::parallel_reduce(
      "shwa::app::count_unhealthy", Kokkos::MDRangePolicy<E, Kokkos::Rank<2>>({0, 0}, {g.ny, g.nx}),
      KOKKOS_LAMBDA(int j, int i, std::int64_t& nbad) {
        if (unhealthy(h(j + ng, i + ng), qx(j + ng, i + ng), qy(j + ng, i + ng), hc(j + ng, i + ng))) ++nbad;
      },
      bad);
  return bad;
}

/// The first unhealthy owned cell in row-major order, as j * nx + i, or -1.
template <class E>
std::int64_t first_unhealthy(const Conserved<E>& w, const Grid& g) {
  const int ng = g.ng, nx = g.nx;
  const auto h = w.h, qx = w.qx, qy = w.qy, hc = w.hc;
  std::int64_t first = 0;
  Kokkos::parallel_reduce(
      "shwa::app::first_unhealthy", Kokkos::MDRangePolicy<E, Kokkos::Rank<2>>({0, 0}, {g.ny, g.nx}),
      KOKKOS_LAMBDA(int j, int i, std::int64_t& k) {
        if (unhealthy(h(j + ng, i + ng), qx(j + ng, i + ng), qy(j + ng, i + ng), hc(j + ng, i + ng))) {
          const std::int64_t here = std::int64_t(j) * nx + i;
          if (here < k) k = here;
        }
      },
      Kokkos::Min<std::int64_t>(first));
  return first == Kokkos::reduction_identity<std::int64_t>::min() ? -1 : first;
}

/// Samples (h, qx, qy, hc) of a few owned cells: cells[2k], cells[2k+1] = (i, j) of sample k
/// in owned indices; returns 4 values a cell.
template <class E>
class CellSampler {
 public:
  CellSampler() = default;
  CellSampler(const Grid& g, const std::vector<int>& cells)
      : ng_(g.ng), n_(int(cells.size() / 2)), cells_("sample_cells", cells.size()), values_("sample_values", 4 * n_) {
    auto host = Kokkos::create_mirror_view(cells_);
    for (std::size_t k = 0; k < cells.size(); ++k) host(k) = cells[k];
    Kokkos::deep_copy(cells_, host);
  }

  std::vector<double> sample(const Conserved<E>& w) const {
    std::vector<double> out(4 * std::size_t(n_));
    if (n_ == 0) return out;
    gather(w, cells_, values_, ng_, n_);
    auto host = Kokkos::create_mirror_view(values_);
    Kokkos::deep_copy(host, values_);
    for (std::size_t k = 0; k < out.size(); ++k) out[k] = double(host(k));
    return out;
  }

  static void gather(const Conserved<E>& w, const Kokkos::View<int*, typename E::memory_space>& cells,
                     const Kokkos::View<Real*, typename E::memory_space>& values, int ng, int n) {
    Kokkos::parallel_for(
        "shwa::app::sample_cells", Kokkos::RangePolicy<E>(0, n), KOKKOS_LAMBDA(int k) {
          const int i = cells(2 * k) + ng, j = cells(2 * k + 1) + ng;
          values(4 * k) = w.h(j, i);
          values(4 * k + 1) = w.qx(j, i);
          values(4 * k + 2) = w.qy(j, i);
          values(4 * k + 3) = w.hc(j, i);
        });
  }

 private:
  int ng_ = 1, n_ = 0;
  Kokkos::View<int*, typename E::memory_space> cells_;
  Kokkos::View<Real*, typename E::memory_space> values_;
};

}  // namespace shwa::app
