// shwa/app/outputs.hpp — the output formats of a run, each in its own file (output_*.cpp).
//
// At each output time the time loop builds a Frame: the derived fields (h, eta, u, v, c) of this
// rank's block and, on the root rank of several, of the whole grid gathered there. Formats that
// write one global file (ESRI ASCII, NetCDF, PNG) use the whole grid's fields on the root
// (Frame::whole); VTK writes one piece per rank from the local fields, and the root writes the
// header joining them. With one block, the block's fields are the whole grid's: none are gathered.
//
// NetCDF and PNG need libraries that a build may lack (cmake/output-formats.cmake); output_formats()
// says which formats this build has, and a deck asking for a missing one is refused before the run.
#pragma once

#include "config.hpp"
#include "host_values.hpp"

#include "io/deck.hpp"
#include "io/vtk.hpp"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace shwa::app {

using FieldMap = std::map<std::string, HostValues>;

struct Frame {
  int index = 0;   // position in the output times (0: the initial state); -1: the maxima maps
  double time = 0;
  Domain grid;   // the whole domain
  Extent piece;  // this rank's block, in global cells
  std::vector<Extent> pieces;  // every rank's block (on the root)
  int rank = 0, ranks = 1;
  FieldMap local;   // this block's owned cells, row-major
  FieldMap global;  // the whole grid, on the root rank of several; empty with one rank
  bool root() const { return rank == 0; }
  /// The whole grid's field `name` (on the root): with one rank, the block's.
  const HostValues& whole(const std::string& name) const {
    return ranks == 1 ? local.at(name) : global.at(name);
  }
};

/// The concentration every output gives a cell: c = hc / h wherever the cell holds water (h at
/// least kMinDepthForC, the rule of the solver's make_cell_prim in core/roe.hpp), so that a film
/// below eps_h shows the pollutant it carries; 0 in a cell without water.
inline double concentration(double h, double hc) { return h >= double(kMinDepthForC) ? hc / h : 0.0; }

/// What an output field of a cell is computed from: the conserved values, the bottom and the
/// depth below which the cell is dry.
struct CellValues {
  double h, qx, qy, hc;  // water depth, discharges, one pollutant's mass per area
  double H;              // bottom depth below the reference level
  double eps_h;          // dry below this depth
};

/// A field of output.fields: what the frames hold, each format writes and gauges.csv samples.
struct OutputFieldInfo {
  std::string name;         // as output.fields and gauges.csv spell it
  std::string description;  // one line, for `shwa info` (inputs/README.md lists the same names)
  std::string units, long_name, standard_name;  // NetCDF's CF attributes ("" where no name fits)
  double (*value)(const CellValues& cell);       // the field's value in one cell
  bool per_pollutant = false;  // one field a pollutant, named pollutant_field(name, pollutant)
};

/// The one list of output fields, in the order of output.fields' default and of gauges.csv's
/// columns: h; eta = h - H (NaN where dry, so GIS tools and ParaView show dry land as no data);
/// u = qx / h, v = qy / h (0 where dry, below eps_h); c = concentration(h, hc).
const std::vector<OutputFieldInfo>& output_fields();

/// The names of output_fields(), in order.
std::vector<std::string> output_field_names();

/// The entry of output_fields() named `name`; throws std::logic_error for another name (the deck
/// check refuses it first).
const OutputFieldInfo& output_field(const std::string& name);

/// A field as a run's files name it: an entry of output_fields() and, for a per-pollutant entry,
/// the pollutant it shows.
struct RunField {
  std::string name;  // "h", "c", "c_oil" (pollutant_field)
  const OutputFieldInfo* info = nullptr;
  int pollutant = -1;        // the index in RunConfig::pollutants of a per-pollutant field
  std::string long_name;     // info's, with " (NAME)" for a named pollutant's field
};

/// The fields `names` (of output_fields()) as a run carrying `pollutants` (RunConfig::pollutants)
/// writes them: a per-pollutant field once a pollutant, in the pollutants' order.
std::vector<RunField> run_fields(const std::vector<std::string>& names, const std::vector<std::string>& pollutants);

/// The names of run_fields(names, pollutants), in order.
std::vector<std::string> run_field_names(const std::vector<std::string>& names,
                                         const std::vector<std::string>& pollutants);

/// The maxima maps of a run carrying `pollutants`: hmax, then each pollutant's cmax and arrival
/// (pollutant_field).
std::vector<std::string> maxima_names(const std::vector<std::string>& pollutants);

/// Every field of run_fields(output_field_names(), pollutants) over cells from the conserved ones
/// (row-major arrays of one size; hc[p] is pollutant p's mass per area), into `out` (the storage of
/// the fields it holds reused).
void derived_fields(const HostValues& h, const HostValues& qx, const HostValues& qy, const std::vector<HostValues>& hc,
                    const HostValues& H, double eps_h,
                    const std::vector<std::string>& pollutants, FieldMap& out);

/// How a run's outputs end: the run reached time.end, or it stopped early (a signal,
/// numerics.max_steps) and a restart goes on.
enum class RunEnd { Complete, Stopped };

class OutputFormat {
 public:
  virtual ~OutputFormat() = default;
  /// The state at output time frame.index.
  virtual void write(const Frame& frame) = 0;
  /// The maxima maps (the fields maxima_names() lists; arrival NaN where the pollutant never came).
  virtual void write_maxima(const Frame& frame) = 0;
  /// The run ended (`end`): close files, reporting any error; what belongs to a whole run
  /// (the PNG animations) only where it is Complete.
  virtual void finish(RunEnd end) { (void)end; }
};

/// Where a restart resumes: the time of the checkpoint (outputs up to it are kept).
using ResumeFrom = std::optional<double>;

std::unique_ptr<OutputFormat> make_asc_output(const RunConfig& cfg);
std::unique_ptr<OutputFormat> make_vtk_output(const RunConfig& cfg, ResumeFrom resume);
#if SHWA_HAVE_NETCDF
std::unique_ptr<OutputFormat> make_netcdf_output(const RunConfig& cfg, ResumeFrom resume,
                                                 const HostValues& H_global);
/// The records of OUTPUT_DIR/shwa.nc that a restart at `up_to` keeps, checked whole and in
/// increasing time (io::NetcdfWriter::resumable_records); writes nothing.
std::size_t netcdf_resumable_records(const RunConfig& cfg, double up_to);
#endif
#if SHWA_HAVE_PNG
/// `root`: this rank writes the images (rank 0, which holds the gathered fields).
std::unique_ptr<OutputFormat> make_png_output(const RunConfig& cfg, bool root);
#endif

/// A format's writer for a run: the configuration, where a restart resumes, and the bottom depth
/// of the whole grid (on the root rank; empty elsewhere).
using OutputFactory = std::unique_ptr<OutputFormat> (*)(const RunConfig& cfg, ResumeFrom resume,
                                                        const HostValues& H_global);

/// An output format of output.formats, and whether this build has it.
struct OutputFormatInfo {
  std::string name;         // as output.formats spells it
  std::string description;  // for `shwa info`
  bool available = false;   // built in: its library was found when shwa was configured
  std::string to_enable;    // where not available: what builds it ("install libpng-dev, then ...")
  bool by_default = false;  // in output.formats' default, where available
  OutputFactory make = nullptr;  // null where not available
};

/// The one list of output formats: every format shwa knows, in the order `shwa info` lists them,
/// with its availability in this build (SHWA_HAVE_NETCDF, SHWA_HAVE_PNG) and its factory.
const std::vector<OutputFormatInfo>& output_formats();

/// output.formats of the deck, checked against `table` (tests pass one of their own): a name not
/// in the table is refused naming the closest; a format the table marks unavailable is refused
/// with one line "FILE:LINE: output.formats: ..." naming the format and what enables it. Unset,
/// the key defaults to the table's default formats that are available.
std::vector<std::string> read_output_formats(io::Deck& d, const std::vector<OutputFormatInfo>& table = output_formats());

/// The writers of cfg.out.formats, in the order listed.
std::vector<std::unique_ptr<OutputFormat>> make_outputs(const RunConfig& cfg, ResumeFrom resume,
                                                        const HostValues& H_global);

/// "0007": the output index as file names spell it.
std::string frame_tag(int index);

}  // namespace shwa::app
