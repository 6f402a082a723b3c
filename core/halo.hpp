// shwa/core/halo.hpp — what a step needs from the world outside its block.
//
// core/ knows nothing of MPI. A step asks an Exchanger to refresh the ghost layers that face other
// blocks and to reduce its time step over all blocks. The single-block implementation below does
// nothing; comm/ implements it with MPI.
#pragma once

#include "fields.hpp"

namespace shwa {

/// When begin_exchange sends: at once (it waits for the pack on its instance, then sends), or at
/// end_exchange (begin only posts the receives and queues the pack, so that the caller can queue
/// other work, on another instance, before the host waits).
enum class Send { Now, AtEnd };

template <class ExecSpace>
class Exchanger {
 public:
  virtual ~Exchanger() = default;
  /// Refreshes the ghost layers of the conserved fields that face other blocks.
  void exchange(const Conserved<ExecSpace>& w) {
    begin_exchange(w);
    end_exchange(w);
  }
  /// Split phase, for overlap: begin_exchange packs and sends the owned cells that other blocks
  /// need (`send`: at once, or at end_exchange); end_exchange waits for the neighbours' cells and
  /// fills the ghost layers. Between the two, the caller may update cells that neither send nor
  /// receive. Both phases' kernels and copies run on begin's instance `space`, and the exchange
  /// waits for that instance alone: the cells sent are those that the work queued on `space`
  /// before begin_exchange leaves (another instance may meanwhile update the interior).
  void begin_exchange(const Conserved<ExecSpace>& w, const ExecSpace& space = ExecSpace(),
                      Send send = Send::Now) {
    begin(w, space, send);
  }
  void end_exchange(const Conserved<ExecSpace>& w) { end(w); }
  /// Refreshes the ghost layers of one field (the bathymetry, the Manning field: once at setup).
  virtual void exchange_field(const Field<ExecSpace>& f) = 0;
  /// Minimum of a value over all blocks.
  virtual double min_all(double local) = 0;
  /// Sum of a value over all blocks (diagnostics).
  virtual double sum_all(double local) = 0;
  /// True when this block is the whole domain: min_all is the value itself, so the step need not
  /// bring the CFL step to the host before the update (Solver::step).
  virtual bool single_block() const { return false; }

 protected:
  virtual void begin(const Conserved<ExecSpace>& w, const ExecSpace& space, Send send) = 0;
  virtual void end(const Conserved<ExecSpace>& w) = 0;
};

/// One block covers the whole domain: nothing to exchange.
template <class ExecSpace>
class SingleBlock final : public Exchanger<ExecSpace> {
 public:
  void exchange_field(const Field<ExecSpace>&) override {}
  double min_all(double local) override { return local; }
  double sum_all(double local) override { return local; }
  bool single_block() const override { return true; }

 protected:
  void begin(const Conserved<ExecSpace>&, const ExecSpace&, Send) override {}
  void end(const Conserved<ExecSpace>&) override {}
};

}  // namespace shwa
