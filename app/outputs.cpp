// shwa/app/outputs.cpp — derived fields and the choice of output formats.
#include "outputs.hpp"

#include <cmath>
#include <cstdio>
#include <limits>

namespace shwa::app {

FieldMap derived_fields(const std::vector<double>& h, const std::vector<double>& qx, const std::vector<double>& qy,
                        const std::vector<double>& hc, const std::vector<double>& H, double eps_h) {
  const std::size_t n = h.size();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  FieldMap f;
  auto& eta = f["eta"];
  auto& u = f["u"];
  auto& v = f["v"];
  auto& c = f["c"];
  eta.resize(n);
  u.resize(n);
  v.resize(n);
  c.resize(n);
  for (std::size_t k = 0; k < n; ++k) {
    const bool wet = h[k] >= eps_h;
    eta[k] = wet ? h[k] - H[k] : nan;
    u[k] = wet ? qx[k] / h[k] : 0.0;
    v[k] = wet ? qy[k] / h[k] : 0.0;
    c[k] = wet ? hc[k] / h[k] : 0.0;
  }
  f["h"] = h;
  return f;
}

std::vector<std::unique_ptr<OutputFormat>> make_outputs(const RunConfig& cfg, ResumeFrom resume,
                                                        const std::vector<double>& H_global) {
  std::vector<std::unique_ptr<OutputFormat>> out;
  for (const std::string& f : cfg.out.formats) {
    if (f == "asc") out.push_back(make_asc_output(cfg));
    else if (f == "vtk") out.push_back(make_vtk_output(cfg, resume));
    else if (f == "netcdf") out.push_back(make_netcdf_output(cfg, resume, H_global));
    else if (f == "png") out.push_back(make_png_output(cfg));
  }
  return out;
}

std::string frame_tag(int index) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%04d", index);
  return buf;
}

}  // namespace shwa::app
