// shwa/app/output_png.cpp — PNG quicklooks: png/depth_NNNN.png and png/concentration_NNNN.png at
// each output time, png/{hmax,cmax,arrival}.png at the end (concentration_NAME_NNNN.png,
// cmax_NAME.png, arrival_NAME.png for each named pollutant). Dry cells are transparent. The colour
// scales are fixed for the whole run (from the deck, or the initial state), so frames compare.
// Below each map, a legend (io::PngLegend): the field and its colour bar, the time, a scale bar.
// At the end of a run that went well, each field's frames become an animation,
// png/{depth,concentration}_animation.png (APNG, concentration_NAME_animation.png a named pollutant; io/apng.hpp; output.png_animation), made from the
// frames on disk so that a restarted run's animation holds the frames of the runs before it too.
#include "outputs.hpp"

#include "affinity.hpp"
#include "io/apng.hpp"
#include "io/png.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>

namespace shwa::app {

namespace {

class PngOutput final : public OutputFormat {
 public:
  PngOutput(const RunConfig& cfg, bool root)
      : dir_(cfg.out.dir + "/png"), root_(root), animation_(cfg.out.png_animation), frames_(cfg.out.times.size()),
        eps_h_(cfg.params.eps_h), t_end_(cfg.t_end), scale_(cfg.out.png_scale), threshold_(cfg.out.arrival_threshold),
        pollutants_(cfg.pollutants) {
    depth_max_ = cfg.out.png_depth_max > 0 ? cfg.out.png_depth_max : cfg.init.h_max;
    if (!(depth_max_ > 0)) depth_max_ = 1;
    for (std::size_t p = 0; p < pollutants_.size(); ++p) {
      const double top = cfg.out.png_c_max > 0 ? cfg.out.png_c_max : cfg.init.c_max.at(p);
      c_max_.push_back(top > 0 ? top : 1);
    }
    // Every frame's legend has room for the longest time stamp of the run, so that the frames
    // have one size (an animation's canvas).
    for (const double t : cfg.out.times) stamp_room_ = std::max(stamp_room_, io::legend_time(t).size());
  }

  void write(const Frame& f) override {
    if (!f.root()) return;
    const HostValues& h = f.whole("h");
    const double nan = std::numeric_limits<double>::quiet_NaN();
    resize_for_overwrite(depth_, h.size());
    for_cell_runs(h.size(), [&](std::size_t begin, std::size_t end) {
      for (std::size_t k = begin; k < end; ++k) depth_[k] = h[k] >= eps_h_ ? h[k] : nan;
    });
    frames_ = std::max(frames_, std::size_t(f.index) + 1);
    const std::string tag = frame_tag(f.index), stamp = io::legend_time(f.time);
    put("depth_" + tag, f.grid, depth_, depth_max_, "depth (m)", stamp, stamp_room_);
    for (std::size_t p = 0; p < pollutants_.size(); ++p) {
      const HostValues& conc = f.whole(pollutant_field("c", pollutants_[p]));
      resize_for_overwrite(c_, h.size());
      for_cell_runs(h.size(), [&](std::size_t begin, std::size_t end) {
        for (std::size_t k = begin; k < end; ++k)
          c_[k] = h[k] >= kMinDepthForC ? conc[k] : nan;  // a film below eps_h shows its pollutant
      });
      put(pollutant_field("concentration", pollutants_[p]) + "_" + tag, f.grid, c_, c_max_[p],
          title("concentration", pollutants_[p]), stamp, stamp_room_);
    }
  }

  void write_maxima(const Frame& f) override {
    if (!f.root()) return;
    const HostValues& h = f.whole("hmax");
    HostValues& hmax = depth_;
    resize_for_overwrite(hmax, h.size());
    for_cell_runs(h.size(), [&](std::size_t begin, std::size_t end) {
      for (std::size_t k = begin; k < end; ++k)
        hmax[k] = h[k] < eps_h_ ? std::numeric_limits<double>::quiet_NaN() : h[k];  // NaN: never wet
    });
    const std::string until = "up to " + io::legend_time(f.time);
    put("hmax", f.grid, hmax, depth_max_, "max depth (m)", until);
    for (std::size_t p = 0; p < pollutants_.size(); ++p) {
      const std::string& name = pollutants_[p];
      put(pollutant_field("cmax", name), f.grid, f.whole(pollutant_field("cmax", name)), c_max_[p],
          title("max concentration", name), until);
      put(pollutant_field("arrival", name), f.grid, f.whole(pollutant_field("arrival", name)), t_end_,
          title("arrival (s)", name), "c > " + io::legend_number(threshold_) + ", " + until);
    }
  }

  // At the end of a complete run, the frames png/ holds, in order: those of this run and, after a
  // restart, of the runs before it (a format added on a restart has none before it).
  void finish(RunEnd end) override {
    if (!root_ || !animation_ || end != RunEnd::Complete) return;
    std::vector<std::string> fields{"depth"};
    for (const std::string& p : pollutants_) fields.push_back(pollutant_field("concentration", p));
    for (const std::string& field : fields) {
      std::vector<std::string> frames;
      for (std::size_t k = 0; k < frames_; ++k) {
        const std::string frame = dir_ + "/" + field + "_" + frame_tag(int(k)) + ".png";
        std::error_code ec;
        if (std::filesystem::is_regular_file(frame, ec)) frames.push_back(frame);
      }
      if (!frames.empty()) io::write_apng(dir_ + "/" + field + "_animation.png", frames);
    }
  }

 private:
  void put(const std::string& stem, const Domain& g, const HostValues& v, double vmax,
           const std::string& title, const std::string& stamp, std::size_t stamp_room = 0) {
    std::filesystem::create_directories(dir_);
    io::PngStyle style;
    style.vmin = 0;
    style.vmax = vmax;
    style.scale = scale_;
    style.legend = true;
    style.legend_text.title = title;
    style.legend_text.stamp = stamp;
    style.legend_text.cell_size = g.dx;
    style.legend_text.stamp_room = stamp_room;
    io::write_png(dir_ + "/" + stem + ".png", g.nx, g.ny, io::FieldRef(stem, v.data()), style,
                  io::Workers{process_cpu_count(), use_process_cpus}, pixels_);
  }

  std::string dir_;
  bool root_, animation_;
  std::size_t frames_;  // the frames to look for: the run's output times, or more (a restart that changed them)
  std::size_t stamp_room_ = 0;
  double eps_h_, t_end_;
  int scale_;
  double threshold_;
  std::vector<std::string> pollutants_;
  double depth_max_ = 1;
  std::vector<double> c_max_;  // each pollutant's colour scale top
  // Kept from image to image: fresh memory costs the kernel's zeroing of every page each time.
  HostValues depth_, c_;  // a frame's depth and concentration, NaN where not drawn
  std::vector<std::uint8_t> pixels_;  // an image's RGBA pixels

  /// A legend's title: `what`, and the pollutant's name where it has one.
  static std::string title(const std::string& what, const std::string& pollutant) {
    return pollutant.empty() ? what : pollutant + " " + what;
  }
};

}  // namespace

std::unique_ptr<OutputFormat> make_png_output(const RunConfig& cfg, bool root) {
  return std::make_unique<PngOutput>(cfg, root);
}

}  // namespace shwa::app
