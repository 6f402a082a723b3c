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

/// tile_policy for a pass of cheap tiles (the CFL pass, the app's maxima): threads take up to 16
/// tiles at a time, keeping at least 4 takes a thread. Kokkos' own choice, a few tiles a take,
/// suits the update; a CFL pass whose tiles are mostly skipped dry land spent most of its time on
/// many threads in contended takes (docs/kernels.md, "Load balance"; perf/results/, session 16).
template <class E>
HostTilePolicy<E> cheap_tile_policy(const Box& box, const Tiling& t) {
  HostTilePolicy<E> p = tile_policy<E>(box, t, 1);
  const long per_take = long(p.league_size()) / (4L * E().concurrency());
  int chunk = 1;
  while (chunk < 16 && 2 * chunk <= per_take) chunk *= 2;
  return p.set_chunk_size(chunk);
}

}  // namespace detail

}  // namespace shwa
