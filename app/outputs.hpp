// shwa/app/outputs.hpp — the output formats of a run, each in its own file (output_*.cpp).
//
// At each output time the time loop builds a Frame: the derived fields (h, eta, u, v, c) of this
// rank's block and, on the root rank, of the whole grid gathered there. Formats that write one
// global file (ESRI ASCII, NetCDF, PNG) use the global fields on the root; VTK writes one piece
// per rank from the local fields, and the root writes the header joining them. With one block,
// local and global are the same cells.
#pragma once

#include "config.hpp"

#include "io/vtk.hpp"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace shwa::app {

using FieldMap = std::map<std::string, std::vector<double>>;

struct Frame {
  int index = 0;   // position in the output times (0: the initial state); -1: the maxima maps
  double time = 0;
  io::Grid grid;   // the whole domain
  io::Extent piece;  // this rank's block, in global cells
  std::vector<io::Extent> pieces;  // every rank's block (on the root)
  int rank = 0, ranks = 1;
  FieldMap local;   // this block's owned cells, row-major
  FieldMap global;  // the whole grid; only on the root rank
  bool root() const { return rank == 0; }
};

/// The derived fields of cells from the conserved ones: h; eta = h - H (NaN where dry, so GIS
/// tools and ParaView show dry land as no data); u = qx / h, v = qy / h, c = hc / h (0 where dry).
FieldMap derived_fields(const std::vector<double>& h, const std::vector<double>& qx, const std::vector<double>& qy,
                        const std::vector<double>& hc, const std::vector<double>& H, double eps_h);

class OutputFormat {
 public:
  virtual ~OutputFormat() = default;
  /// The state at output time frame.index.
  virtual void write(const Frame& frame) = 0;
  /// The maxima maps (fields hmax, cmax, arrival; arrival NaN where the pollutant never came).
  virtual void write_maxima(const Frame& frame) = 0;
  /// The run ended well: close files, reporting any error.
  virtual void finish() {}
};

/// Where a restart resumes: the time of the checkpoint (outputs up to it are kept).
using ResumeFrom = std::optional<double>;

std::unique_ptr<OutputFormat> make_asc_output(const RunConfig& cfg);
std::unique_ptr<OutputFormat> make_vtk_output(const RunConfig& cfg, ResumeFrom resume);
std::unique_ptr<OutputFormat> make_netcdf_output(const RunConfig& cfg, ResumeFrom resume,
                                                 const std::vector<double>& H_global);
std::unique_ptr<OutputFormat> make_png_output(const RunConfig& cfg);

/// The formats of cfg.out.formats, in the order listed.
std::vector<std::unique_ptr<OutputFormat>> make_outputs(const RunConfig& cfg, ResumeFrom resume,
                                                        const std::vector<double>& H_global);

/// "0007": the output index as file names spell it.
std::string frame_tag(int index);

}  // namespace shwa::app
