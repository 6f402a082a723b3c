// shwa/core/halo.hpp — what a step needs from the world outside its block.
//
// core/ knows nothing of MPI. A step asks an Exchanger to refresh the ghost layers that face other
// blocks and to reduce its time step over all blocks. The single-block implementation below does
// nothing; comm/ implements it with MPI.
#pragma once

#include "fields.hpp"

namespace shwa {

template <class ExecSpace>
class Exchanger {
 public:
  virtual ~Exchanger() = default;
  /// Refreshes the ghost layers of the conserved fields that face other blocks.
  void exchange(const Conserved<ExecSpace>& w) {
    begin_exchange(w);
    end_exchange(w);
  }
  /// Split phase, for overlap: begin_exchange sends the owned cells that other blocks need;
  /// end_exchange waits and fills the ghost layers. Between the two, the caller may update cells
  /// that neither send nor receive. The exchange's kernels and copies run on the instance `space`,
  /// and it waits for that instance alone: the cells sent must be final once the work queued on
  /// `space` before begin_exchange is done (another instance may meanwhile update the interior).
  void begin_exchange(const Conserved<ExecSpace>& w, const ExecSpace& space = ExecSpace()) {
    begin(w, space);
  }
  void end_exchange(const Conserved<ExecSpace>& w, const ExecSpace& space = ExecSpace()) {
    end(w, space);
  }
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
  virtual void begin(const Conserved<ExecSpace>& w, const ExecSpace& space) = 0;
  virtual void end(const Conserved<ExecSpace>& w, const ExecSpace& space) = 0;
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
  void begin(const Conserved<ExecSpace>&, const ExecSpace&) override {}
  void end(const Conserved<ExecSpace>&, const ExecSpace&) override {}
};

}  // namespace shwa
