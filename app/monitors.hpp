// shwa/app/monitors.hpp — the app's own small device kernels, run between the solver's steps:
// the maxima maps, the health record that detects a blow-up, and the gauge samples.
//
// They live in app/ because they watch a run rather than advance it; core/ stays the solver.
// Free function templates (no member lambdas) so that nvcc accepts the KOKKOS_LAMBDAs.
//
// None of them brings anything back to the host when it runs: on a GPU a step of the time loop
// then costs its kernels and the one synchronisation of the CFL time step, nothing more. The host
// reads the health record (HealthRecord::read) at health checks and the gauge samples
// (GaugeBuffer::take) when it writes them. Their labels fit std::string's short-string buffer, so
// that launching them allocates nothing on the host either.
#pragma once

#include "fields.hpp"
#include "grid.hpp"
#include "host_tiles.hpp"
#include "quiet.hpp"
#include "roe.hpp"
#include "simd.hpp"
#include "types.hpp"

#include <cstdint>
#include <utility>
#include <vector>

namespace shwa::app {

/// Per-cell maxima of a run over the block's owned cells, (ny, nx) without ghosts: the greatest
/// depth and, for each of the state's tracers, the greatest concentration of a wet cell and the
/// first time the concentration exceeded the arrival threshold (-1: not yet).
template <class E>
struct Maxima {
  Field<E> hmax;
  Field<E> cmax[kMaxTracers], arrival[kMaxTracers];  // tracer t's for t < ntracers
  int ntracers = 0;

  Maxima(const Grid& g, int tracers) : hmax("hmax", g.ny, g.nx), ntracers(tracers) {
    for (int t = 0; t < tracers; ++t) {
      cmax[t] = Field<E>("cmax", g.ny, g.nx);
      arrival[t] = Field<E>("arrival", g.ny, g.nx);
      Kokkos::deep_copy(arrival[t], Real(-1));
    }
  }
};

/// A non-finite value or a negative depth in an owned cell.
KOKKOS_INLINE_FUNCTION bool unhealthy(Real h, Real qx, Real qy, Real hc) {
  // x - x == 0 is false exactly for NaN and infinities, and works under fast-math flags.
  return !(h - h == Real(0) && qx - qx == Real(0) && qy - qy == Real(0) && hc - hc == Real(0)) ||
         h < Real(0);
}

/// unhealthy() over every field of cell (j, i) (storage indices) of w.
template <class E>
KOKKOS_INLINE_FUNCTION bool unhealthy(const Conserved<E>& w, int j, int i) {
  bool bad = unhealthy(w.h(j, i), w.qx(j, i), w.qy(j, i), w.hc[0](j, i));
  for (int p = 1; p < w.ntracers; ++p) bad = bad || !(w.hc[p](j, i) - w.hc[p](j, i) == Real(0));
  return bad;
}

/// Where this block's state first went bad, kept on the device: the first step count after which
/// an unhealthy owned cell was seen, that step's time, and the first such cell of that step in
/// row-major order. The kernels that look at the state mark it (update_maxima after every step,
/// record_health when called); the host reads it at health checks, so a blow-up is reported at
/// the first health check after it happened, still naming the step and cell where it began.
template <class E>
class HealthRecord {
 public:
  static constexpr unsigned long long kNone = ~0ull;

  /// What read() finds: step < 0 when the state was always healthy.
  struct Report {
    long step = -1;
    double time = 0;
    std::int64_t cell = -1;  // j * nx + i in the block's owned cells
    bool bad() const { return step >= 0; }
  };

  HealthRecord() : first_("health_first", 2), time_("health_time") {
    Kokkos::deep_copy(first_, kNone);
    host_first_ = Kokkos::create_mirror_view(first_);
  }

  /// Called on the device for an unhealthy cell k (j * nx + i) of the state after step `step`, at
  /// time t. The first step to mark wins (atomic compare-and-swap); the threads of that step keep
  /// the smallest k. A later step's marks change nothing.
  KOKKOS_INLINE_FUNCTION void mark(unsigned long long step, double t, unsigned long long k) const {
    const unsigned long long none = kNone;
    const unsigned long long before = Kokkos::atomic_compare_exchange(&first_(0), none, step);
    if (before == none) time_() = t;  // the one thread whose step took the record
    if (before == none || before == step) Kokkos::atomic_fetch_min(&first_(1), k);
  }

  /// The record, on the host (waits for the kernels queued before).
  Report read() const {
    Kokkos::deep_copy(host_first_, first_);
    Report r;
    if (host_first_(0) == kNone) return r;
    Kokkos::deep_copy(r.time, time_);
    r.step = long(host_first_(0));
    r.cell = std::int64_t(host_first_(1));
    return r;
  }

 private:
  using Steps = Kokkos::View<unsigned long long*, typename E::memory_space>;
  Steps first_;  // the step, the cell
  HostMirror<Steps> host_first_;
  Kokkos::View<double, typename E::memory_space> time_;
};

/// The owned cells of a block in tiles of kTileX x kTileY, a team a tile (a thread a cell on a GPU:
/// rows of 32 cells read in one transaction; one thread a tile on a host, whose rows of 128 cells
/// keep the SIMD loops in long runs), launched with the functor as a kernel argument
/// (launch_light), so that these kernels never wait for the step's kernels before them. The host's
/// maxima pass skips quiet tiles, and takes its tiles as the CFL pass does (host_update_maxima).
template <class E>
inline constexpr int kTileX = is_host_space<E>() ? 128 : 32;
inline constexpr int kTileY = 8;
template <class E>
using TilePolicy = Kokkos::TeamPolicy<E>;
template <class E>
int owned_tile_count(const Grid& g) {
  return detail::ceil_div(g.nx, kTileX<E>) * detail::ceil_div(g.ny, kTileY);
}
template <class E>
auto owned_tiles(const Grid& g) {
  return launch_light(TilePolicy<E>(owned_tile_count<E>(g), is_host_space<E>() ? 1 : kTileX<E> * kTileY));
}

/// The first owned column i0 and row j0 of tile `tile` of owned_tiles (nx owned columns).
template <class E>
KOKKOS_INLINE_FUNCTION void tile_origin(int tile, int nx, int& i0, int& j0) {
  const int ntx = (nx + kTileX<E> - 1) / kTileX<E>;
  i0 = (tile % ntx) * kTileX<E>;
  j0 = (tile / ntx) * kTileY;
}

/// Calls f(i, j), a thread a cell, for the owned cells (i, j) of the team's tile (of nx x ny).
template <class E, class Member, class F>
KOKKOS_INLINE_FUNCTION void for_tile_cells(const Member& team, int nx, int ny, const F& f) {
  int i0, j0;
  tile_origin<E>(team.league_rank(), nx, i0, j0);
  Kokkos::parallel_for(Kokkos::TeamThreadRange(team, kTileX<E> * kTileY), [&](const int k) {
    const int i = i0 + k % kTileX<E>, j = j0 + k / kTileX<E>;
    if (i < nx && j < ny) f(i, j);
  });
}

/// The host body of update_maxima (one thread a tile): the tile's columns are cut into runs of
/// cells whose QuietMap squares are active, once for each row of squares, and each row's runs are
/// folded by a loop the compiler vectorizes, with the device body's operations, so the maxima are
/// the same bits; the cells of a row are marked in `health` only where that row holds an
/// unhealthy one.
template <class E>
void host_update_maxima(const Conserved<E>& w, const Grid& g, const Maxima<E>& m, double t, long step,
                        Real threshold, const HealthRecord<E>& health, const QuietMap<E>& q) {
  const int ng = g.ng, nx = g.nx, ny = g.ny;
  const Real time = Real(t);
  const unsigned long long s = static_cast<unsigned long long>(step);
  const auto h = w.h, qx = w.qx, qy = w.qy, hc = w.hc[0];
  const auto hmax = m.hmax, cmax = m.cmax[0], arrival = m.arrival[0];
  constexpr int K = QuietMap<E>::kCells;
  static_assert(kTileY <= K, "a tile's rows meet at most two rows of QuietMap squares");
  const int ntiles = owned_tile_count<E>(g);
  detail::TileTaker taker(ntiles, E().concurrency());
  detail::TileTaker* const tiles = &taker;
  using Member = typename detail::HostTilePolicy<E>::member_type;
  Kokkos::parallel_for("shwa::maxima", detail::host_tile_policy<E>(), [=](const Member& thread) {
    for (int tile; (tile = tiles->next(thread.league_rank())) >= 0;) {
      int i0, j0;
      tile_origin<E>(tile, nx, i0, j0);
      const int i1 = i0 + kTileX<E> < nx ? i0 + kTileX<E> : nx, j1 = j0 + kTileY < ny ? j0 + kTileY : ny;
      // The runs of cells in active squares along the tile's columns, once for each row of
      // squares that the tile's rows meet (at most two: kTileY <= K): [a, b) runs from an active
      // square to the end of the last active one after it (storage column i + ng lies in square
      // (i + ng) / K).
      const int jb0 = (j0 + ng) / K;
      int runs[2][kTileX<E> / K + 2][2], nruns[2] = {0, 0};
      for (int r = 0; r < 2 && (jb0 + r) * K - ng < j1; ++r) {
        const auto quiet_at = [&](int i) { return q.on && q.last(jb0 + r, (i + ng) / K) < q.epoch; };
        const auto square_end = [&](int i) {
          const int end = ((i + ng) / K + 1) * K - ng;
          return end < i1 ? end : i1;
        };
        for (int a = i0; a < i1;) {
          if (quiet_at(a)) {
            a = square_end(a);
            continue;
          }
          int b = square_end(a);
          while (b < i1 && !quiet_at(b)) b = square_end(b);
          runs[r][nruns[r]][0] = a, runs[r][nruns[r]][1] = b, ++nruns[r];
          a = b;
        }
      }
      for (int j = j0; j < j1; ++j) {
        const Real *d = &h(j + ng, ng), *u = &qx(j + ng, ng), *v = &qy(j + ng, ng), *cm = &hc(j + ng, ng);
        Real *hm = &hmax(j, 0), *cx = &cmax(j, 0), *ar = &arrival(j, 0);
        const int r = (j + ng) / K - jb0;
        for (int k = 0; k < nruns[r]; ++k) {
          const int a = runs[r][k][0], b = runs[r][k][1];
          int bad = 0;
          SHWA_SIMD_OR(bad)
          for (int i = a; i < b; ++i) {
            const Real dep = d[i], mass = cm[i];
            // unhealthy(), without its short-circuit operators, which would stop the vectorizer.
            bad |= int(!((dep - dep == Real(0)) & (u[i] - u[i] == Real(0)) & (v[i] - v[i] == Real(0)) &
                         (mass - mass == Real(0))) |
                       (dep < Real(0)));
            hm[i] = dep > hm[i] ? dep : hm[i];
            const bool holds = dep >= kMinDepthForC;
            const Real c = holds ? mass / (holds ? dep : Real(1)) : Real(0);
            cx[i] = c > cx[i] ? c : cx[i];
            ar[i] = (ar[i] < Real(0)) & (c > threshold) ? time : ar[i];
          }
          for (int p = 1; p < w.ntracers; ++p) {  // the other tracers' maps, one loop each
            const Real* tm = &w.hc[p](j + ng, ng);
            Real *tx = &m.cmax[p](j, 0), *ta = &m.arrival[p](j, 0);
            SHWA_SIMD_OR(bad)
            for (int i = a; i < b; ++i) {
              const Real dep = d[i], mass = tm[i];
              bad |= int(!(mass - mass == Real(0)));
              const bool holds = dep >= kMinDepthForC;
              const Real c = holds ? mass / (holds ? dep : Real(1)) : Real(0);
              tx[i] = c > tx[i] ? c : tx[i];
              ta[i] = (ta[i] < Real(0)) & (c > threshold) ? time : ta[i];
            }
          }
          if (bad)
            for (int i = a; i < b; ++i)
              if (unhealthy(w, j + ng, i + ng))
                health.mark(s, t, static_cast<unsigned long long>(j) * static_cast<unsigned long long>(nx) +
                                      static_cast<unsigned long long>(i));
        }
      }
    }
  });
}

/// Folds the state after step `step` (time t) into the maxima, and marks its unhealthy cells in
/// `health` in the same pass, so a run with maxima watches every step's state at no extra pass.
/// A parallel_for: nothing comes back to the host.
/// Called after every step, it skips the cells of the solver's quiet squares (`quiet`, the
/// solver's QuietMap of this state): they hold the bits of the state before, which the previous
/// call folded in, so the maxima, arrival times and health record are those of folding
/// everything. Dry land then costs one read of its square's count a cell.
template <class E>
void update_maxima(const Conserved<E>& w, const Grid& g, const Maxima<E>& m, double t, long step, Real threshold,
                   const HealthRecord<E>& health, const QuietMap<E>& quiet = QuietMap<E>{}) {
  if constexpr (is_host_space<E>()) {
    host_update_maxima(w, g, m, t, step, threshold, health, quiet);
    return;
  }
  const int ng = g.ng, nx = g.nx;
  const Real time = Real(t);
  const double t_now = t;
  const unsigned long long s = static_cast<unsigned long long>(step);
  const auto h = w.h, qx = w.qx, qy = w.qy, hc = w.hc[0];
  const auto hmax = m.hmax, cmax = m.cmax[0], arrival = m.arrival[0];
  const Conserved<E> state = w;
  const Maxima<E> maps = m;
  const QuietMap<E> q = quiet;
  constexpr int K = QuietMap<E>::kCells;
  const int ny = g.ny;
  Kokkos::parallel_for(
      "shwa::maxima", owned_tiles<E>(g), KOKKOS_LAMBDA(const typename TilePolicy<E>::member_type& team) {
        for_tile_cells<E>(team, nx, ny, [&](const int i, const int j) {
          if (q.on && q.last((j + ng) / K, (i + ng) / K) < q.epoch) return;
          const Real d = h(j + ng, i + ng), c_mass = hc(j + ng, i + ng);
          bool bad = unhealthy(d, qx(j + ng, i + ng), qy(j + ng, i + ng), c_mass);
          if (d > hmax(j, i)) hmax(j, i) = d;
          // The concentration of every output (outputs.hpp): films below eps_h carry theirs.
          const Real c = d >= kMinDepthForC ? c_mass / d : Real(0);
          if (c > cmax(j, i)) cmax(j, i) = c;
          if (arrival(j, i) < Real(0) && c > threshold) arrival(j, i) = time;
          for (int p = 1; p < state.ntracers; ++p) {  // the other tracers' maps
            const Real mass = state.hc[p](j + ng, i + ng);
            bad = bad || !(mass - mass == Real(0));
            const Real cp = d >= kMinDepthForC ? mass / d : Real(0);
            if (cp > maps.cmax[p](j, i)) maps.cmax[p](j, i) = cp;
            if (maps.arrival[p](j, i) < Real(0) && cp > threshold) maps.arrival[p](j, i) = time;
          }
          if (bad)
            health.mark(s, t_now, static_cast<unsigned long long>(j) * static_cast<unsigned long long>(nx) +
                                      static_cast<unsigned long long>(i));
        });
      });
}

/// Marks the unhealthy owned cells of the state after step `step` (time t) in `health`: the
/// health check of a run without maxima, and of a state no kernel has looked at yet.
template <class E>
void record_health(const Conserved<E>& w, const Grid& g, double t, long step, const HealthRecord<E>& health) {
  const int ng = g.ng, nx = g.nx, ny = g.ny;
  const unsigned long long s = static_cast<unsigned long long>(step);
  const Conserved<E> state = w;
  Kokkos::parallel_for(
      "shwa::health", owned_tiles<E>(g), KOKKOS_LAMBDA(const typename TilePolicy<E>::member_type& team) {
        for_tile_cells<E>(team, nx, ny, [&](const int i, const int j) {
          if (unhealthy(state, j + ng, i + ng))
            health.mark(s, t, static_cast<unsigned long long>(j) * static_cast<unsigned long long>(nx) +
                                  static_cast<unsigned long long>(i));
        });
      });
}

/// Row `row` of a gauge buffer: the fields of w (h, qx, qy, then each tracer's hc) of the n cells
/// (cells(2k), cells(2k+1)) (owned indices), w.size() values a cell.
template <class E>
void sample_cells(const Conserved<E>& w, const Kokkos::View<int*, typename E::memory_space>& cells,
                  const Kokkos::View<Real**, Kokkos::LayoutRight, typename E::memory_space>& values, int row, int ng,
                  int n) {
  Kokkos::parallel_for(
      "shwa::gauge_row", Kokkos::RangePolicy<E>(0, n), KOKKOS_LAMBDA(int k) {
        const int i = cells(2 * k) + ng, j = cells(2 * k + 1) + ng, nf = w.size();
        for (int f = 0; f < nf; ++f) values(row, nf * k + f) = w[f](j, i);
      });
}

/// Samples the conserved fields of a few owned cells into a device buffer, one row per sample,
/// and hands the rows to the host only when asked (take). cells[2k], cells[2k+1] = (i, j) of cell k
/// in owned indices; a row holds `fields` values a cell (Conserved::size()). The sample times stay
/// on the host, which knows them.
template <class E>
class GaugeBuffer {
 public:
  GaugeBuffer() = default;
  GaugeBuffer(const Grid& g, const std::vector<int>& cells, int fields, int capacity)
      : ng_(g.ng), n_(int(cells.size() / 2)), fields_(fields), capacity_(capacity), cells_("gauge_cells", cells.size()),
        values_("gauge_values", std::size_t(capacity), std::size_t(fields) * std::size_t(n_)) {
    auto host = Kokkos::create_mirror_view(cells_);
    for (std::size_t k = 0; k < cells.size(); ++k) host(k) = cells[k];
    Kokkos::deep_copy(cells_, host);
    host_values_ = Kokkos::create_mirror_view(values_);
    times_.reserve(std::size_t(capacity));
  }

  int rows() const { return int(times_.size()); }
  bool full() const { return rows() >= capacity_; }

  /// Appends the row of time t from the state w: a device kernel, nothing comes back. The caller
  /// empties a full buffer (take) first.
  void record(const Conserved<E>& w, double t) {
    const int row = rows();
    times_.push_back(t);  // within the capacity reserved: no allocation
    if (n_ > 0) sample_cells(w, cells_, values_, row, ng_, n_);
  }

  /// The rows recorded since the last take, on the host: times[r] and values[(r * n + k) * fields +
  /// q], field q of cell k. Empties the buffer.
  std::pair<std::vector<double>, std::vector<double>> take() {
    const std::size_t rows = times_.size(), width = std::size_t(fields_) * std::size_t(n_);
    std::vector<double> out(rows * width);
    if (rows > 0 && width > 0) {
      const auto used = Kokkos::make_pair(std::size_t(0), rows);
      Kokkos::deep_copy(Kokkos::subview(host_values_, used, Kokkos::ALL()),
                        Kokkos::subview(values_, used, Kokkos::ALL()));
      for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t v = 0; v < width; ++v) out[r * width + v] = double(host_values_(r, v));
    }
    std::vector<double> times(times_.begin(), times_.end());
    times_.clear();
    return {std::move(times), std::move(out)};
  }

 private:
  int ng_ = 1, n_ = 0, fields_ = 0, capacity_ = 0;
  Kokkos::View<int*, typename E::memory_space> cells_;
  Kokkos::View<Real**, Kokkos::LayoutRight, typename E::memory_space> values_;  // (row, fields * cell + q)
  HostMirror<Kokkos::View<Real**, Kokkos::LayoutRight, typename E::memory_space>> host_values_;
  std::vector<double> times_;
};

}  // namespace shwa::app
