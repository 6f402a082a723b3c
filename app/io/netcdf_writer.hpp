#pragma once
// NetCDF output following the CF conventions (CF-1.8), readable by xarray, ParaView's NetCDF CF
// reader and ncview: dimensions time (unlimited), y, x; coordinate variables at the cell centres
// with units and axis attributes; data variables (time, y, x) with units and long_name; one time
// record appended per output.
//
// The file uses the classic 64-bit-offset format, which needs no HDF5 and is synced after every
// record: a run killed between outputs leaves a file holding every record written so far.

#include <string>
#include <utility>
#include <vector>

#include "io/field.hpp"
#include "domain.hpp"

namespace shwa::io {

struct VariableInfo {
  std::string name;
  std::string units;
  std::string long_name;
  std::string standard_name;  // CF standard name, "" if none fits
};

// The metadata of the static fields shwa writes (H, hmax, cmax, arrival) and of the discharges
// (qx, qy); for another name, just the name. The output fields' come with them (app/outputs.hpp).
VariableInfo describe_field(const std::string& name);

struct NetcdfLayout {
  Domain grid;
  ScalarType type = ScalarType::float64;
  std::vector<VariableInfo> fields;        // (time, y, x): one record per append()
  std::vector<VariableInfo> static_fields;  // (y, x): written once with write_static()
  std::vector<std::pair<std::string, std::string>> attributes;  // extra global attributes
  // The grid's coordinate reference system as WKT (a .prj's text), or "": where given, a CF
  // grid-mapping variable "crs" holds it (crs_wkt, and spatial_ref, which GDAL reads), and every
  // data variable names it (grid_mapping = "crs").
  std::string projection;
};

class NetcdfWriter {
 public:
  // Creates (or replaces) the file. Throws OutputError if it cannot be written.
  NetcdfWriter(const std::string& path, const NetcdfLayout& layout);
  // Reopens a file that an earlier run with the same layout wrote, to continue after a restart
  // at time `up_to`: the next record overwrites the first one later than `up_to`. Throws
  // InputError if the file's grid or variables differ from `layout`.
  static NetcdfWriter resume(const std::string& path, const NetcdfLayout& layout, double up_to);
  // The records a resume at `up_to` keeps (those of time <= up_to), counted, writing nothing. The
  // file must exist with `layout`, every record kept must be whole on disk (its header's record
  // count against the bytes the file holds) and the times of its whole records must increase.
  // Throws InputError naming the file and what is wrong.
  static std::size_t resumable_records(const std::string& path, const NetcdfLayout& layout, double up_to);

  NetcdfWriter(NetcdfWriter&& other) noexcept;
  NetcdfWriter& operator=(NetcdfWriter&&) = delete;
  NetcdfWriter(const NetcdfWriter&) = delete;
  NetcdfWriter& operator=(const NetcdfWriter&) = delete;
  ~NetcdfWriter();

  // Appends one record: `fields` must give each of layout.fields exactly once, in any order,
  // with grid.nx * grid.ny values of the layout's type, or doubles where the layout's type is
  // float32 (each stored as the nearest float).
  void append(double time, const std::vector<FieldRef>& fields);
  // Writes one of layout.static_fields.
  void write_static(const FieldRef& field);

  std::size_t records() const { return record_; }
  // Closes the file (the destructor does it too, but cannot report an error).
  void close();

 private:
  NetcdfWriter(std::string path, const NetcdfLayout& layout, int ncid);
  // The id of the layout's variable for `field`, checked to be declared and of a type it takes.
  int variable(const FieldRef& field, bool time_dependent) const;
  void put(int var, const FieldRef& field, bool record);

  std::string path_;
  NetcdfLayout layout_;
  int ncid_ = -1;
  int time_var_ = -1;
  std::size_t record_ = 0;
};

}  // namespace shwa::io
