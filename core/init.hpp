// shwa/core/init.hpp — setting a block's fields from the host, and reading them back.
#pragma once

#include "solver.hpp"

#include <array>
#include <atomic>
#include <cmath>
#include <type_traits>
#include <vector>

namespace shwa {

/// What an initial condition gives at a cell centre. Depth h is taken from `h`, or, where eta is
/// set (not NaN), from the free surface: h = max(0, eta + H).
struct CellInit {
  double H = 0;  // bottom depth below the reference level (positive down)
  double h = 0;
  double eta = std::numeric_limits<double>::quiet_NaN();
  double u = 0, v = 0;
  std::array<double, kMaxTracers> c{};  // concentration of each tracer (those the block carries)
  double n = -1;  // Manning's n of the cell; < 0: the solver's constant
};

namespace detail {
/// A host view of v's shape: v itself where it lives in the host mirror's memory, else new host
/// memory left unset (create_mirror_view would zero it, on one thread where the host space is
/// Serial).
template <class V>
HostMirror<V> host_view_unset(const V& v) {
  if constexpr (std::is_same<typename V::memory_space, typename HostMirror<V>::memory_space>::value)
    return Kokkos::create_mirror_view(v);
  else
    return HostMirror<V>(Kokkos::view_alloc(Kokkos::WithoutInitializing, v.label()), v.layout());
}
}  // namespace detail

/// Runs body(j0, j1) on runs of rows [j0, j1) that together cover [0, rows) once, and returns when
/// every run has ended: here one run, on the calling thread. A caller with threads of its own
/// gives initialize another (the app shares the rows over the run's CPUs).
struct OneRowRun {
  template <class Body>
  void operator()(int rows, Body&& body) const {
    body(0, rows);
  }
};

/// Sets the owned cells of the state and the bathymetry from f(x, y, CellInit&) evaluated at cell
/// centres, then fills all ghosts (finalize_setup). Velocities and concentrations of dry cells are
/// stored as zero discharge / zero pollutant. The host side's rows (the padded block's) go through
/// `row_runs` (OneRowRun's interface), which may run them at once: f must then be safe to call
/// from several threads.
template <class E, class F, class RowRuns = OneRowRun>
void initialize(Solver<E>& s, Exchanger<E>& ex, F&& f, const RowRuns& row_runs = {}) {
  const Grid& g = s.grid();
  const auto& w = s.state();
  // Every value is written below: a host mirror is not zeroed first.
  const auto h = detail::host_view_unset(w.h);
  const auto qx = detail::host_view_unset(w.qx);
  const auto qy = detail::host_view_unset(w.qy);
  std::vector<HostMirror<Field<E>>> hc;
  for (int t = 0; t < w.ntracers; ++t) hc.push_back(detail::host_view_unset(w.hc[t]));
  const auto H = detail::host_view_unset(s.bathymetry());
  // Each cell's Manning n (the solver's constant where f gives none), padded; a field only where
  // some cell has its own.
  const Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace> ns(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "shwa::initial_n"), g.ny_padded(), g.nx_padded());
  std::atomic<bool> any_n{false};
  row_runs(g.ny_padded(), [&](int j0, int j1) {
    bool own_n = false;
    for (int j = j0; j < j1; ++j)
      for (int i = 0; i < g.nx_padded(); ++i) {
        ns(j, i) = s.params().manning;
        const bool owned = j >= g.ng && j < g.ng + g.ny && i >= g.ng && i < g.ng + g.nx;
        if (!owned) {
          h(j, i) = qx(j, i) = qy(j, i) = H(j, i) = 0;
          for (auto& c : hc) c(j, i) = 0;
          continue;
        }
        CellInit c;
        f(g.xc(i), g.yc(j), c);
        double depth = std::isnan(c.eta) ? c.h : std::max(0.0, c.eta + c.H);
        if (depth < 0) depth = 0;
        H(j, i) = Real(c.H);
        h(j, i) = Real(depth);
        qx(j, i) = Real(depth * c.u);
        qy(j, i) = Real(depth * c.v);
        for (int t = 0; t < w.ntracers; ++t) hc[t](j, i) = Real(depth * c.c[t]);
        if (c.n >= 0) {
          own_n = true;
          ns(j, i) = c.n;
        }
      }
    if (own_n) any_n.store(true, std::memory_order_relaxed);
  });
  Kokkos::deep_copy(w.h, h);
  Kokkos::deep_copy(w.qx, qx);
  Kokkos::deep_copy(w.qy, qy);
  for (int t = 0; t < w.ntracers; ++t) Kokkos::deep_copy(w.hc[t], hc[t]);
  Kokkos::deep_copy(s.bathymetry(), H);
  if (any_n) {
    const Field<E> nfield("n", g.ny_padded(), g.nx_padded());
    const auto n = detail::host_view_unset(nfield);
    row_runs(g.ny_padded(), [&](int j0, int j1) {
      for (int j = j0; j < j1; ++j)
        for (int i = 0; i < g.nx_padded(); ++i) n(j, i) = Real(ns(j, i));
    });
    Kokkos::deep_copy(nfield, n);
    s.set_manning(nfield);
  }
  s.finalize_setup(ex);
}

/// A block's owned cells as doubles where a field lives, which owned_to_host keeps between calls
/// for a field the host cannot read.
template <class View>
using OwnedStage = Kokkos::View<double**, Kokkos::LayoutRight, typename View::memory_space>;

namespace detail {
/// to(k / nx, k % nx) = from(k / nx + ng, k % nx + ng): the owned cells of a padded field, as
/// doubles, one index a cell so that neighbouring threads take neighbouring cells on any backend.
template <class To, class From>
struct PackOwned {
  To to;
  From from;
  int nx, ng;
  KOKKOS_INLINE_FUNCTION void operator()(const long k) const {
    const int j = int(k / nx), i = int(k % nx);
    to(j, i) = double(from(j + ng, i + ng));
  }
};

/// `stage` (an OwnedStage) with the block's extents: made anew where it has others.
template <class Stage>
Stage& sized_stage(Stage& stage, const Grid& g) {
  if (stage.extent(0) != size_t(g.ny) || stage.extent(1) != size_t(g.nx))
    stage = Stage(Kokkos::view_alloc(Kokkos::WithoutInitializing, "shwa::owned_stage"), g.ny, g.nx);
  return stage;
}
}  // namespace detail

/// The owned cells of a field copied into `out` (resized; its storage reused), row-major (j * nx + i,
/// j = 0 the southern row), by a kernel of the field's execution space: into `out` itself where
/// that space can write host memory, else into `stage` (made, or made again, to the block's
/// extents), which one copy brings into `out`. Every value of `out` is written, so a vector whose
/// allocator leaves new values unset may come in at any size.
template <class View, class Alloc>
void owned_to_host(const View& f, const Grid& g, std::vector<double, Alloc>& out, OwnedStage<View>& stage) {
  using Space = typename View::execution_space;
  out.resize(size_t(g.nx) * g.ny);
  using Out = Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  const Out dst(out.data(), size_t(g.ny), size_t(g.nx));
  auto pack = [&](const auto& to) {
    using To = std::decay_t<decltype(to)>;
    Kokkos::parallel_for("shwa::owned_to_host",
                         Kokkos::RangePolicy<Space, Kokkos::IndexType<long>>(0, long(g.nx) * long(g.ny)),
                         detail::PackOwned<To, View>{to, f, g.nx, g.ng});
  };
  if constexpr (Kokkos::SpaceAccessibility<Space, Kokkos::HostSpace>::accessible) {
    pack(dst);
  } else {
    pack(detail::sized_stage(stage, g));
    Kokkos::deep_copy(dst, stage);
  }
  Kokkos::fence();  // `out` holds the values on return
}

namespace detail {
/// to(k / nx + ng, k % nx + ng) = from(k / nx, k % nx): PackOwned's inverse, in the field's type.
template <class To, class From>
struct UnpackOwned {
  To to;
  From from;
  int nx, ng;
  KOKKOS_INLINE_FUNCTION void operator()(const long k) const {
    const int j = int(k / nx), i = int(k % nx);
    to(j + ng, i + ng) = typename To::non_const_value_type(from(j, i));
  }
};
}  // namespace detail

/// The owned cells of a field set from the g.nx * g.ny doubles at `v` (host memory, row-major as
/// owned_to_host gives them), converted to the field's type; its ghost layers are left as they
/// are. By a kernel of the field's execution space: straight from `v` where that space can read
/// host memory, else from `stage` (made, or made again, to the block's extents), which one copy
/// fills.
template <class View>
void owned_from_host(const View& f, const Grid& g, const double* v, OwnedStage<View>& stage) {
  using Space = typename View::execution_space;
  using In = Kokkos::View<const double**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  const In src(v, size_t(g.ny), size_t(g.nx));
  auto unpack = [&](const auto& from) {
    using From = std::decay_t<decltype(from)>;
    Kokkos::parallel_for("shwa::owned_from_host",
                         Kokkos::RangePolicy<Space, Kokkos::IndexType<long>>(0, long(g.nx) * long(g.ny)),
                         detail::UnpackOwned<View, From>{f, from, g.nx, g.ng});
  };
  if constexpr (Kokkos::SpaceAccessibility<Space, Kokkos::HostSpace>::accessible) {
    unpack(src);
  } else {
    Kokkos::deep_copy(detail::sized_stage(stage, g), src);
    unpack(stage);
  }
  Kokkos::fence();  // `v` may be freed on return
}

/// The owned cells of a field, copied to the host, row-major (j * nx + i, j = 0 the southern row).
template <class View>
std::vector<double> owned_to_host(const View& f, const Grid& g) {
  std::vector<double> out;
  OwnedStage<View> stage;
  owned_to_host(f, g, out, stage);
  return out;
}

}  // namespace shwa
