// shwa/app/output_netcdf.cpp — one CF NetCDF file, shwa.nc: a time record of the output fields at
// each output time; the bottom depth H and the maxima maps as static (y, x) variables.
#include "outputs.hpp"

#include "io/netcdf_writer.hpp"

namespace shwa::app {

namespace {

io::NetcdfLayout layout(const RunConfig& cfg) {
  io::NetcdfLayout l;
  l.grid = cfg.grid;
  l.type = io::ScalarType::float64;
  for (const std::string& name : cfg.out.fields) {
    const OutputFieldInfo& f = output_field(name);
    l.fields.push_back(io::VariableInfo{f.name, f.units, f.long_name, f.standard_name});
  }
  l.static_fields.push_back(io::describe_field("H"));
  if (cfg.out.maxima)
    for (const char* f : {"hmax", "cmax", "arrival"}) l.static_fields.push_back(io::describe_field(f));
  l.attributes = {{"title", "shwa shallow-water + pollutant run"}, {"source", "shwa " SHWA_VERSION},
                  {"problem", cfg.problem}};
  return l;
}

class NetcdfOutput final : public OutputFormat {
 public:
  // Only the root rank holds the file (it writes gathered fields).
  NetcdfOutput(const RunConfig& cfg, ResumeFrom resume, const std::vector<double>& H, bool root)
      : fields_(cfg.out.fields) {
    if (!root) return;
    const std::string path = cfg.out.dir + "/shwa.nc";
    writer_ = std::make_unique<io::NetcdfWriter>(resume ? io::NetcdfWriter::resume(path, layout(cfg), *resume)
                                                        : io::NetcdfWriter(path, layout(cfg)));
    writer_->write_static(io::FieldRef("H", H.data()));
  }

  void write(const Frame& f) override {
    if (!writer_) return;
    std::vector<io::FieldRef> refs;
    for (const std::string& n : fields_) refs.emplace_back(n, f.global.at(n).data());
    writer_->append(f.time, refs);
  }

  void write_maxima(const Frame& f) override {
    if (!writer_) return;
    for (const char* n : {"hmax", "cmax", "arrival"}) writer_->write_static(io::FieldRef(n, f.global.at(n).data()));
  }

  void finish() override {
    if (writer_) writer_->close();
  }

 private:
  std::vector<std::string> fields_;
  std::unique_ptr<io::NetcdfWriter> writer_;
};

}  // namespace

std::size_t netcdf_resumable_records(const RunConfig& cfg, double up_to) {
  return io::NetcdfWriter::resumable_records(cfg.out.dir + "/shwa.nc", layout(cfg), up_to);
}

std::unique_ptr<OutputFormat> make_netcdf_output(const RunConfig& cfg, ResumeFrom resume,
                                                 const std::vector<double>& H_global) {
  return std::make_unique<NetcdfOutput>(cfg, resume, H_global, !H_global.empty());
}

}  // namespace shwa::app
