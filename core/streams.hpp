// shwa/core/streams.hpp — the two execution-space instances of an overlapped step (docs/kernels.md,
// "Overlap").
//
// A step that ends a halo cycle with overlap updates the band of owned cells that other blocks need,
// sends it, and updates the interior while it travels. On a GPU the band's work (its update, the
// pack, the staging copies, the unpack) and the interior's update go to two streams, so the
// interior runs while the band is packed, copied and sent. The band's stream has the higher
// priority: its work queued after the interior's (the unpack) takes multiprocessors first as the
// interior's teams leave them. Other backends get the default instance for both (host backends
// run a kernel to its end before the next starts).
#pragma once

#include <Kokkos_Core.hpp>

#include <memory>
#include <stdexcept>
#include <string>

namespace shwa {

/// The band's and the interior's instances of E. Distinct streams under CUDA; the default instance
/// for every other backend (distinct() says which). Construct after Kokkos::initialize, destroy
/// before Kokkos::finalize (as a View).
template <class E>
class OverlapSpaces {
 public:
  OverlapSpaces() = default;
  const E& band() const { return band_; }
  const E& interior() const { return interior_; }
  /// The band and the interior run on different streams.
  bool distinct() const { return false; }
  /// Waits for both.
  void fence() const {
    band_.fence();
    interior_.fence();
  }

 private:
  E band_, interior_;
};

#if defined(KOKKOS_ENABLE_CUDA)
template <>
class OverlapSpaces<Kokkos::Cuda> {
 public:
  OverlapSpaces() {
    int least = 0, greatest = 0;  // CUDA numbers higher priorities lower
    check(cudaDeviceGetStreamPriorityRange(&least, &greatest), "cudaDeviceGetStreamPriorityRange");
    // Non-blocking streams: CUDA does not order them with the legacy default stream, on which
    // Kokkos 3.x runs the default instance's work. The step orders them itself: its host has
    // waited for the default stream's work (the copy of the CFL pass's result to the host) before it queues work here, and it
    // waits for both streams before the step ends (Solver::step). (Blocking streams would also
    // make any legacy-stream work queued during the overlap wait for the whole interior.)
    band_ = std::make_unique<Owned>(greatest);
    interior_ = std::make_unique<Owned>(least);
  }
  const Kokkos::Cuda& band() const { return band_->space; }
  const Kokkos::Cuda& interior() const { return interior_->space; }
  bool distinct() const { return true; }
  void fence() const {
    band_->space.fence();
    interior_->space.fence();
  }

 private:
  static void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess)
      throw std::runtime_error(std::string(what) + " failed: " + cudaGetErrorString(e));
  }
  /// A stream and the Kokkos instance on it. Kokkos does not destroy a stream it was given: the
  /// instance goes first (its last copy), then the stream.
  struct Owned {
    cudaStream_t stream = nullptr;
    Kokkos::Cuda space;
    explicit Owned(int priority) : stream(create(priority)), space(stream) {}
    ~Owned() {
      space.fence();
      space = Kokkos::Cuda();
      cudaStreamDestroy(stream);
    }
    static cudaStream_t create(int priority) {
      cudaStream_t s = nullptr;
      check(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, priority),
            "cudaStreamCreateWithPriority");
      return s;
    }
  };
  std::unique_ptr<Owned> band_, interior_;
};
#endif

}  // namespace shwa
