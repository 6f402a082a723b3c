// shwa/app/monitors.hpp — the app's own small device work: the maxima maps (folded in the
// solver's CFL pass, or by a kernel of their own between steps), the health record that detects a
// blow-up, and the gauge samples.
//
// They live in app/ because they watch a run rather than advance it; core/ stays the solver, which
// only shows its CFL pass's cells to a watcher (NoObserver, core/kernels.hpp).
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
/// row-major order. What looks at the state marks it (MaximaFold, every state of a run with
/// maxima; record_health when called); the host reads it at health checks, so a blow-up is reported at
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
/// maxima pass skips quiet squares, and takes its tiles as the CFL pass does (update_maxima).
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

/// Folds one state into the maxima maps and marks its unhealthy owned cells in the health record:
/// the state after step `step` (time t), skipping the cells of the solver's quiet squares (`q`, the
/// solver's QuietMap of this state): they hold the bits of the state before, which an earlier fold
/// took in, so the maps, arrival times and health record are those of folding everything. Folding
/// a cell twice changes nothing (a maximum; an arrival or a first bad step already set stays).
/// The solver's CFL pass runs it on the cells it reads (NoObserver, core/kernels.hpp), so that
/// most steps' maxima cost no pass over the state of their own; update_maxima runs it as a pass of
/// its own where the maps or the record are read before the next step's CFL pass.
/// Storage indices (ghost layers included); the maps hold the owned cells.
template <class E>
struct MaximaFold {
  static constexpr bool kActive = true;
  Conserved<E> w;
  Maxima<E> m;
  HealthRecord<E> health;
  QuietMap<E> q;
  Real time, threshold;
  double t;
  unsigned long long step;
  int ng, nx;

  MaximaFold(const Conserved<E>& state, const Grid& g, const Maxima<E>& maps, double t_now, long step_now,
             Real arrival_threshold, const HealthRecord<E>& record, const QuietMap<E>& quiet)
      : w(state), m(maps), health(record), q(quiet), time(Real(t_now)), threshold(arrival_threshold), t(t_now),
        step(static_cast<unsigned long long>(step_now)), ng(g.ng), nx(g.nx) {}

  KOKKOS_INLINE_FUNCTION bool quiet(int j, int i) const {
    constexpr int K = QuietMap<E>::kCells;
    return q.on && q.last(j / K, i / K) < q.epoch;
  }

  /// What the fold of cell (j, i) reads besides its h, qx, qy (the first tracer's; the others are
  /// read as folded), loaded before the fold needs it (NoObserver, core/kernels.hpp).
  struct Ahead {
    Real hc, hmax, cmax, arrival;
    bool quiet;
  };
  KOKKOS_INLINE_FUNCTION Ahead ahead(int j, int i) const {
    if (quiet(j, i)) return Ahead{0, 0, 0, 0, true};
    const int jo = j - ng, io = i - ng;
    return Ahead{w.hc[0](j, i), m.hmax(jo, io), m.cmax[0](jo, io), m.arrival[0](jo, io), false};
  }

  /// Cell (j, i), whose h, qx, qy the caller read and whose `a = ahead(j, i)` it loaded (a thread a
  /// cell).
  KOKKOS_INLINE_FUNCTION void operator()(int j, int i, Real d, Real u, Real v, const Ahead& a) const {
    if (a.quiet) return;
    const int jo = j - ng, io = i - ng;
    const Real c_mass = a.hc;
    bool bad = unhealthy(d, u, v, c_mass);
    if (d > a.hmax) m.hmax(jo, io) = d;
    // The concentration of every output (outputs.hpp): films below eps_h carry theirs.
    const Real c = d >= kMinDepthForC ? c_mass / d : Real(0);
    if (c > a.cmax) m.cmax[0](jo, io) = c;
    if (a.arrival < Real(0) && c > threshold) m.arrival[0](jo, io) = time;
    for (int p = 1; p < w.ntracers; ++p) {  // the other tracers' maps
      const Real mass = w.hc[p](j, i);
      bad = bad || !(mass - mass == Real(0));
      const Real cp = d >= kMinDepthForC ? mass / d : Real(0);
      if (cp > m.cmax[p](jo, io)) m.cmax[p](jo, io) = cp;
      if (m.arrival[p](jo, io) < Real(0) && cp > threshold) m.arrival[p](jo, io) = time;
    }
    if (bad) health.mark(step, t, cell_index(j, i));
  }

  /// The cells [j0, j1) x [i0, i1) (host memory, one thread): cut into runs of cells whose squares
  /// are active, once for each row of squares, each row of a run folded by a loop the compiler
  /// vectorizes, with operator()'s operations (the same bits); a row's cells are marked in
  /// `health` only where it holds an unhealthy one.
  void rect(int j0, int j1, int i0, int i1) const {
    constexpr int K = QuietMap<E>::kCells;
    const auto square_end = [&](int i) { return (i / K + 1) * K < i1 ? (i / K + 1) * K : i1; };
    for (int jb = j0 / K; jb * K < j1; ++jb) {
      const int ja = jb * K > j0 ? jb * K : j0, jz = (jb + 1) * K < j1 ? (jb + 1) * K : j1;
      for (int a = i0; a < i1;) {
        if (quiet(ja, a)) {
          a = square_end(a);
          continue;
        }
        int b = square_end(a);
        while (b < i1 && !quiet(ja, b)) b = square_end(b);
        for (int j = ja; j < jz; ++j) row(j, a, b);
        a = b;
      }
    }
  }

 private:
  KOKKOS_INLINE_FUNCTION unsigned long long cell_index(int j, int i) const {
    return static_cast<unsigned long long>(j - ng) * static_cast<unsigned long long>(nx) +
           static_cast<unsigned long long>(i - ng);
  }

  /// Cells [a, b) of row j (host; storage indices, as rect's).
  void row(int j, int a, int b) const {
    // Owned columns from here on: the fields' rows from their first owned cell, the maps' rows.
    const int jo = j - ng, ao = a - ng, bo = b - ng;
    const Real *d = &w.h(j, ng), *u = &w.qx(j, ng), *v = &w.qy(j, ng), *cm = &w.hc[0](j, ng);
    Real *hm = &m.hmax(jo, 0), *cx = &m.cmax[0](jo, 0), *ar = &m.arrival[0](jo, 0);
    int bad = 0;
    SHWA_SIMD_OR(bad)
    for (int i = ao; i < bo; ++i) {
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
      const Real* tm = &w.hc[p](j, ng);
      Real *tx = &m.cmax[p](jo, 0), *ta = &m.arrival[p](jo, 0);
      SHWA_SIMD_OR(bad)
      for (int i = ao; i < bo; ++i) {
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
        if (unhealthy(w, j, i)) health.mark(step, t, cell_index(j, i));
  }
};

/// Folds the state after step `step` (time t) into the maxima, and marks its unhealthy cells in
/// `health` in the same pass (MaximaFold), so a run with maxima watches every step's state at no
/// extra pass. A parallel_for: nothing comes back to the host. Dry land (quiet squares) costs one
/// read of its square's count a cell on a device; a host thread folds a tile's runs of active
/// squares and takes its tiles as the CFL pass does.
template <class E>
void update_maxima(const Conserved<E>& w, const Grid& g, const Maxima<E>& m, double t, long step, Real threshold,
                   const HealthRecord<E>& health, const QuietMap<E>& quiet = QuietMap<E>{}) {
  const MaximaFold<E> fold(w, g, m, t, step, threshold, health, quiet);
  const int ng = g.ng, nx = g.nx, ny = g.ny;
  if constexpr (is_host_space<E>()) {
    detail::TileTaker taker(owned_tile_count<E>(g), E().concurrency());
    detail::TileTaker* const tiles = &taker;
    using Member = typename detail::HostTilePolicy<E>::member_type;
    Kokkos::parallel_for("shwa::maxima", detail::host_tile_policy<E>(), [=](const Member& thread) {
      for (int tile; (tile = tiles->next(thread.league_rank())) >= 0;) {
        int i0, j0;
        tile_origin<E>(tile, nx, i0, j0);
        const int i1 = i0 + kTileX<E> < nx ? i0 + kTileX<E> : nx, j1 = j0 + kTileY < ny ? j0 + kTileY : ny;
        fold.rect(j0 + ng, j1 + ng, i0 + ng, i1 + ng);
      }
    });
  } else {
    const auto h = w.h, qx = w.qx, qy = w.qy;
    Kokkos::parallel_for(
        "shwa::maxima", owned_tiles<E>(g), KOKKOS_LAMBDA(const typename TilePolicy<E>::member_type& team) {
          for_tile_cells<E>(team, nx, ny, [&](const int i, const int j) {
            const int js = j + ng, is = i + ng;
            if (!fold.quiet(js, is)) fold(js, is, h(js, is), qx(js, is), qy(js, is), fold.ahead(js, is));
          });
        });
  }
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

/// Row `row` of a gauge buffer: the fields (h, qx, qy, then each tracer's hc) of the n cells
/// (cells(2k), cells(2k+1)) (owned indices), w1.size() values a cell, at the fraction s of the way
/// from w0 to w1, w0 + s (w1 - w0): w1's own values where s = 1, w0's where they are equal.
template <class E>
void sample_cells(const Conserved<E>& w0, const Conserved<E>& w1, Real s,
                  const Kokkos::View<int*, typename E::memory_space>& cells,
                  const Kokkos::View<Real**, Kokkos::LayoutRight, typename E::memory_space>& values, int row, int ng,
                  int n) {
  Kokkos::parallel_for(
      "shwa::gauge_row", Kokkos::RangePolicy<E>(0, n), KOKKOS_LAMBDA(int k) {
        const int i = cells(2 * k) + ng, j = cells(2 * k + 1) + ng, nf = w1.size();
        for (int f = 0; f < nf; ++f)
          values(row, nf * k + f) = s == Real(1) ? w1[f](j, i) : w0[f](j, i) + s * (w1[f](j, i) - w0[f](j, i));
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
  void record(const Conserved<E>& w, double t) { record(w, 0, w, t, t); }
  /// Appends the row of time t, t0 < t <= t1, linear in time between the states w0 at t0 and w1
  /// at t1 (w1 itself where t = t1).
  void record(const Conserved<E>& w0, double t0, const Conserved<E>& w1, double t1, double t) {
    const int row = rows();
    times_.push_back(t);  // within the capacity reserved: no allocation
    const Real s = t == t1 ? Real(1) : Real((t - t0) / (t1 - t0));
    if (n_ > 0) sample_cells(w0, w1, s, cells_, values_, row, ng_, n_);
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
