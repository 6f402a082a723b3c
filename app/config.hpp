// shwa/app/config.hpp — a run's whole configuration, read from a deck and validated before
// anything is written.
//
// load_config() reads every key through io::Deck (so a typo is an error naming the closest key,
// and values must parse completely and lie in range), loads every raster and time series the
// deck names, builds the initial state of this rank's block on the host (its checks look at every
// cell of the grid), and checks that the output directory can be created and written. Only then does `shwa run` create a file. The deck schema
// is documented in inputs/README.md.
#pragma once

#include "host_values.hpp"
#include "resources.hpp"

#include "params.hpp"

#include "io/deck.hpp"
#include "io/gauges.hpp"
#include "domain.hpp"
#include "io/vtk.hpp"

#include <array>
#include <functional>
#include <map>
#include <optional>
#include <utility>
#include <string>
#include <vector>

namespace shwa::app {

// Physical plausibility (inputs/README.md): values beyond these are typing errors or units
// mixed up, and would give time steps of 1e-150 s or spacings that overflow, not a flow.
constexpr double kMinSpacing = 1e-4;   // grid.dx, grid.dy [m]
constexpr double kMaxSpacing = 1e7;    // grid.dx, grid.dy [m]
constexpr double kMaxGravity = 1000;   // physics.g [m/s^2]
constexpr double kMaxElevation = 1e5;  // |bottom| below or above the reference level [m]
constexpr double kMaxDepth = 1e5;      // initial water depth [m]
constexpr double kMaxStage = 1e5;      // |boundary stage| above or below the reference level [m]
constexpr double kMaxDischarge = 1e8;  // boundary discharge over a side or segment [m^3/s]

/// A boundary type of boundary.SIDE.type (and of a segment's type): the kernel that fills the
/// ghost cells is core's (core/boundary.hpp, BcType); what a deck gives it is read here.
struct BoundaryTypeInfo {
  std::string name;         // as the deck spells it
  BcType type;
  std::string description;  // one line, for `shwa info` (inputs/README.md lists the same names)
  /// Reads the type's values of the side or segment whose keys start with `p`
  /// ("boundary.west", "boundary.west.segments.river") into seg, for a run carrying `pollutants`
  /// (RunConfig::pollutants) from t = 0 to `t_end`, which a series must cover. Null for a type
  /// without values, which a side takes as its default; a side of a type with values is one
  /// segment over its whole length.
  void (*read_values)(io::Deck& d, const std::string& p, const std::vector<std::string>& pollutants, double t_end,
                      BcSegment& seg);
};

/// The one list of boundary types, in the order `shwa info` and inputs/README.md list them.
const std::vector<BoundaryTypeInfo>& boundary_types();

/// The entry of boundary_types() of `type`.
const BoundaryTypeInfo& boundary_type(BcType type);

/// The initial values of one cell.
struct InitialCell {
  double H = 0;  // bottom depth below the reference level, positive down [m]
  double h = 0;  // water depth [m]
  double u = 0, v = 0;
  std::array<double, kMaxTracers> c{};  // each pollutant's concentration, in RunConfig::pollutants' order
  double n = -1;  // Manning's n; < 0: the constant physics.manning
};

/// The initial state of any cell (i, j) of the whole grid (j = 0 the southern row), as a built-in
/// problem or the rasters define it. load_config evaluates it over the whole grid for its checks
/// and keeps the values of this rank's block.
struct InitialField {
  std::function<void(int i, int j, InitialCell& cell)> at;
  bool manning = false;  // the cells have their own n (a Manning raster)
};

/// The initial fields of this rank's block of the grid, row-major within the block
/// (index(i, j)), and figures of the whole grid's.
struct InitialState {
  Extent block;       // the cells held: [i0, i1) x [j0, j1) in global indices
  HostValues H;  // bottom depth below the reference level, positive down [m]
  HostValues h;  // water depth [m]
  HostValues u, v;
  std::vector<HostValues> c;  // c[p]: pollutant p's concentration
  HostValues n;  // Manning's n per cell; empty: the constant physics.manning
  double h_max = 0;           // the greatest depth of the whole grid
  std::vector<double> c_max;  // c_max[p]: pollutant p's greatest concentration over the whole grid

  /// Whether the global cell (i, j) is held, and where its values are.
  bool holds(int i, int j) const { return i >= block.i0 && i < block.i1 && j >= block.j0 && j < block.j1; }
  std::size_t index(int i, int j) const {
    return std::size_t(j - block.j0) * std::size_t(block.nx()) + std::size_t(i - block.i0);
  }
};

/// The name of a per-pollutant quantity `base` ("c", "cmax", "arrival", "concentration") of
/// `pollutant` in files, columns and records: `base` itself for the unnamed pollutant of a deck
/// without [pollutants], else "base_NAME" ("c_oil").
inline std::string pollutant_field(const std::string& base, const std::string& pollutant) {
  return pollutant.empty() ? base : base + "_" + pollutant;
}

/// An exact solution of a built-in problem: depth and velocity at (x, y, t).
using ExactSolution = std::function<void(double x, double y, double t, double& h, double& u, double& v)>;

struct OutputConfig {
  std::string dir;
  std::vector<std::string> formats;  // of output_formats() (outputs.hpp), each in this build
  std::vector<std::string> fields;   // of "h", "eta", "u", "v", "c"
  std::vector<double> times;         // increasing; the first is the start, the last the end time
  bool maxima = true;
  double arrival_threshold = 1e-3;   // concentration whose first arrival is mapped
  std::vector<io::GaugePoint> gauges;
  double gauge_interval = 0;         // simulated seconds between gauge samples; 0: every step
  double png_depth_max = 0;          // colour scale tops; 0: from the initial state
  double png_c_max = 0;
  int png_scale = 1;
  bool png_animation = true;         // png/{depth,concentration}_animation.png at the end (APNG)
  bool single_precision = false;     // output.precision = "single": VTK and NetCDF arrays as 32-bit floats
  bool vtk_zlib = false;             // output.vtk_compression = "zlib": VTK arrays in zlib blocks
  bool checkpoint_zlib = false;      // output.checkpoint_compression = "zlib": checkpoint arrays in zlib blocks
  double progress_interval = 10;     // wall seconds between progress lines when not on a terminal
  /// The grid's coordinate reference system as WKT (a .prj file's text, io::read_projection),
  /// written beside each .asc and into shwa.nc; "" where the deck gives none.
  std::string projection;
  std::string projection_file;  // the .prj it came from

  bool has_format(const std::string& f) const;
};

/// [parallel]: how an MPI run splits the grid (one block per rank) and exchanges halos.
struct ParallelConfig {
  std::string decomposition = "auto";  // "auto", "strips" or "forced" (px x py)
  int px = 0, py = 0;                  // forced: blocks along x and y
  int halo_width = 1;                  // k: ghost layers, exchanged every k steps
  bool overlap = true;                 // update the interior while the halos travel
  std::string transport = "auto";      // "auto", "direct" or "staged"
  /// "auto", "strips" or "PX x PY".
  std::string describe() const;
};

/// What defines a run: its checkpoints record it and a restart compares it (checkpointing.hpp).
struct RunDefinition {
  std::map<std::string, std::string> values;  // every deck key set or defaulted: io::Deck::values()
  std::map<std::string, std::string> where;   // the same keys: "deck.toml:12", "command line", "default"
  std::map<std::string, std::string> files;   // the keys that name input files: the file's path
};

struct RunConfig {
  std::string deck_path;
  std::string problem;  // a built-in problem's name, or "files"
  /// The pollutants, in the solver's tracer order (params.tracers of them): the names of a deck's
  /// [pollutants.NAME] tables, sorted; {""}, one unnamed pollutant, for a deck without them.
  std::vector<std::string> pollutants{""};
  Domain grid;        // the whole domain
  SolverParams params;
  Boundaries bc;
  InitialState init;
  ExactSolution exact;  // empty unless the problem has one

  double t_end = 0;
  double checkpoint_interval = 0;  // simulated seconds; 0: no checkpoints
  int health_interval = 10;        // steps between NaN / clipped-volume checks
  double max_clipped_fraction = 1e-3;  // of the initial volume, before the run is declared blown up
  double max_steps = 1e8;              // the most steps of the run, a restart's included
  OutputConfig out;
  ParallelConfig parallel;
  std::string resolved_deck;  // TOML of every key set or defaulted
  RunDefinition definition;
  /// What load_config estimated this rank needs and found available (not set when the check
  /// is off).
  std::optional<MemoryEstimate> memory;
  MemoryAvailable memory_available;
};

/// How load_config sizes a run against the machine before it builds the initial state
/// (resources.hpp): the run's ranks and decomposition, and what the machine has.
struct LoadOptions {
  bool check_memory = true;  // refuse a run whose memory estimate exceeds what is available
  bool restart = false;      // the run reads a checkpoint
  NodeShare node;            // the ranks sharing this rank's node
  bool root = true;          // this is rank 0
  /// Blocks along x and y of the run's decomposition (cfg's grid and [parallel] are read);
  /// throws io::InputError if there is none. Empty: one block.
  std::function<std::pair<int, int>(const RunConfig& cfg)> dims;
  /// What the machine has. Empty: available_memory().
  std::function<MemoryAvailable()> available;
  /// This rank's block of the decomposition (cfg's grid and [parallel] read), whose initial state
  /// it keeps; throws io::InputError if there is no decomposition. Empty: the whole grid.
  std::function<Extent(const RunConfig& cfg)> block;
};

/// Reads and validates the whole configuration. Throws io::InputError "FILE:LINE: KEY: message"
/// (or io::OutputError for an output directory that cannot be written). Before the initial state
/// is built (the first allocation in proportion to the grid), the memory the run needs is
/// estimated and a run that does not fit is refused (numerics.memory_check = false skips it).
RunConfig load_config(io::Deck& deck, const std::string& deck_path, const LoadOptions& opt = {});

/// The estimate of the memory a rank of `cfg` needs (cfg's grid, outputs, gauges and [parallel]
/// read; its initial state need not be built): `root` for rank 0, which gathers whole fields.
/// `rasters` are the files the initial state reads.
MemoryEstimate estimate_run_memory(const RunConfig& cfg, const std::vector<std::string>& rasters, bool manning_field,
                                   int px, int py, bool root, bool restart);

/// The multiples k x interval of a time interval, as the deck's decimal numbers mean them: where
/// the interval is a decimal a / 10^d (a below 10^7), the k-th is k a / 10^d, the double nearest
/// the decimal multiple (3 x 0.1 is 0.3, not the 0.30000000000000004 that k x 0.1 gives); else
/// k x interval, as it is where k a passes 2^53 (no longer exact in a double).
class DecimalMultiples {
 public:
  explicit DecimalMultiples(double interval);
  double operator()(long long k) const {
    return num_ > 0 && k <= max_k_ ? double(k * num_) / den_ : double(k) * interval_;
  }
  /// The least k >= 0 with (*this)(k) > t, for 0 <= t < 1e15 x interval.
  long long first_after(double t) const;
  /// The first multiple after t (t >= 0): (*this)(first_after(t)), or where t is 1e15 intervals
  /// or more, (floor(t / interval) + 1) x interval.
  double next_after(double t) const;

 private:
  double interval_;
  long long num_ = 0;  // the interval as num_ / den_ (a power of 10); 0: not so
  double den_ = 1;
  long long max_k_ = 0;  // the largest k whose k num_ a double holds exactly
};

/// Throws io::OutputError unless `dir` exists as a writable directory or can be created (its
/// nearest existing ancestor is a writable directory). Creates nothing.
void check_output_dir(const std::string& dir, const io::Deck& deck, const std::string& key);

}  // namespace shwa::app
