// The table of output formats (app/outputs.hpp): which formats this build has, and the refusal of
// a deck asking for one it lacks. The refusal is tested with a copy of the table in which a format
// is missing, so that it runs in every build; the real table is checked against the build's
// SHWA_HAVE_NETCDF and SHWA_HAVE_PNG. Also what the outputs derive (the concentration of films
// below eps_h) and the progress line (its time left, the time step it shows).
#include "affinity.hpp"
#include "outputs.hpp"
#include "progress.hpp"

#include "io/deck.hpp"
#include "io/error.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <thread>
#include <string>
#include <vector>

#ifdef __linux__
#include <sched.h>
#endif
#ifdef _OPENMP
#include <omp.h>
#endif

using shwa::app::OutputFormatInfo;
using shwa::app::output_formats;
using shwa::app::read_output_formats;
namespace io = shwa::io;

namespace {

// The table with `name` marked missing, as a build without its library has it.
std::vector<OutputFormatInfo> without(const std::string& name, const std::string& to_enable) {
  std::vector<OutputFormatInfo> table = output_formats();
  for (OutputFormatInfo& f : table)
    if (f.name == name) {
      f.available = false;
      f.make = nullptr;
      f.to_enable = to_enable;
    }
  return table;
}

// The formats a deck resolves to, or "refused: " and the error.
std::vector<std::string> formats_of(const std::string& deck, const std::vector<OutputFormatInfo>& table,
                                    const std::string& set = "") {
  io::Deck d = io::Deck::parse(deck, "case.toml");
  if (!set.empty()) d.set_override(set);
  try {
    return read_output_formats(d, table);
  } catch (const io::InputError& e) {
    return {std::string("refused: ") + e.what()};
  }
}

const OutputFormatInfo* find(const std::vector<OutputFormatInfo>& table, const std::string& name) {
  for (const OutputFormatInfo& f : table)
    if (f.name == name) return &f;
  return nullptr;
}

}  // namespace

TEST_CASE("formats: one table lists every format and what this build has", "[app][formats]") {
  const std::vector<OutputFormatInfo>& table = output_formats();
  std::vector<std::string> names;
  for (const OutputFormatInfo& f : table) {
    INFO(f.name);
    names.push_back(f.name);
    CHECK_FALSE(f.description.empty());
    // A format is either built, with its writer, or missing, saying what builds it.
    CHECK(f.available == (f.make != nullptr));
    CHECK(f.available == f.to_enable.empty());
  }
  CHECK(names == std::vector<std::string>{"vtk", "netcdf", "asc", "png"});
  CHECK(find(table, "vtk")->available);
  CHECK(find(table, "asc")->available);
  CHECK(find(table, "netcdf")->available == bool(SHWA_HAVE_NETCDF));
  CHECK(find(table, "png")->available == bool(SHWA_HAVE_PNG));
  if (!SHWA_HAVE_NETCDF) CHECK(find(table, "netcdf")->to_enable.find("libnetcdf-dev") != std::string::npos);
  if (!SHWA_HAVE_PNG) CHECK(find(table, "png")->to_enable.find("libpng-dev") != std::string::npos);
}

TEST_CASE("formats: a deck asking for a format the build lacks is refused, naming what builds it", "[app][formats]") {
  const std::string enable = "install libpng-dev, then reconfigure and rebuild shwa";
  const std::vector<OutputFormatInfo> table = without("png", enable);
  std::string built;
  for (const OutputFormatInfo& f : table)
    if (f.available) built += (built.empty() ? "" : ", ") + f.name;
  const std::string refused = "refused: case.toml:3: output.formats: format \"png\" is not in this build of shwa (" +
                              enable + "); this build writes " + built;
  CHECK(formats_of("[output]\ndir = \"out\"\nformats = [\"vtk\", \"png\"]\n", table) ==
        std::vector<std::string>{refused});
  // Set on the command line, it is named so.
  CHECK(formats_of("[output]\ndir = \"out\"\n", table, "output.formats=[\"png\"]") ==
        std::vector<std::string>{"refused: command line: output.formats: format \"png\" is not in this build of shwa (" +
                                 enable + "); this build writes " + built});
  // The formats the table has pass, and the default leaves the missing one out.
  CHECK(formats_of("[output]\nformats = [\"asc\", \"vtk\"]\n", table) == std::vector<std::string>{"asc", "vtk"});
  CHECK(formats_of("[output]\ndir = \"out\"\n", table) == std::vector<std::string>{"vtk"});
  // A name in no table is still an unknown format, with the closest named.
  CHECK(formats_of("[output]\nformats = [\"pngg\"]\n", table) ==
        std::vector<std::string>{"refused: case.toml:2: output.formats: unknown format \"pngg\"; did you mean 'png'?"});
}

TEST_CASE("formats: this build's table decides what a deck may ask for", "[app][formats]") {
  const std::vector<OutputFormatInfo>& table = output_formats();
  for (const char* name : {"netcdf", "png"}) {
    INFO(name);
    const std::vector<std::string> got = formats_of(std::string("[output]\nformats = [\"") + name + "\"]\n", table);
    if (find(table, name)->available) {
      CHECK(got == std::vector<std::string>{name});
    } else {
      REQUIRE(got.size() == 1);
      CHECK(got[0].rfind(std::string("refused: case.toml:2: output.formats: format \"") + name + "\" is not in this build", 0) == 0);
      CHECK(got[0].find(find(table, name)->to_enable) != std::string::npos);
    }
  }
  const std::vector<std::string> def = formats_of("[output]\ndir = \"out\"\n", table);
  CHECK(def == (SHWA_HAVE_PNG ? std::vector<std::string>{"vtk", "png"} : std::vector<std::string>{"vtk"}));
}

TEST_CASE("formats: every output gives c = hc / h wherever a cell holds water, films below eps_h too",
          "[app][formats]") {
  // A wet cell, a film of 1e-5 m (below eps_h = 1e-3) holding c = 0.5, a cell without water.
  const shwa::app::HostValues h = {2.0, 1e-5, 0.0}, qx = {1.0, 1e-6, 0.0}, qy = {0.0, 0.0, 0.0},
                             hc = {1.0, 0.5e-5, 0.0}, H = {1.0, 1.0, 1.0};
  shwa::app::FieldMap f;
  shwa::app::derived_fields(h, qx, qy, {hc}, H, 1e-3, {""}, f);
  CHECK(f.at("c")[0] == 0.5);
  CHECK(f.at("c")[1] == Approx(0.5));
  CHECK(f.at("c")[2] == 0.0);
  // Velocities and the free surface stay those of wet cells only.
  CHECK(f.at("u")[0] == 0.5);
  CHECK(f.at("u")[1] == 0.0);
  CHECK(std::isnan(f.at("eta")[1]));
  CHECK(shwa::app::concentration(1e-5, 0.5e-5) == Approx(0.5));
  CHECK(shwa::app::concentration(0.0, 0.0) == 0.0);
  CHECK(f.size() == shwa::app::output_fields().size());

  // Named pollutants: one c_NAME a pollutant, each from its own hc; the rest as before.
  const shwa::app::HostValues hc2 = {4.0, 0.0, 0.0};
  shwa::app::FieldMap g;
  shwa::app::derived_fields(h, qx, qy, {hc, hc2}, H, 1e-3, {"oil", "salt"}, g);
  CHECK(g.count("c") == 0);
  CHECK(g.at("c_oil") == f.at("c"));
  CHECK(g.at("c_salt")[0] == 2.0);
  CHECK(g.at("u") == f.at("u"));
  CHECK(shwa::app::run_field_names({"h", "c", "u"}, {"oil", "salt"}) ==
        std::vector<std::string>{"h", "c_oil", "c_salt", "u"});
  CHECK(shwa::app::maxima_names({"oil", "salt"}) ==
        std::vector<std::string>{"hmax", "cmax_oil", "cmax_salt", "arrival_oil", "arrival_salt"});
  CHECK(shwa::app::maxima_names({""}) == std::vector<std::string>{"hmax", "cmax", "arrival"});
}

TEST_CASE("formats: the derived fields of a large block are every cell's, whatever the threads", "[app][formats]") {
  // 300 000 cells: shared out over the threads a writer may use (several where the machine has
  // several cores), each cell's values must be its own, from the field's formula.
  const std::size_t n = 300000;
  shwa::app::HostValues h(n), qx(n), qy(n), hc(n), hc2(n), H(n);
  for (std::size_t k = 0; k < n; ++k) {
    h[k] = k % 5 == 0 ? 0.0 : 0.001 * double(k % 1000);
    qx[k] = std::sin(double(k)) * h[k];
    qy[k] = std::cos(double(k)) * h[k];
    hc[k] = 0.25 * h[k];
    hc2[k] = double(k % 7) * h[k];
    H[k] = 1.0 + 1e-6 * double(k);
  }
  shwa::app::FieldMap f;
  f["h"] = shwa::app::HostValues(17, -1.0);  // storage of another size, as a frame before may leave
  shwa::app::derived_fields(h, qx, qy, {hc, hc2}, H, 1e-3, {"oil", "salt"}, f);
  for (const shwa::app::RunField& field : shwa::app::run_fields(shwa::app::output_field_names(), {"oil", "salt"})) {
    INFO(field.name);
    const shwa::app::HostValues& v = f.at(field.name);
    REQUIRE(v.size() == n);
    const shwa::app::HostValues& c = field.pollutant == 1 ? hc2 : hc;
    std::size_t wrong = 0;
    for (std::size_t k = 0; k < n; ++k) {
      const double want = field.info->value(shwa::app::CellValues{h[k], qx[k], qy[k], c[k], H[k], 1e-3});
      if (!(v[k] == want || (std::isnan(v[k]) && std::isnan(want)))) ++wrong;
    }
    CHECK(wrong == 0);
  }
}

TEST_CASE("formats: an output's host arrays are shared over the threads whole, and zeroed when made anew",
          "[app][formats]") {
  // for_cell_runs covers [0, n) once, in runs that start where the last ended, for n below, at and
  // above the size from which it takes several threads.
  for (const std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(65535), std::size_t(3 * 65536 + 7)}) {
    INFO(n);
    std::vector<int> hits(n, 0);
    shwa::app::for_cell_runs(n, [&](std::size_t begin, std::size_t end) {
      for (std::size_t k = begin; k < end; ++k) ++hits[k];
    });
    CHECK(std::count(hits.begin(), hits.end(), 1) == std::ptrdiff_t(n));
  }
  // A size it did not have: new storage, every value zero. Its own size: storage and values kept.
  shwa::app::HostValues v(17, -1.0);
  const std::size_t n = 300001;
  shwa::app::resize_for_overwrite(v, n);
  REQUIRE(v.size() == n);
  CHECK(std::count(v.begin(), v.end(), 0.0) == std::ptrdiff_t(n));
  v[n - 1] = 2.5;
  const double* storage = v.data();
  shwa::app::resize_for_overwrite(v, n);
  CHECK(v.data() == storage);
  CHECK(v[n - 1] == 2.5);
  shwa::app::resize_for_overwrite(v, 5);
  CHECK(v == shwa::app::HostValues(5, 0.0));
}

TEST_CASE("formats: the progress line never prints an overflowed time left", "[app][formats]") {
  std::FILE* f = std::tmpfile();
  REQUIRE(f);
  // 1e-300 of the way after some milliseconds: the time left is some 1e297 s, beyond a long.
  shwa::app::Progress p(f, 0.0, 1.0, 0.0);
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  p.update(1e-300, 1, 1e-300, true);
  std::rewind(f);
  char line[512] = {};
  REQUIRE(std::fgets(line, sizeof line, f));
  std::fclose(f);
  const std::string text = line;
  INFO(text);
  CHECK(text.find("left > 100000h") != std::string::npos);
  CHECK(text.find("left -") == std::string::npos);
}

namespace {

// The lines a Progress wrote to `f`.
std::vector<std::string> progress_lines(std::FILE* f) {
  std::rewind(f);
  std::vector<std::string> lines;
  char line[512];
  while (std::fgets(line, sizeof line, f)) lines.emplace_back(line);
  return lines;
}

}  // namespace

TEST_CASE("formats: the progress line shows the step the run is making, not one cut short to land on an output",
          "[app][formats]") {
  std::FILE* f = std::tmpfile();
  REQUIRE(f);
  shwa::app::Progress p(f, 0.0, 2.0, 0.0);  // interval 0: a line for every step
  // Only a step cut short yet (an output before the first full step): its dt is all there is.
  p.update(0.01, 1, 0.01, true);
  p.update(0.12, 2, 0.11, false);
  p.update(0.23, 3, 0.11, false);
  p.update(0.25, 4, 0.02, true);  // cut short to land on the output time 0.25
  p.update(0.37, 5, 0.12, false);
  p.update(0.5, 6, 0.13, true);   // a step that ends on the output time as it is
  const std::vector<std::string> lines = progress_lines(f);
  std::fclose(f);
  REQUIRE(lines.size() == 6);
  const std::vector<std::string> dts = {"dt 0.01 s", "dt 0.11 s", "dt 0.11 s", "dt 0.11 s", "dt 0.12 s", "dt 0.12 s"};
  for (std::size_t k = 0; k < lines.size(); ++k) {
    INFO(lines[k]);
    CHECK(lines[k].find("step " + std::to_string(k + 1) + " ") != std::string::npos);
    CHECK(lines[k].find(dts[k]) != std::string::npos);
  }
}

#ifdef __linux__
TEST_CASE("affinity: an output writer's thread may use every CPU of OpenMP's places, not only the first thread's",
          "[affinity]") {
  // ctest runs this with OMP_PROC_BIND=spread and OMP_PLACES=threads: the OpenMP runtime has bound
  // this (the first) thread to one place; a thread it starts inherits that place.
  cpu_set_t mine;
  REQUIRE(sched_getaffinity(0, sizeof mine, &mine) == 0);
  shwa::app::note_process_cpus();
  int inherited = 0, used = 0;
  std::thread([&] {
    cpu_set_t s;
    sched_getaffinity(0, sizeof s, &s);
    inherited = CPU_COUNT(&s);
    shwa::app::use_process_cpus();
    sched_getaffinity(0, sizeof s, &s);
    used = CPU_COUNT(&s);
  }).join();
  CHECK(inherited == CPU_COUNT(&mine));
  CHECK(shwa::app::process_cpu_count() == used);  // the threads a writer may start
#ifdef _OPENMP
  // Every CPU the process started with (OpenMP's places span them), one place or more than this
  // thread's.
  CHECK(used == omp_get_num_procs());
  if (omp_get_num_places() > 1) CHECK(used > CPU_COUNT(&mine));
#else
  CHECK(used == CPU_COUNT(&mine));
#endif
}
#endif
