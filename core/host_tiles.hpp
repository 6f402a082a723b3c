// shwa/core/host_tiles.hpp — how the host passes (the update, the CFL pass, the app's maxima) hand
// their tiles to threads (docs/kernels.md, "Load balance").
#pragma once

#include "types.hpp"

namespace shwa {

namespace detail {

inline int ceil_div(int a, int b) { return (a + b - 1) / b; }

/// The host sweeps' tiles, handed out to threads as they come free: a tile of skipped dry land
/// takes no time, so contiguous shares would leave the threads that hold the water doing the work.
template <class E>
using HostTilePolicy = Kokkos::TeamPolicy<E, Kokkos::Schedule<Kokkos::Dynamic>>;

template <class E>
HostTilePolicy<E> tile_policy(const Box& box, const Tiling& t, int team_size) {
  const int ntiles = ceil_div(box.nx(), t.tx) * ceil_div(box.ny(), t.ty);
  return HostTilePolicy<E>(ntiles, team_size);
}

/// The tiles a take of a pass of `ntiles` cheap tiles (the CFL pass, the app's maxima): up to 16,
/// keeping at least 4 takes a thread. Kokkos' own choice, a few tiles a take, suits the update; a
/// CFL pass spent most of its time on many threads in contended takes (docs/kernels.md, "Load
/// balance"; perf/results/, sessions 16 and 32).
template <class E>
int cheap_chunk(long ntiles) {
  const long per_take = ntiles / (4L * E().concurrency());
  int chunk = 1;
  while (chunk < 16 && 2 * chunk <= per_take) chunk *= 2;
  return chunk;
}

/// tile_policy for a pass of cheap tiles: cheap_chunk tiles a take.
template <class E>
HostTilePolicy<E> cheap_tile_policy(const Box& box, const Tiling& t) {
  HostTilePolicy<E> p = tile_policy<E>(box, t, 1);
  return p.set_chunk_size(cheap_chunk<E>(p.league_size()));
}

/// The tiles a host pass runs, numbered row-major over its box: every tile, or the ones listed by
/// list_tiles. A pass maps its k-th team to tile (*this)(k).
struct HostTiles {
  Kokkos::View<int*, Kokkos::HostSpace> ids;  // the listed tiles, in order (when `listed`)
  int count = 0;
  bool listed = false;
  KOKKOS_INLINE_FUNCTION int operator()(int k) const { return listed ? ids(k) : k; }
};

/// The tiles t < ntiles for which active(t) holds, in order, listed in `buffer` (grown where it
/// has too little room, else reused). A pass that skips dry land runs only these, so that a tile it
/// would skip costs no take from the dynamic schedule: taking skipped tiles a few at a time, 16
/// threads spent a CFL pass contending for the next take, and taking 16 at a time leaves the
/// water's tiles badly shared out (docs/kernels.md, "Load balance"). The flags are computed in
/// parallel (a static schedule: each costs about the same), the list is compacted in place.
template <class E, class Active>
HostTiles list_tiles(int ntiles, Kokkos::View<int*, Kokkos::HostSpace>& buffer, const Active& active) {
  if (int(buffer.extent(0)) < ntiles)
    buffer = Kokkos::View<int*, Kokkos::HostSpace>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "shwa::tile_list"),
                                                   ntiles);
  const Kokkos::View<int*, Kokkos::HostSpace> flags = buffer;
  Kokkos::parallel_for("shwa::list_tiles", Kokkos::RangePolicy<E>(0, ntiles),
                       [=](const int t) { flags(t) = active(t) ? 1 : 0; });
  E().fence();
  int n = 0;
  for (int t = 0; t < ntiles; ++t)
    if (flags(t)) flags(n++) = t;  // n <= t: in place
  return HostTiles{buffer, n, true};
}

/// The policy of a pass over `tiles`: a team of one thread a tile, handed out as threads come
/// free, Kokkos' few at a time, or cheap_chunk at a time for a pass of `cheap` tiles.
template <class E>
HostTilePolicy<E> host_tile_policy(const HostTiles& tiles, bool cheap) {
  HostTilePolicy<E> p(tiles.count, 1);
  return cheap ? p.set_chunk_size(cheap_chunk<E>(tiles.count)) : p;
}

}  // namespace detail

}  // namespace shwa
