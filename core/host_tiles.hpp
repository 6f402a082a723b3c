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
/// them out as TileTaker does, but each launch of it also meets all threads at a rendezvous first:
/// on 16 cores an empty launch took 28 us against 4 us for a static one.
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
/// read (a shared counter that handed consecutive tiles to different threads made the estuary's
/// update 5-15 % slower and the maxima pass 2x slower on 16 cores). A thread whose range is done
/// takes tiles one at a time from the back of the others' ranges. Lives on the launching thread's
/// stack: host launches return when their threads are done.
class TileTaker {
 public:
  TileTaker(int ntiles, int threads) : slots_(threads < 1 ? 1 : threads) {
    const int n = int(slots_.size());
    for (int r = 0; r < n; ++r)
      slots_[r].range.store(pack(int(long(ntiles) * r / n), int(long(ntiles) * (r + 1) / n)),
                            std::memory_order_relaxed);
  }
  TileTaker(const TileTaker&) = delete;
  TileTaker& operator=(const TileTaker&) = delete;

  /// Calls f(tile) for each tile thread `thread` takes, until none are left anywhere.
  template <class F>
  void take(int thread, const F& f) {
    const int n = int(slots_.size());
    for (int k = 0; k < n; ++k) {
      std::atomic<std::uint64_t>& range = slots_[(thread + k) % n].range;
      for (std::uint64_t v = range.load(std::memory_order_relaxed);;) {
        const int b = int(v & 0xffffffffu), e = int(v >> 32);
        if (b >= e) break;
        const int t = k == 0 ? b : e - 1;  // its own from the front, the others' from the back
        if (range.compare_exchange_weak(v, k == 0 ? pack(b + 1, e) : pack(b, e - 1), std::memory_order_relaxed))
          f(t), v = range.load(std::memory_order_relaxed);
      }
    }
  }

 private:
  static std::uint64_t pack(int begin, int end) { return std::uint64_t(std::uint32_t(begin)) | std::uint64_t(end) << 32; }
  struct alignas(64) Slot {  // a cache line each: its owner takes from it at every tile
    std::atomic<std::uint64_t> range;  // [begin, end): begin in the low half
  };
  std::vector<Slot> slots_;
};

/// The tiles of `box` in tiles of t.tx x t.ty.
inline int tile_count(const Box& box, const Tiling& t) {
  return ceil_div(box.nx(), t.tx) * ceil_div(box.ny(), t.ty);
}

}  // namespace detail

}  // namespace shwa
