// shwa/core/host_tiles.hpp — how the host passes (the update, the CFL pass, the app's maxima) hand
// their tiles to threads (docs/kernels.md, "Load balance").
#pragma once

#include "types.hpp"

#include <atomic>
#include <cstdint>
#include <vector>

namespace shwa {

namespace detail {

inline int ceil_div(int a, int b) { return (a + b - 1) / b; }

/// The host sweeps' launch: one team of one thread for each host thread, a static schedule. The
/// threads then share the tiles out themselves (TileTaker). Kokkos' own dynamic schedule shares
/// them out much as TileTaker does, but each launch of it first meets all threads at a
/// rendezvous, which costs several times a static launch (docs/kernels.md, "Load balance").
template <class E>
using HostTilePolicy = Kokkos::TeamPolicy<E>;

template <class E>
HostTilePolicy<E> host_tile_policy() {
  return HostTilePolicy<E>(E().concurrency(), 1);
}

/// Tiles 0 .. ntiles - 1 shared out among `threads` threads as they come free: a tile of skipped
/// dry land takes no time, so fixed shares would leave the threads that hold the water doing the
/// work. Each thread starts with an equal contiguous range and takes its tiles one at a time from
/// its front, in order, so that a thread's next tile continues the rows of memory its last one
/// read (a counter shared by all threads, handing consecutive tiles to different threads, is
/// slower). A thread whose range is done takes the back half of another's and goes on with it as
/// its own. Lives on the launching thread's stack: host launches return when their threads are
/// done. Up to kInline threads its ranges live there too, so that a pass allocates nothing.
class TileTaker {
 public:
  static constexpr int kInline = 64;

  TileTaker(int ntiles, int threads) : n_(threads < 1 ? 1 : threads) {
    if (n_ > kInline) heap_ = std::vector<Slot>(n_);
    slots_ = n_ > kInline ? heap_.data() : inline_;
    const int n = n_;
    for (int r = 0; r < n; ++r)
      slots_[r].range.store(pack(int(long(ntiles) * r / n), int(long(ntiles) * (r + 1) / n)),
                            std::memory_order_relaxed);
  }
  TileTaker(const TileTaker&) = delete;
  TileTaker& operator=(const TileTaker&) = delete;

  /// The next tile of thread `thread` (0 <= thread < threads), or -1 once it finds every range
  /// empty: the front of its own range, else the front of the back half of another's, which it
  /// takes as its own. Ranges only shrink, except a thread's own empty one, which it refills with
  /// tiles no one else holds and then takes unless others do: every tile is taken once, whenever
  /// each thread stops. Kernels loop over next() with their tile's body inline: a body in a
  /// nested closure reads its constants through references, which costs instructions.
  int next(int thread) {
    const int n = n_;
    std::atomic<std::uint64_t>& own = slots_[thread].range;
    for (;;) {
      for (std::uint64_t v = own.load(std::memory_order_relaxed);;) {
        const int b = begin(v), e = end(v);
        if (b >= e) break;
        if (own.compare_exchange_weak(v, pack(b + 1, e), std::memory_order_relaxed)) return b;
      }
      bool stole = false;
      for (int k = 1; k < n && !stole; ++k) {
        std::atomic<std::uint64_t>& other = slots_[(thread + k) % n].range;
        for (std::uint64_t v = other.load(std::memory_order_relaxed);;) {
          const int b = begin(v), e = end(v);
          if (b >= e) break;
          const int mid = b + (e - b) / 2;  // [mid, e): all of a last tile
          if (other.compare_exchange_weak(v, pack(b, mid), std::memory_order_relaxed)) {
            own.store(pack(mid, e), std::memory_order_relaxed);
            stole = true;
            break;
          }
        }
      }
      if (!stole) return -1;
    }
  }

 private:
  static std::uint64_t pack(int begin, int end) { return std::uint64_t(std::uint32_t(begin)) | std::uint64_t(end) << 32; }
  static int begin(std::uint64_t v) { return int(v & 0xffffffffu); }
  static int end(std::uint64_t v) { return int(v >> 32); }
  struct alignas(64) Slot {  // a cache line each: its owner takes from it at every tile
    std::atomic<std::uint64_t> range;  // [begin, end): begin in the low half
  };
  int n_;
  Slot inline_[kInline];
  std::vector<Slot> heap_;
  Slot* slots_;
};

/// The tiles of `box` in tiles of t.tx x t.ty.
inline int tile_count(const Box& box, const Tiling& t) {
  return ceil_div(box.nx(), t.tx) * ceil_div(box.ny(), t.ty);
}

}  // namespace detail

}  // namespace shwa
