// Tests of the shwa program, run as a subprocess as a user runs it: bad input of every class is
// refused with a one-line error, a non-zero exit code and no output; a run killed with SIGKILL and
// restarted ends bit-identical to an uninterrupted one; a corrupted checkpoint is refused; a
// blow-up exits with its own code.
#include <catch2/catch.hpp>

#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace fs = std::filesystem;

namespace {

// A fresh folder under the working directory, removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::current_path() / "app-test-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
};

void write(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Result {
  int code;
  std::string out, err;
};

// Runs `shwa ARGS` (arguments separated by spaces, none quoted), capturing its output.
Result shwa(const TempDir& dir, const std::string& args) {
  const std::string out = dir / "stdout.txt", err = dir / "stderr.txt";
  const std::string cmd = std::string(SHWA_EXE) + " " + args + " > " + out + " 2> " + err;
  const int status = std::system(cmd.c_str());
  return Result{WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
}

// A 20 x 10 raster of value v, with `header` lines replacing the standard ones if given.
std::string raster(double v, int nx = 20, int ny = 10, const std::string& extra_row = "") {
  std::ostringstream s;
  s << "ncols " << nx << "\nnrows " << ny << "\nxllcorner 0\nyllcorner 0\ncellsize 10\nNODATA_value -9999\n";
  for (int j = 0; j < ny; ++j) {
    for (int i = 0; i < nx; ++i) s << v << (i + 1 < nx ? " " : "\n");
  }
  s << extra_row;
  return s.str();
}

// A valid deck over the raster bathy.asc (elevation -2 m) in `dir`, plus `extra` lines.
std::string raster_deck(const TempDir& dir, const std::string& extra = "") {
  return "[initial]\nbathymetry = \"bathy.asc\"\n" + extra + "\n[time]\nend = 10.0\n[output]\ndir = \"" +
         (dir / "out") + "\"\n";
}

// Checks a refused deck: exit code 1, one error line naming `expect`, no output directory.
void expect_refused(const TempDir& dir, const std::string& deck_text, const std::string& expect,
                    const std::string& command = "run") {
  write(dir / "deck.toml", deck_text);
  const Result r = shwa(dir, command + " " + (dir / "deck.toml"));
  INFO("stderr: " << r.err);
  CHECK(r.code == 1);
  CHECK(r.err.rfind("shwa: error: ", 0) == 0);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
  CHECK(r.err.find(expect) != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "out"));
}

const char* const kDamBreak = R"(
[grid]
nx = 60
ny = 20
dx = 1.0
[initial]
problem = "dam_break"
h_left = 2.0
h_right = 0.5
[time]
end = 2.0
)";

}  // namespace

TEST_CASE("app: bad input is refused with one line naming file, line and key", "[app][bad_input]") {
  TempDir dir;
  write(dir / "bathy.asc", raster(-2.0));

  SECTION("a valid deck passes check and writes nothing") {
    write(dir / "deck.toml", raster_deck(dir));
    const Result r = shwa(dir, "check " + (dir / "deck.toml"));
    INFO(r.err);
    CHECK(r.code == 0);
    CHECK(r.out.find("grid: 20 x 10 cells") != std::string::npos);
    CHECK_FALSE(fs::exists(dir / "out"));
  }
  SECTION("missing deck") {
    const Result r = shwa(dir, "run " + (dir / "nothere.toml"));
    CHECK(r.code == 1);
    CHECK(r.err == "shwa: error: " + (dir / "nothere.toml") + ": cannot read: No such file or directory\n");
  }
  SECTION("missing raster") {
    expect_refused(dir, raster_deck(dir).replace(raster_deck(dir).find("bathy.asc"), 9, "gone.asc"),
                   "gone.asc: cannot read: No such file or directory (the file of initial.bathymetry, ");
  }
  SECTION("unreadable raster (a directory)") {
    fs::create_directory(dir / "adir.asc");
    std::string d = raster_deck(dir);
    expect_refused(dir, d.replace(d.find("bathy.asc"), 9, "adir.asc"), "adir.asc: cannot read");
  }
  SECTION("malformed raster header") {
    write(dir / "bathy.asc", "ncols 20\nnrows ten\n");
    expect_refused(dir, raster_deck(dir), "bathy.asc:2:");
  }
  SECTION("wrong number of values") {
    write(dir / "bathy.asc", raster(-2.0, 20, 10, "1 2 3\n"));
    expect_refused(dir, raster_deck(dir), "bathy.asc");
  }
  SECTION("NaN in a raster") {
    std::string r = raster(-2.0);
    r.replace(r.rfind("-2"), 2, "nan");
    write(dir / "bathy.asc", r);
    expect_refused(dir, raster_deck(dir), "bathy.asc:16:");
  }
  SECTION("grid mismatch between the deck and a raster") {
    expect_refused(dir, "[grid]\nnx = 21\nny = 10\ndx = 10.0\n" + raster_deck(dir), "initial.bathymetry: grid mismatch");
  }
  SECTION("grid mismatch between two rasters") {
    write(dir / "conc.asc", raster(0.0, 20, 11));
    expect_refused(dir, raster_deck(dir, "concentration_file = \"conc.asc\""), "initial.concentration_file: grid mismatch");
  }
  SECTION("cfl <= 0") {
    expect_refused(dir, raster_deck(dir) + "[numerics]\ncfl = 0.0\n", "deck.toml:9: numerics.cfl: 0 is out of range");
  }
  SECTION("tile larger than this build allows") {
    expect_refused(dir, raster_deck(dir) + "[numerics]\ntile = [4096, 4096]\n",
                   "deck.toml:9: numerics.tile: expected two whole numbers [tx, ty] with tx * ty <= ");
  }
  SECTION("no rows for the device column kernels") {
    expect_refused(dir, raster_deck(dir) + "[numerics]\nrows = 0\n", "deck.toml:9: numerics.rows: 0 is out of range");
  }
  SECTION("cfl > 1") {
    expect_refused(dir, raster_deck(dir) + "[numerics]\ncfl = 1.5\n", "numerics.cfl:");
  }
  SECTION("negative dx") {
    expect_refused(dir, std::string(kDamBreak).replace(std::string(kDamBreak).find("dx = 1.0"), 8, "dx = -1.0"),
                   "deck.toml:5: grid.dx:");
  }
  SECTION("negative depth") {
    write(dir / "depth.asc", raster(-1.0));
    expect_refused(dir, raster_deck(dir, "depth_file = \"depth.asc\""), "initial.depth_file: negative depth -1");
  }
  SECTION("unknown boundary type") {
    expect_refused(dir, raster_deck(dir) + "[boundary.west]\ntype = \"tidal\"\n", "boundary.west.type:");
  }
  SECTION("unknown key names the closest") {
    expect_refused(dir, raster_deck(dir) + "[numerics]\ncfll = 0.5\n", "did you mean 'numerics.cfl'?");
  }
  SECTION("12O is not 12") {
    expect_refused(dir, raster_deck(dir) + "[numerics]\ncfl = 12O\n", "deck.toml:9: invalid TOML");
  }
  SECTION("--set values are checked too") {
    write(dir / "deck.toml", raster_deck(dir));
    const Result r = shwa(dir, "run " + (dir / "deck.toml") + " --set numerics.cfl=12O");
    CHECK(r.code == 1);
    CHECK(r.err.rfind("shwa: error: command line: numerics.cfl:", 0) == 0);
    CHECK_FALSE(fs::exists(dir / "out"));
  }
  SECTION("an output directory that cannot be written") {
    write(dir / "afile", "x");
    std::string d = raster_deck(dir);
    d.replace(d.find(dir / "out"), (dir / "out").size(), dir / "afile/out");
    write(dir / "deck.toml", d);
    const Result r = shwa(dir, "run " + (dir / "deck.toml"));
    CHECK(r.code == 1);
    CHECK(r.err.find("output.dir:") != std::string::npos);
    CHECK(r.err.find("is not a directory") != std::string::npos);
  }
  SECTION("a bad command line") {
    const Result r = shwa(dir, "run");
    CHECK(r.code == 2);
    CHECK(r.err.rfind("shwa: error: ", 0) == 0);
  }
}

TEST_CASE("app: info and help", "[app][cli]") {
  TempDir dir;
  const Result info = shwa(dir, "info");
  CHECK(info.code == 0);
  CHECK(info.out.find("Kokkos 3.") != std::string::npos);
  CHECK(info.out.find("precision: ") != std::string::npos);
  const Result help = shwa(dir, "--help");
  CHECK(help.code == 0);
  CHECK(help.out.find("run") != std::string::npos);
}

TEST_CASE("app: a run writes every format, the summary and the resolved deck", "[app][outputs]") {
  TempDir dir;
  std::string deck = kDamBreak;
  deck.replace(deck.find("end = 2.0"), 9, "end = 2.0\noutput_interval = 1.0");
  write(dir / "deck.toml", deck + "[output]\ndir = \"" + (dir / "out") +
                               "\"\nformats = [\"vtk\", \"netcdf\", \"asc\", \"png\"]\n"
                               "[gauges.g1]\nx = 30.0\ny = 10.0\n[pollutant]\nx = 20.0\ny = 10.0\nradius = 5.0\n"
                               "concentration = 1.0\n");
  const Result r = shwa(dir, "run " + (dir / "deck.toml"));
  INFO(r.err);
  REQUIRE(r.code == 0);
  for (const char* f : {"deck.toml", "summary.json", "shwa.pvd", "shwa.nc", "gauges.csv", "vtk/shwa_0002.vti",
                        "vtk/maxima.vti", "asc/h_0002.asc", "asc/c_0000.asc", "maxima/arrival.asc",
                        "png/depth_0002.png", "png/concentration_0001.png", "png/hmax.png"})
    CHECK(fs::exists(dir / ("out/" + std::string(f))));
  const std::string summary = slurp(dir / "out/summary.json");
  CHECK(summary.find("\"steps\"") != std::string::npos);
  CHECK(summary.find("\"exact_solution_error\"") != std::string::npos);
  // The resolved deck runs again as it is.
  const Result again = shwa(dir, "check " + (dir / "out/deck.toml"));
  INFO(again.err);
  CHECK(again.code == 0);
}

TEST_CASE("app: a run killed with SIGKILL and restarted ends bit-identical", "[app][restart]") {
  TempDir dir;
  const std::string deck = R"(
[grid]
nx = 300
ny = 160
dx = 1.0
[initial]
problem = "dam_break"
h_left = 10.0
h_right = 1.0
x_dam = 120.0
[pollutant]
x = 100.0
y = 80.0
radius = 20.0
concentration = 1.0
[time]
end = 24.0
output_interval = 6.0
checkpoint_interval = 1.0
[output]
formats = ["asc", "vtk"]
gauge_interval = 0.5
[gauges.a]
x = 150.0
y = 80.0
)";
  write(dir / "deck.toml", deck);
  const std::string ref = dir / "ref", cut = dir / "cut";
  Result r = shwa(dir, "run " + (dir / "deck.toml") + " --set output.dir=" + ref);
  INFO(r.err);
  REQUIRE(r.code == 0);

  // The same run, killed as soon as its first checkpoint exists.
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const std::string deck_path = dir / "deck.toml", set = "output.dir=" + cut;
    if (!freopen("/dev/null", "w", stdout)) _exit(126);
    execl(SHWA_EXE, SHWA_EXE, "run", deck_path.c_str(), "--set", set.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  auto has_checkpoint = [&] {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(cut + "/checkpoints", ec))
      if (e.path().extension() == ".shck") return true;
    return false;
  };
  while (!has_checkpoint() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  REQUIRE(has_checkpoint());
  // Killed mid-run: it had not finished.
  REQUIRE(WIFSIGNALED(status));
  REQUIRE_FALSE(fs::exists(cut + "/summary.json"));

  r = shwa(dir, "run " + (dir / "deck.toml") + " --set output.dir=" + cut + " --restart");
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(slurp(cut + "/summary.json").find("\"restarted_from\": null") == std::string::npos);
  for (const char* f : {"asc/h_0004.asc", "asc/u_0004.asc", "asc/v_0004.asc", "asc/c_0004.asc", "asc/eta_0004.asc",
                        "vtk/shwa_0004.vti", "maxima/hmax.asc", "maxima/cmax.asc", "maxima/arrival.asc",
                        "gauges.csv", "shwa.pvd"}) {
    INFO(f);
    REQUIRE(fs::exists(ref + "/" + f));
    CHECK(slurp(ref + "/" + f) == slurp(cut + "/" + f));
  }

  // A corrupted checkpoint is refused, naming it.
  {
    std::string latest;
    for (const auto& e : fs::directory_iterator(cut + "/checkpoints"))
      if (e.path().string() > latest) latest = e.path().string();
    std::string bytes = slurp(latest);
    bytes[bytes.size() / 2] = char(bytes[bytes.size() / 2] ^ 0x40);
    write(latest, bytes);
    const Result bad = shwa(dir, "run " + (dir / "deck.toml") + " --set output.dir=" + cut + " --restart");
    CHECK(bad.code == 1);
    CHECK(bad.err.find(latest) != std::string::npos);
  }
  // --restart without a checkpoint is refused, and writes nothing.
  {
    const Result none = shwa(dir, "run " + (dir / "deck.toml") + " --set output.dir=" + (dir / "none") + " --restart");
    CHECK(none.code == 1);
    CHECK(none.err.find("no checkpoint to restart from") != std::string::npos);
    CHECK_FALSE(fs::exists(dir / "none"));
  }
}

TEST_CASE("app: a blow-up stops the run with exit code 3 and names the step", "[app][blowup]") {
  TempDir dir;
  // g so large that the wave speed overflows: the time step becomes zero.
  write(dir / "deck.toml", std::string(kDamBreak) + "[physics]\ng = 1e308\n[output]\ndir = \"" + (dir / "out") + "\"\n");
  const Result r = shwa(dir, "run " + (dir / "deck.toml"));
  CHECK(r.code == 3);
  CHECK(r.err.rfind("shwa: error: blow-up found after step 0", 0) == 0);
}
