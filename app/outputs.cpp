// shwa/app/outputs.cpp — derived fields, the table of output formats and the choice among them.
#include "outputs.hpp"

#include "io/text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

namespace shwa::app {

const std::vector<OutputFieldInfo>& output_fields() {
  static const std::vector<OutputFieldInfo> table = {
      {"h", "water depth [m]", "m", "water depth", "sea_floor_depth_below_sea_surface",
       [](const CellValues& c) { return c.h; }},
      {"eta", "free-surface elevation above the reference level, h - H [m]; NaN (NODATA) where dry", "m",
       "free-surface elevation above the reference level", "",
       [](const CellValues& c) { return c.h >= c.eps_h ? c.h - c.H : std::numeric_limits<double>::quiet_NaN(); }},
      {"u", "depth-averaged velocity in x, qx / h [m/s]; 0 where dry", "m s-1", "depth-averaged velocity in x",
       "sea_water_x_velocity", [](const CellValues& c) { return c.h >= c.eps_h ? c.qx / c.h : 0.0; }},
      {"v", "depth-averaged velocity in y, qy / h [m/s]; 0 where dry", "m s-1", "depth-averaged velocity in y",
       "sea_water_y_velocity", [](const CellValues& c) { return c.h >= c.eps_h ? c.qy / c.h : 0.0; }},
      {"c", "pollutant concentration, hc / h wherever the cell holds water (films below eps_h too); 0 without water",
       "1", "pollutant concentration", "", [](const CellValues& c) { return concentration(c.h, c.hc); }, true},
  };
  return table;
}

std::vector<std::string> output_field_names() {
  std::vector<std::string> names;
  for (const OutputFieldInfo& f : output_fields()) names.push_back(f.name);
  return names;
}

const OutputFieldInfo& output_field(const std::string& name) {
  for (const OutputFieldInfo& f : output_fields())
    if (f.name == name) return f;
  throw std::logic_error("unknown output field " + name);
}

std::vector<RunField> run_fields(const std::vector<std::string>& names, const std::vector<std::string>& pollutants) {
  std::vector<RunField> out;
  for (const std::string& name : names) {
    const OutputFieldInfo& info = output_field(name);
    if (!info.per_pollutant) {
      out.push_back(RunField{name, &info, -1, info.long_name});
      continue;
    }
    for (std::size_t p = 0; p < pollutants.size(); ++p)
      out.push_back(RunField{pollutant_field(name, pollutants[p]), &info, int(p),
                             info.long_name + (pollutants[p].empty() ? "" : " (" + pollutants[p] + ")")});
  }
  return out;
}

std::vector<std::string> run_field_names(const std::vector<std::string>& names,
                                         const std::vector<std::string>& pollutants) {
  std::vector<std::string> out;
  for (const RunField& f : run_fields(names, pollutants)) out.push_back(f.name);
  return out;
}

std::vector<std::string> maxima_names(const std::vector<std::string>& pollutants) {
  std::vector<std::string> out{"hmax"};
  for (const std::string& p : pollutants) out.push_back(pollutant_field("cmax", p));
  for (const std::string& p : pollutants) out.push_back(pollutant_field("arrival", p));
  return out;
}

void derived_fields(const HostValues& h, const HostValues& qx, const HostValues& qy, const std::vector<HostValues>& hc,
                    const HostValues& H, double eps_h,
                    const std::vector<std::string>& pollutants, FieldMap& out) {
  const std::size_t n = h.size();
  const std::vector<RunField> fields = run_fields(output_field_names(), pollutants);
  std::vector<double*> to;
  for (const RunField& field : fields) {
    HostValues& v = out[field.name];
    resize_for_overwrite(v, n);
    to.push_back(v.data());
  }
  for_cell_runs(n, [&](std::size_t begin, std::size_t end) {
    for (std::size_t f = 0; f < fields.size(); ++f) {
      const HostValues& c = hc[std::size_t(std::max(fields[f].pollutant, 0))];
      const auto value = fields[f].info->value;
      double* v = to[f];
      for (std::size_t k = begin; k < end; ++k) v[k] = value(CellValues{h[k], qx[k], qy[k], c[k], H[k], eps_h});
    }
  });
}

const std::vector<OutputFormatInfo>& output_formats() {
  static const std::vector<OutputFormatInfo> table = {
      {"vtk", "VTK image data (vtk/*.vti, shwa.pvd; ParaView)", true, "", true,
       [](const RunConfig& cfg, ResumeFrom resume, const HostValues&) { return make_vtk_output(cfg, resume); }},
#if SHWA_HAVE_NETCDF
      {"netcdf", "CF NetCDF (shwa.nc)", true, "", false,
       [](const RunConfig& cfg, ResumeFrom resume, const HostValues& H) {
         return make_netcdf_output(cfg, resume, H);
       }},
#else
      {"netcdf", "CF NetCDF (shwa.nc)", false, "install libnetcdf-dev and pkg-config, then reconfigure and rebuild shwa",
       false, nullptr},
#endif
      {"asc", "ESRI ASCII grids (asc/*.asc)", true, "", false,
       [](const RunConfig& cfg, ResumeFrom, const HostValues&) { return make_asc_output(cfg); }},
#if SHWA_HAVE_PNG
      {"png", "PNG quicklooks (png/*.png)", true, "", true,
       [](const RunConfig& cfg, ResumeFrom, const HostValues& H) { return make_png_output(cfg, !H.empty()); }},
#else
      {"png", "PNG quicklooks (png/*.png)", false, "install libpng-dev, then reconfigure and rebuild shwa", true,
       nullptr},
#endif
  };
  return table;
}

std::vector<std::string> read_output_formats(io::Deck& d, const std::vector<OutputFormatInfo>& table) {
  const std::string key = "output.formats";
  std::vector<std::string> names, defaults;
  for (const OutputFormatInfo& f : table) {
    names.push_back(f.name);
    if (f.by_default && f.available) defaults.push_back(f.name);
  }
  std::vector<std::string> formats = d.get_string_list(key, defaults);
  for (std::size_t k = 0; k < formats.size(); ++k)
    if (std::find(formats.begin(), formats.begin() + long(k), formats[k]) != formats.begin() + long(k))
      throw d.error(key, "format " + io::quote(formats[k]) + " is listed twice");
  for (const std::string& name : formats) {
    const auto it = std::find_if(table.begin(), table.end(), [&](const OutputFormatInfo& f) { return f.name == name; });
    if (it == table.end()) {
      const std::string close = io::closest_match(name, names);
      throw d.error(key, "unknown format " + io::quote(name) +
                             (close.empty() ? "; formats are " + io::join(names) : "; did you mean '" + close + "'?"));
    }
    if (!it->available) {
      std::string built;
      for (const OutputFormatInfo& f : table)
        if (f.available) built += (built.empty() ? "" : ", ") + f.name;
      throw d.error(key, "format " + io::quote(name) + " is not in this build of shwa (" + it->to_enable +
                             "); this build writes " + built);
    }
  }
  return formats;
}

std::vector<std::unique_ptr<OutputFormat>> make_outputs(const RunConfig& cfg, ResumeFrom resume,
                                                        const HostValues& H_global) {
  std::vector<std::unique_ptr<OutputFormat>> out;
  for (const std::string& name : cfg.out.formats)
    for (const OutputFormatInfo& f : output_formats())
      if (f.name == name) {
        if (!f.make) throw std::logic_error("output format " + name + " is not in this build");  // refused by the deck check
        out.push_back(f.make(cfg, resume, H_global));
      }
  return out;
}

std::string frame_tag(int index) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%04d", index);
  return buf;
}

}  // namespace shwa::app
