// shwa/app/output_netcdf.cpp — one CF NetCDF file, shwa.nc: a time record of the output fields at
// each output time; the bottom depth H and the maxima maps as static (y, x) variables.
#include "outputs.hpp"

#include "io/netcdf_writer.hpp"

namespace shwa::app {

namespace {

io::NetcdfLayout layout(const RunConfig& cfg) {
  io::NetcdfLayout l;
  l.grid = cfg.grid;
  l.type = cfg.out.single_precision ? io::ScalarType::float32 : io::ScalarType::float64;
  for (const RunField& f : run_fields(cfg.out.fields, cfg.pollutants))
    l.fields.push_back(io::VariableInfo{f.name, f.info->units, f.long_name, f.info->standard_name});
  l.static_fields.push_back(io::describe_field("H"));
  if (cfg.out.maxima) {
    l.static_fields.push_back(io::describe_field("hmax"));
    for (const char* base : {"cmax", "arrival"})
      for (const std::string& p : cfg.pollutants) {
        io::VariableInfo v = io::describe_field(base);
        v.name = pollutant_field(base, p);
        if (!p.empty()) v.long_name += " (" + p + ")";
        l.static_fields.push_back(v);
      }
  }
  l.attributes = {{"title", "shwa shallow-water + pollutant run"}, {"source", "shwa " SHWA_VERSION},
                  {"problem", cfg.problem}};
  l.projection = cfg.out.projection;
  return l;
}

class NetcdfOutput final : public OutputFormat {
 public:
  // Only the root rank holds the file (it writes gathered fields).
  NetcdfOutput(const RunConfig& cfg, ResumeFrom resume, const HostValues& H, bool root)
      : fields_(run_field_names(cfg.out.fields, cfg.pollutants)), maxima_(maxima_names(cfg.pollutants)) {
    if (!root) return;
    const std::string path = cfg.out.dir + "/shwa.nc";
    writer_ = std::make_unique<io::NetcdfWriter>(resume ? io::NetcdfWriter::resume(path, layout(cfg), *resume)
                                                        : io::NetcdfWriter(path, layout(cfg)));
    writer_->write_static(io::FieldRef("H", H.data()));
  }

  void write(const Frame& f) override {
    if (!writer_) return;
    std::vector<io::FieldRef> refs;
    for (const std::string& n : fields_) refs.emplace_back(n, f.whole(n).data());
    writer_->append(f.time, refs);
  }

  void write_maxima(const Frame& f) override {
    if (!writer_) return;
    for (const std::string& n : maxima_) writer_->write_static(io::FieldRef(n, f.whole(n).data()));
  }

  void finish(RunEnd) override {
    if (writer_) writer_->close();
  }

 private:
  std::vector<std::string> fields_, maxima_;
  std::unique_ptr<io::NetcdfWriter> writer_;
};

}  // namespace

std::size_t netcdf_resumable_records(const RunConfig& cfg, double up_to) {
  return io::NetcdfWriter::resumable_records(cfg.out.dir + "/shwa.nc", layout(cfg), up_to);
}

std::unique_ptr<OutputFormat> make_netcdf_output(const RunConfig& cfg, ResumeFrom resume,
                                                 const HostValues& H_global) {
  return std::make_unique<NetcdfOutput>(cfg, resume, H_global, !H_global.empty());
}

}  // namespace shwa::app
