// shwa/app/output_asc.cpp — ESRI ASCII grids for GIS tools: asc/FIELD_NNNN.asc at each output
// time, maxima/{hmax,cmax,arrival}.asc at the end (cmax_NAME, arrival_NAME a named pollutant). Dry cells of eta and cells the pollutant never
// reached (arrival) are NODATA. Each .asc gets its .prj where the deck names the grid's
// coordinate system (output.projection).
#include "outputs.hpp"

#include "affinity.hpp"
#include "io/raster.hpp"

#include <filesystem>
#include <stdexcept>
#include <string>

namespace shwa::app {

namespace {

class AscOutput final : public OutputFormat {
 public:
  explicit AscOutput(const RunConfig& cfg)
      : dir_(cfg.out.dir),
        fields_(run_field_names(cfg.out.fields, cfg.pollutants)),
        maxima_(maxima_names(cfg.pollutants)),
        projection_(cfg.out.projection) {}

  void write(const Frame& f) override {
    if (!f.root()) return;
    std::filesystem::create_directories(dir_ + "/asc");
    for (const std::string& name : fields_) put(dir_ + "/asc/" + name + "_" + frame_tag(f.index) + ".asc", f, name);
  }

  void write_maxima(const Frame& f) override {
    if (!f.root()) return;
    std::filesystem::create_directories(dir_ + "/maxima");
    for (const std::string& name : maxima_) put(dir_ + "/maxima/" + name + ".asc", f, name);
  }

 private:
  // The grid and, where the deck gives the grid's coordinate system, its .prj beside it.
  void put(const std::string& path, const Frame& f, const std::string& name) const {
    const HostValues& v = f.whole(name);
    if (v.size() != std::size_t(f.grid.nx) * std::size_t(f.grid.ny))
      throw std::logic_error("asc output: " + name + " holds " + std::to_string(v.size()) + " values for " +
                             std::to_string(f.grid.nx) + " x " + std::to_string(f.grid.ny) + " cells");
    io::write_esri_ascii(path, f.grid, v.data(), io::Workers{process_cpu_count(), use_process_cpus});
    if (!projection_.empty()) io::write_projection(path, projection_);
  }

  std::string dir_;
  std::vector<std::string> fields_, maxima_;
  std::string projection_;
};

}  // namespace

std::unique_ptr<OutputFormat> make_asc_output(const RunConfig& cfg) { return std::make_unique<AscOutput>(cfg); }

}  // namespace shwa::app
