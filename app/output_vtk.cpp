// shwa/app/output_vtk.cpp — ParaView output: vtk/shwa_NNNN.vti at each output time (one piece per
// rank, vtk/shwa_NNNN_rRRRR.vti, joined by a .pvti, when several ranks run), listed with their
// times in shwa.pvd, which ParaView opens as a time series; vtk/maxima.vti at the end.
#include "outputs.hpp"

#include "affinity.hpp"

#include <filesystem>

namespace shwa::app {

namespace {

class VtkOutput final : public OutputFormat {
 public:
  VtkOutput(const RunConfig& cfg, ResumeFrom resume)
      : dir_(cfg.out.dir),
        fields_(run_field_names(cfg.out.fields, cfg.pollutants)),
        maxima_(maxima_names(cfg.pollutants)),
        encoding_{cfg.out.single_precision ? std::optional(io::ScalarType::float32) : std::nullopt, cfg.out.vtk_zlib,
                  io::Workers{process_cpu_count(), use_process_cpus}},
        pvd_(resume ? io::PvdCollection::resume(dir_ + "/shwa.pvd", *resume) : io::PvdCollection(dir_ + "/shwa.pvd")) {}

  void write(const Frame& f) override {
    const std::string file = put("shwa_" + frame_tag(f.index), f, fields_);
    if (f.root()) pvd_.add(f.time, file);
  }

  void write_maxima(const Frame& f) override { put("maxima", f, maxima_); }

 private:
  // Writes this rank's piece (and the root the .pvti header); returns the file the .pvd lists.
  std::string put(const std::string& stem, const Frame& f, const std::vector<std::string>& names) const {
    std::filesystem::create_directories(dir_ + "/vtk");
    std::vector<io::FieldRef> refs;
    for (const std::string& n : names) refs.emplace_back(n, f.local.at(n).data());
    if (f.ranks == 1) {
      io::write_vti(dir_ + "/vtk/" + stem + ".vti", f.grid, f.piece, refs, f.time, encoding_);
      return "vtk/" + stem + ".vti";
    }
    auto piece_file = [&](int r) { return stem + "_r" + frame_tag(r) + ".vti"; };
    io::write_vti(dir_ + "/vtk/" + piece_file(f.rank), f.grid, f.piece, refs, f.time, encoding_);
    if (f.root()) {
      std::vector<std::string> files;
      for (int r = 0; r < f.ranks; ++r) files.push_back(piece_file(r));
      io::write_pvti(dir_ + "/vtk/" + stem + ".pvti", f.grid, f.pieces, files, refs, encoding_.type);
    }
    return "vtk/" + stem + ".pvti";
  }

  std::string dir_;
  std::vector<std::string> fields_, maxima_;
  io::VtiEncoding encoding_;  // output.precision, output.vtk_compression; blocks compressed on every CPU of the process
  io::PvdCollection pvd_;
};

}  // namespace

std::unique_ptr<OutputFormat> make_vtk_output(const RunConfig& cfg, ResumeFrom resume) {
  return std::make_unique<VtkOutput>(cfg, resume);
}

}  // namespace shwa::app
