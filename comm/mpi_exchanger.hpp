// shwa/comm/mpi_exchanger.hpp — the halo exchange between blocks over MPI (docs/method.md section 7).
//
// Each block exchanges with up to 8 neighbours: the 4 sides and the 4 corners. A side neighbour
// gets a band of w owned rows or columns (w = the halo width), a corner neighbour a w x w square,
// so after one round every ghost cell within w of the block that lies inside the domain holds its
// owner's value, corners included (the expanded halo updates ghost cells next to the corners when
// k > 1). Ghost cells outside the domain belong to the boundary conditions: never written here.
//
// One exchange, its kernels and copies on the execution-space instance the caller gives (a stream
// of its own for the band of an overlapped step: core/streams.hpp), which alone is waited for:
//   begin  post every MPI_Irecv; one pack kernel (all neighbours, all fields) into one contiguous
//          send buffer (and its copy to the host when staged); wait for the instance; every
//          MPI_Isend (with Send::AtEnd these last two wait for end);
//   end    MPI_Waitall; (the copy to the device when staged;) one unpack kernel from the receive
//          buffer into the ghost layers; wait for the instance.
// An exchange begun must end before the next begins, with the same fields (checked: the buffers
// are in use until then).
// The buffers are allocated once. MPI sees the device buffers themselves when the memory is host
// memory or MPI is CUDA-aware ("direct"), otherwise host (pinned, under CUDA) mirrors that the
// buffers are copied through ("staged"); ExchangeOptions forces either.
#pragma once

#include "cart.hpp"
#include "device.hpp"
#include "halo.hpp"
#include "mpi_check.hpp"

#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace shwa::comm {

/// How halo buffers reach MPI.
enum class Transport {
  Auto,    // direct when MPI can read the buffers' memory, else staged
  Direct,  // the device buffers' pointers go to MPI
  Staged,  // copied through host mirrors
};

/// An exchange refreshes every ghost layer of the grid (grid.ng, the halo width k, which the solver
/// also counts its steps between exchanges by): there is no other width to set.
struct ExchangeOptions {
  Transport transport = Transport::Auto;
};

/// Host wall-clock seconds (MPI_Wtime) spent in each phase of the exchanges and reductions. With
/// sends at once, the update queued on the exchange's instance before begin is waited for outside
/// the timers, so the phases hold halo work alone and a step's compute time is its wall time less
/// these (perf/scale.cpp). With sends at end_exchange (overlap on a GPU), the wait before the sends
/// also covers the band's update, and the interior's update runs on another instance during all
/// three phases: there the phases bound the halo's exposed time from above.
struct CommTimes {
  double post = 0;     // receives posted, pack, copy to the host (staged), fence, sends posted
  double wait = 0;     // end: MPI_Waitall (messages not yet arrived)
  double unpack = 0;   // end: the copy from the host (staged), the unpack kernel and its fence
  double reduce = 0;   // min_all and sum_all
  long exchanges = 0;  // exchanges with at least one neighbour
  long reductions = 0;
};

/// An offset to one of the 8 neighbours. Order: the 4 sides as in Side, then the corners, so that
/// the opposite of direction n is n ^ 1.
struct Offset {
  int di, dj;
};
inline constexpr int kNumDirections = 8;
inline constexpr Offset kDirections[kNumDirections] = {{-1, 0},  {1, 0}, {0, -1}, {0, 1},
                                                       {-1, -1}, {1, 1}, {1, -1}, {-1, 1}};
constexpr int opposite(int n) { return n ^ 1; }

namespace detail {

/// Cells [a, b) along one axis of owned cells [ng, ng + n): all of them (d = 0), or the w owned
/// (ghost = false) or ghost (ghost = true) cells at the low (d < 0) or high (d > 0) end.
inline void axis_band(int ng, int n, int d, int w, bool ghost, int& a, int& b) {
  if (d == 0) {
    a = ng;
    b = ng + n;
    return;
  }
  a = d < 0 ? (ghost ? ng - w : ng) : (ghost ? ng + n : ng + n - w);
  b = a + w;
}

}  // namespace detail

/// The owned cells of block g that its neighbour at offset o needs (w layers).
inline Box shared_band(const Grid& g, Offset o, int w) {
  Box b;
  detail::axis_band(g.ng, g.nx, o.di, w, false, b.i0, b.i1);
  detail::axis_band(g.ng, g.ny, o.dj, w, false, b.j0, b.j1);
  return b;
}

/// The ghost cells of block g that its neighbour at offset o owns (w layers).
inline Box ghost_band(const Grid& g, Offset o, int w) {
  Box b;
  detail::axis_band(g.ng, g.nx, o.di, w, true, b.i0, b.i1);
  detail::axis_band(g.ng, g.ny, o.dj, w, true, b.j0, b.j1);
  return b;
}

/// Boxes laid end to end in a buffer, each box once per field: box n occupies
/// [nf * offset[n], nf * offset[n + 1]), field by field, rows of i.
struct BandList {
  int count = 0;
  Box box[kNumDirections];
  int offset[kNumDirections + 1] = {0};

  void add(const Box& b) {
    box[count] = b;
    offset[count + 1] = offset[count] + int(b.size());
    ++count;
  }
  /// Cells in the buffer for nf fields.
  int cells(int nf) const { return nf * offset[count]; }
  /// Field and storage cell of buffer position idx.
  KOKKOS_INLINE_FUNCTION void locate(int idx, int nf, int& f, int& j, int& i) const {
    int n = 0;
    while (idx >= nf * offset[n + 1]) ++n;
    const int size = offset[n + 1] - offset[n];
    const int r = idx - nf * offset[n];
    f = r / size;
    const int c = r - f * size;
    const int bnx = box[n].nx();
    j = box[n].j0 + c / bnx;
    i = box[n].i0 + c % bnx;
  }
};

/// Fields exchanged together (the conserved variables, or one static field).
template <class E>
struct FieldSet {
  Field<E> f[Conserved<E>::kMaxFields];
  int n = 0;
  KOKKOS_INLINE_FUNCTION Real& operator()(int k, int j, int i) const { return f[k](j, i); }
  bool same_as(const FieldSet& o) const {
    if (n != o.n) return false;
    for (int k = 0; k < n; ++k)
      if (f[k].data() != o.f[k].data()) return false;
    return true;
  }
};

template <class E>
class MpiExchanger final : public Exchanger<E> {
 public:
  using memory_space = typename E::memory_space;
  using Buffer = Kokkos::View<Real*, memory_space>;
#if defined(KOKKOS_ENABLE_CUDA)
  using StageSpace = Kokkos::CudaHostPinnedSpace;
#else
  using StageSpace = Kokkos::HostSpace;
#endif
  using StageBuffer = Kokkos::View<Real*, StageSpace>;

  /// The exchanger of this rank's block of `cart` (collective over cart.comm(): it duplicates it,
  /// so its messages never meet anyone else's).
  explicit MpiExchanger(const CartDecomposition& cart, ExchangeOptions opt = {})
      : grid_(cart.grid()), single_(cart.size() == 1) {
    constexpr bool host_memory =
        Kokkos::SpaceAccessibility<Kokkos::HostSpace, memory_space>::accessible;
    staged_ = opt.transport == Transport::Staged ||
              (opt.transport == Transport::Auto && !host_memory && !mpi_cuda_aware());
    for (int n = 0; n < kNumDirections; ++n) {
      const int r = cart.neighbor(kDirections[n].di, kDirections[n].dj);
      if (r == MPI_PROC_NULL) continue;
      rank_[sends_.count] = r;
      dir_[sends_.count] = n;
      sends_.add(shared_band(grid_, kDirections[n], grid_.ng));
      recvs_.add(ghost_band(grid_, kDirections[n], grid_.ng));
    }
    const int cap = sends_.cells(Conserved<E>::kMaxFields);
    send_ = Buffer("shwa::halo_send", cap);
    recv_ = Buffer("shwa::halo_recv", cap);
    if (staged_) {
      stage_send_ = StageBuffer("shwa::halo_send_host", cap);
      stage_recv_ = StageBuffer("shwa::halo_recv_host", cap);
    }
    requests_.assign(size_t(2 * sends_.count), MPI_REQUEST_NULL);
    SHWA_MPI_CHECK(MPI_Comm_dup(cart.comm(), &comm_));
  }

  /// An exchange still in flight (an exception between begin and end) is abandoned: its receives
  /// are cancelled and its requests released, without waiting on neighbours that may never answer.
  ~MpiExchanger() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) return;
    if (posted_) {
      for (int n = 0; n < sends_.count; ++n) MPI_Cancel(&requests_[size_t(n)]);
      for (auto& r : requests_)
        if (r != MPI_REQUEST_NULL) MPI_Request_free(&r);
    }
    if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
  }
  MpiExchanger(const MpiExchanger&) = delete;
  MpiExchanger& operator=(const MpiExchanger&) = delete;

  void exchange_field(const Field<E>& f) override {
    FieldSet<E> s;
    s.f[0] = f;
    s.n = 1;
    start(s, E(), Send::Now);
    finish(s);
  }

  /// Minimum over all ranks; NaN on any rank gives NaN on every rank (MPI_MIN leaves NaN to the
  /// implementation), so a failing step stops every rank alike.
  double min_all(double local) override {
    ++times_.reductions;
    const Timer t(times_.reduce);
    const double mine[2] = {std::isnan(local) ? 0.0 : local, std::isnan(local) ? -1.0 : 0.0};
    double all[2];
    SHWA_MPI_CHECK(MPI_Allreduce(mine, all, 2, MPI_DOUBLE, MPI_MIN, comm_));
    return all[1] < 0 ? std::numeric_limits<double>::quiet_NaN() : all[0];
  }
  double sum_all(double local) override {
    ++times_.reductions;
    const Timer t(times_.reduce);
    double all = 0;
    SHWA_MPI_CHECK(MPI_Allreduce(&local, &all, 1, MPI_DOUBLE, MPI_SUM, comm_));
    return all;
  }

  /// One rank holds the whole domain: nothing is exchanged and min_all is the value itself, so the
  /// solver may keep the time step on the device (Solver::step), as with SingleBlock.
  bool single_block() const override { return single_; }

  /// MPI sees host mirrors of the buffers (true) or the buffers themselves (false).
  bool staged() const { return staged_; }
  /// Neighbours exchanged with (0 to 8).
  int neighbors() const { return sends_.count; }
  const CommTimes& times() const { return times_; }
  void reset_times() { times_ = CommTimes{}; }

  // The kernels are public only because CUDA's extended lambdas may not live in private member
  // functions.
  void pack(const FieldSet<E>& fields, const E& space) const {
    const BandList bands = sends_;
    const Buffer buf = send_;
    const FieldSet<E> src = fields;
    const int nf = fields.n;
    Kokkos::parallel_for(
        "shwa::halo_pack", launch_light(Kokkos::RangePolicy<E>(space, 0, bands.cells(nf))),
        KOKKOS_LAMBDA(const int idx) {
          int f, j, i;
          bands.locate(idx, nf, f, j, i);
          buf(idx) = src(f, j, i);
        });
  }
  void unpack(const FieldSet<E>& fields, const E& space) const {
    const BandList bands = recvs_;
    const Buffer buf = recv_;
    const FieldSet<E> dst = fields;
    const int nf = fields.n;
    Kokkos::parallel_for(
        "shwa::halo_unpack", launch_light(Kokkos::RangePolicy<E>(space, 0, bands.cells(nf))),
        KOKKOS_LAMBDA(const int idx) {
          int f, j, i;
          bands.locate(idx, nf, f, j, i);
          dst(f, j, i) = buf(idx);
        });
  }

 protected:
  void begin(const Conserved<E>& w, const E& space, Send send) override {
    start(conserved(w), space, send);
  }
  void end(const Conserved<E>& w) override { finish(conserved(w)); }

 private:
  /// Adds the seconds of its lifetime to `seconds`; a Kokkos profiling region of that lifetime
  /// (perf/cuda_timeline.cpp draws them), when a name is given.
  class Timer {
   public:
    explicit Timer(double& seconds, const char* region = nullptr)
        : seconds_(seconds), start_(MPI_Wtime()), region_(region) {
      if (region_) Kokkos::Profiling::pushRegion(region_);
    }
    ~Timer() {
      if (region_) Kokkos::Profiling::popRegion();
      seconds_ += MPI_Wtime() - start_;
    }

   private:
    double& seconds_;
    double start_;
    const char* region_;
  };

  static FieldSet<E> conserved(const Conserved<E>& w) {
    FieldSet<E> s;
    for (int k = 0; k < w.size(); ++k) s.f[k] = w[k];
    s.n = w.size();
    return s;
  }

  /// The first n cells of a buffer.
  template <class View>
  static View head(const View& v, int n) {
    return Kokkos::subview(v, std::make_pair(0, n));
  }

  void start(const FieldSet<E>& fields, const E& space, Send send) {
    if (posted_)
      throw std::logic_error(
          "halo exchange begun while the previous one is still in flight "
          "(begin_exchange without end_exchange)");
    for (int k = 0; k < fields.n; ++k)
      if (int(fields.f[k].extent(0)) != grid_.ny_padded() ||
          int(fields.f[k].extent(1)) != grid_.nx_padded())
        throw std::invalid_argument("halo exchange of a field that is not padded like the block");
    const int nf = fields.n, cells = sends_.cells(nf);
    if (sends_.count > 0) {
      ++times_.exchanges;
      // The update queued before is compute time, not halo time (CommTimes). A deferred send does
      // not wait here: the caller has other work to queue first.
      if (send == Send::Now) space.fence();
      const Timer t(times_.post, "shwa::halo_post");
      Real* rbase = staged_ ? stage_recv_.data() : recv_.data();
      for (int n = 0; n < recvs_.count; ++n)
        SHWA_MPI_CHECK(MPI_Irecv(rbase + nf * recvs_.offset[n],
                                 nf * (recvs_.offset[n + 1] - recvs_.offset[n]), mpi_real(),
                                 rank_[n], opposite(dir_[n]), comm_, &requests_[size_t(n)]));
      pack(fields, space);
      if (staged_) Kokkos::deep_copy(space, head(stage_send_, cells), head(send_, cells));
      if (send == Send::Now) send_packed(fields.n, space);
    }
    active_ = fields;
    space_ = space;
    posted_ = true;
    sent_ = send == Send::Now;
  }

  /// Waits for the pack (and its copy to the host) on `space`, then posts every MPI_Isend.
  void send_packed(int nf, const E& space) {
    space.fence();
    const Real* sbase = staged_ ? stage_send_.data() : send_.data();
    for (int n = 0; n < sends_.count; ++n)
      SHWA_MPI_CHECK(MPI_Isend(sbase + nf * sends_.offset[n],
                               nf * (sends_.offset[n + 1] - sends_.offset[n]), mpi_real(),
                               rank_[n], dir_[n], comm_, &requests_[size_t(recvs_.count + n)]));
  }

  void finish(const FieldSet<E>& fields) {
    if (!posted_) throw std::logic_error("halo exchange ended without being begun");
    if (!fields.same_as(active_))
      throw std::invalid_argument("end_exchange given other fields than begin_exchange");
    const E space = space_;
    if (sends_.count > 0) {
      if (!sent_) {
        const Timer t(times_.post, "shwa::halo_post");
        send_packed(fields.n, space);
      }
      {
        const Timer t(times_.wait, "shwa::halo_wait");
        SHWA_MPI_CHECK(MPI_Waitall(int(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE));
      }
      // Work still queued on `space` is compute time (CommTimes): the interior's update where it
      // shares the band's instance (a GPU backend without streams of its own: OverlapSpaces).
      space.fence();
      const Timer t(times_.unpack, "shwa::halo_unpack");
      if (staged_) {
        const int cells = recvs_.cells(fields.n);
        Kokkos::deep_copy(space, head(recv_, cells), head(stage_recv_, cells));
      }
      unpack(fields, space);
      // The ghost layers are final for the caller, and the buffers free for the next exchange
      // (whose first act is to post receives into them).
      space.fence();
    }
    active_ = FieldSet<E>{};
    space_ = E();  // holds no stream of the caller's past the exchange
    posted_ = false;
  }

  Grid grid_;
  bool single_ = false;  // the only rank
  bool staged_ = false;
  bool posted_ = false;  // an exchange is in flight: begun, not ended
  bool sent_ = false;    // its sends are posted (Send::Now), else end_exchange posts them
  MPI_Comm comm_ = MPI_COMM_NULL;
  BandList sends_, recvs_;  // active neighbours, in the same order
  int rank_[kNumDirections] = {}, dir_[kNumDirections] = {};  // their ranks and directions
  Buffer send_, recv_;
  StageBuffer stage_send_, stage_recv_;
  std::vector<MPI_Request> requests_;  // receives, then sends
  CommTimes times_;
  FieldSet<E> active_;  // the fields of the exchange in flight
  E space_;             // and the instance its kernels and copies run on
};

}  // namespace shwa::comm
