// shwa/core/compat.hpp — what differs between the Kokkos versions shwa builds with (3.4 on), in
// one place: the arguments of Kokkos::initialize and the host mirror type of a View. (The math
// functions' namespace is in math.hpp.)
#pragma once

#include <Kokkos_Core.hpp>

#include <utility>

namespace shwa {

/// What shwa asks of Kokkos::initialize; -1: Kokkos' default.
struct KokkosOptions {
  int threads = -1;  // host threads
  int device = -1;   // the GPU
  bool disable_warnings = false;
};

#if KOKKOS_VERSION >= 30700
using KokkosSettings = Kokkos::InitializationSettings;
#else
using KokkosSettings = Kokkos::InitArguments;
#endif

/// The argument of Kokkos::initialize and Kokkos::ScopeGuard for o: InitializationSettings from
/// Kokkos 3.7 on, InitArguments (removed in 4.0) before.
inline KokkosSettings kokkos_settings(const KokkosOptions& o) {
#if KOKKOS_VERSION >= 30700
  KokkosSettings s;
  if (o.threads > 0) s.set_num_threads(o.threads);
  if (o.device >= 0) s.set_device_id(o.device);
  s.set_disable_warnings(o.disable_warnings);
  return s;
#else
  return KokkosSettings(o.threads, -1, o.device, o.disable_warnings);
#endif
}

/// The host mirror type of View type V: what create_mirror_view returns (V::HostMirror up to
/// Kokkos 4, V::host_mirror_type from 4 on; HostMirror is deprecated in 5).
template <class V>
using HostMirror = decltype(Kokkos::create_mirror_view(std::declval<const V&>()));

}  // namespace shwa
