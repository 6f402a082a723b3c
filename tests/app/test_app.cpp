// Tests of the shwa program, run as a subprocess as a user runs it: bad input of every class is
// refused with a one-line error, a non-zero exit code and no output; a run killed with SIGKILL and
// restarted ends bit-identical to an uninterrupted one; a corrupted checkpoint is refused, and so
// is a restart with another deck value or input file; SIGTERM stops a run with a checkpoint from
// which the command it prints resumes it, bit-identical; a
// blow-up exits with its own code, naming where it began; gauges sampled every step are written
// whole; a run that starts over in an output directory of another run is refused unless
// --overwrite, which removes shwa's files only. The optional output formats (NetCDF, PNG) are used where this build has them
// (SHWA_HAVE_NETCDF, SHWA_HAVE_PNG); where it lacks one, a deck asking for it is refused.
#include <Kokkos_Macros.hpp>
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "../io/vti_reader.hpp"
#include "../temp_dir.hpp"

#if SHWA_HAVE_PNG
#include "../io/apng_reader.hpp"
#endif

namespace fs = std::filesystem;

namespace {

// The program tests' temporary folders: app-test-XXXXXX.
struct TempDir : shwa_test::TempDir {
  TempDir() : shwa_test::TempDir("app-test") {}
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

// Every shwa this file starts through a shell runs under coreutils' timeout: a run that hangs
// fails its test with timeout's exit status, 124, instead of holding the suite.
const std::string kBounded = "timeout -k 10 300 ";

struct Result {
  int code;
  std::string out, err;
};

// Runs `shwa ARGS` (arguments separated by spaces, none quoted), capturing its output.
Result shwa(const TempDir& dir, const std::string& args, const std::string& piped_from = "") {
  const std::string out = dir / "stdout.txt", err = dir / "stderr.txt";
  // piped_from: a file `cat` pipes into shwa's standard input.
  const std::string cmd = (piped_from.empty() ? "" : "cat " + piped_from + " | ") + kBounded + SHWA_EXE + " " +
                          args + " > " + out + " 2> " + err;
  const int status = std::system(cmd.c_str());
  return Result{WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
}

// Starts `shwa ARGS...` without waiting for it, its stdout to /dev/null and its stderr to
// `err_path`, SIGINT ignored if `ignore_sigint` (as nohup or a shell's background job start it);
// returns its process id.
pid_t start_shwa(const std::vector<std::string>& args, const std::string& err_path, bool ignore_sigint = false) {
  const pid_t pid = fork();
  if (pid == 0) {
    if (ignore_sigint) signal(SIGINT, SIG_IGN);
    std::vector<char*> argv{const_cast<char*>(SHWA_EXE)};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    if (!freopen("/dev/null", "w", stdout) || !freopen(err_path.c_str(), "w", stderr)) _exit(126);
    execv(SHWA_EXE, argv.data());
    _exit(127);
  }
  return pid;
}

// Waits until `ready()` holds or `seconds` pass; returns ready().
template <class F>
bool wait_until(F&& ready, int seconds = 120) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (!ready() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  return ready();
}

// The checkpoint files of an output folder, sorted (the newest last).
#if SHWA_HAVE_PNG
// png_dir/FIELD_animation.png: a well-formed APNG of `frames` frames, frame k the image data of
// png_dir/FIELD_000k.png.
void check_animation(const std::string& png_dir, const std::string& field, int frames) {
  using namespace apng_test;
  const Apng a = read_apng(as_bytes(slurp(png_dir + "/" + field + "_animation.png")));
  INFO(Catch::Detail::stringify(a.problems));
  CHECK(a.problems.empty());
  CHECK(a.declared_frames == frames);
  REQUIRE(a.frames.size() == std::size_t(frames));
  for (int k = 0; k < frames; ++k) {
    INFO("frame " << k);
    const Bytes png = as_bytes(slurp(png_dir + "/" + field + "_000" + std::to_string(k) + ".png"));
    CHECK(a.ihdr == png_chunks(png).at(0).second);  // the frames have one size: no frame re-encoded
    bool ok = false, ok_png = false;
    CHECK(inflate_all(a.frames[std::size_t(k)].data, ok) == inflate_all(png_image_data(png), ok_png));
    CHECK(ok);
    CHECK(ok_png);
  }
}
#endif

std::vector<std::string> checkpoints_in(const std::string& out) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(out + "/checkpoints", ec))
    if (e.path().extension() == ".shck") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  return files;
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

// Checks an accepted deck: `shwa check` of it exits 0; its result for more checks.
Result expect_accepted(const TempDir& dir, const std::string& deck_text) {
  write(dir / "deck.toml", deck_text);
  const Result r = shwa(dir, "check " + (dir / "deck.toml"));
  INFO("stderr: " << r.err);
  CHECK(r.code == 0);
  return r;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string item;
  std::istringstream in(s);
  while (std::getline(in, item, sep)) out.push_back(item);
  return out;
}

// raster(v) of 20 x 10 cells with `value` in cell (i, j), j = 0 the southern row (the text's last).
std::string raster_with_cell(double v, int i, int j, const std::string& value) {
  std::vector<std::string> lines = lines_of(raster(v));
  std::vector<std::string> row = split(lines[6 + 9 - std::size_t(j)], ' ');
  row[std::size_t(i)] = value;
  std::string text;
  for (std::size_t k = 0; k < lines.size(); ++k) {
    if (k != 6 + 9 - std::size_t(j)) {
      text += lines[k] + "\n";
      continue;
    }
    for (std::size_t c = 0; c < row.size(); ++c) text += (c ? " " : "") + row[c];
    text += "\n";
  }
  return text;
}

// A value of summary.json ("key": number), as text.
std::string json_number(const std::string& json, const std::string& key) {
  const std::size_t at = json.find("\"" + key + "\": ");
  if (at == std::string::npos) return "";
  const std::size_t from = at + key.size() + 4;
  return json.substr(from, json.find_first_of(",\n}", from) - from);
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

// A dam break of about 700 steps on 80 000 cells (about 1 s of loop on two host cores), long
// enough for a test to act while its time loop runs, even on a many-core host or a GPU.
const char* const kLongDamBreak = R"(
[grid]
nx = 400
ny = 200
dx = 0.5
[initial]
problem = "dam_break"
h_left = 10.0
h_right = 1.0
x_dam = 80.0
[pollutant]
x = 60.0
y = 50.0
radius = 15.0
concentration = 1.0
[time]
end = 16.0
output_interval = 4.0
[output]
formats = ["asc", "vtk"]
gauge_interval = 0.5
[gauges.a]
x = 100.0
y = 50.0
)";

}  // namespace

TEST_CASE("app: bad input is refused with one line naming file, line and key", "[app][bad_input]") {
  TempDir dir;
  write(dir / "bathy.asc", raster(-2.0));

  SECTION("a valid deck passes check and writes nothing") {
    const Result r = expect_accepted(dir, raster_deck(dir));
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
    // A part of [grid]: the keys left out are the raster's, those given are compared.
    expect_refused(dir, "[grid]\nnx = 21\n" + raster_deck(dir),
                   "initial.bathymetry: grid mismatch: the deck's [grid] has 21 x 10 cells, " + (dir / "bathy.asc") + " has 20 x 10");
    expect_refused(dir, "[grid]\ndx = 5.0\n" + raster_deck(dir),
                   "initial.bathymetry: grid mismatch: the deck's [grid] has cells of 5 x 5, " + (dir / "bathy.asc") + " of 10 x 10");
    expect_accepted(dir, "[grid]\nny = 10\ndx = 10.0\n" + raster_deck(dir));
  }
  SECTION("grid mismatch between two rasters") {
    write(dir / "conc.asc", raster(0.0, 20, 11));
    expect_refused(dir, raster_deck(dir, "concentration_file = \"conc.asc\""), "initial.concentration_file: grid mismatch");
  }
  SECTION("named pollutants beside the unnamed pollutant's keys") {
    expect_refused(dir, raster_deck(dir, "concentration = 0.5") + "[pollutants.oil]\nconcentration = 1.0\n",
                   "deck.toml:3: initial.concentration: the deck names its pollutants ([pollutants.NAME]): give each "
                   "its own concentration as pollutants.NAME.concentration");
    expect_refused(dir, raster_deck(dir) + "[pollutant]\nx = 50.0\ny = 50.0\nradius = 20.0\nconcentration = 1.0\n"
                                           "[pollutants.oil]\nconcentration = 1.0\n",
                   "deck.toml:12: pollutant.concentration: the deck names its pollutants ([pollutants.NAME]): give a pollutant's "
                   "spill as [pollutants.NAME.spill]");
  }
  SECTION("a pollutant name that cannot name files") {
    expect_refused(dir, raster_deck(dir) + "[pollutants.o-il]\nconcentration = 1.0\n",
                   "deck.toml:9: pollutants.o-il.concentration: the pollutant name \"o-il\" cannot name files and "
                   "columns: a letter, then letters, digits or _, at most 32");
  }
  SECTION("more pollutants than a run carries") {
    std::string d = raster_deck(dir);
    for (const char* n : {"a", "b", "c", "d", "e", "f"}) d += std::string("[pollutants.") + n + "]\nconcentration = 0.1\n";
    expect_refused(dir, d, "pollutants.e.concentration: 6 pollutants; a run carries at most ");
  }
  SECTION("a format listed twice") {
    expect_refused(dir, raster_deck(dir), "command line: output.formats: format \"asc\" is listed twice",
                   "run --set 'output.formats=[\"asc\", \"asc\"]'");
  }
  SECTION("empty [pollutants.NAME] tables name pollutants too") {
    std::string d = raster_deck(dir);
    for (const char* n : {"a", "b", "c"}) d += std::string("[pollutants.") + n + "]\nconcentration = 0.1\n";
    d += "[pollutants.d]\n[pollutants.e]\n";  // lines 14 and 15
    expect_refused(dir, d, "deck.toml:15: pollutants.e: 5 pollutants; a run carries at most ");
  }
  SECTION("a boundary inflow of a pollutant the run does not carry, or of none") {
    const std::string d = raster_deck(dir) + "[pollutants.oil]\nconcentration = 0.0\n[boundary.west]\n"
                                             "type = \"discharge\"\nvalue = 1.0\n";
    expect_refused(dir, d + "concentration.oli = 0.5\n",
                   "deck.toml:13: boundary.west.concentration.oli: no pollutant \"oli\"; the run's pollutants are "
                   "oil\n");
    expect_refused(dir, d + "concentration = 0.5\n",
                   "deck.toml:13: boundary.west.concentration: the run names its pollutants ([pollutants.NAME]): "
                   "give boundary.west.concentration.NAME, one a pollutant");
  }
  SECTION("cfl <= 0") {
    expect_refused(dir, raster_deck(dir) + "[numerics]\ncfl = 0.0\n", "deck.toml:9: numerics.cfl: 0 is out of range");
  }
  SECTION("tile larger than this build allows") {
    expect_refused(dir, raster_deck(dir) + "[numerics]\ntile = [4096, 4096]\n",
                   "deck.toml:9: numerics.tile: expected two whole numbers [tx, ty] with tx * ty <= ");
  }
  SECTION("a tile of no width but some height ([0, 0] is the build's tile)") {
    expect_refused(dir, raster_deck(dir) + "[numerics]\ntile = [0, 8]\n",
                   "deck.toml:9: numerics.tile: expected two whole numbers [tx, ty] with tx * ty <= ");
  }
  SECTION("negative rows for the device column kernels (0 is automatic)") {
    expect_refused(dir, raster_deck(dir) + "[numerics]\nrows = -1\n", "deck.toml:9: numerics.rows: -1 is out of range");
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
  SECTION("a cell size below 1e-4 m is refused, from the deck or from the raster, not blamed on max_steps") {
    expect_refused(dir, raster_deck(dir) + "[grid]\ndx = 1e-300\n",
                   "grid.dx: 1e-300 is out of range: must be [0.0001, 10000000]");
    std::string tiny = raster(-2.0);
    tiny.replace(tiny.find("cellsize 10"), 11, "cellsize 0.00001");
    write(dir / "bathy.asc", tiny);
    expect_refused(dir, raster_deck(dir), "initial.bathymetry: cell size 0.00001 m is out of range: must be [0.0001, 10000000]");
  }
  SECTION("a run without water and without an inflow is refused; an inflow makes it a run") {
    for (const char* command : {"check", "run"}) {
      INFO(command);
      expect_refused(dir, raster_deck(dir, "surface = -3.0"),
                     (dir / "deck.toml") + ": [initial]: no cell holds water (the deepest is 0 m, below "
                                           "physics.eps_h = 0.001 m) and no stage or discharge boundary lets any in",
                     command);
    }
    expect_accepted(dir, raster_deck(dir, "surface = -3.0") + "[boundary.west]\ntype = \"discharge\"\nvalue = 1.0\n");
  }
  SECTION("a boundary's key of another type says which type reads it") {
    expect_refused(dir, raster_deck(dir) + "[boundary.west]\nvalue = 10.0\n",
                   "boundary.west.value: used only with boundary.west.type = \"stage\" or \"discharge\" "
                   "(boundary.west.type is \"wall\", the default)");
    expect_refused(dir, raster_deck(dir) + "[boundary.west]\ntype = \"stage\"\nvalue = 1.0\nconcentration = 1.0\n",
                   "deck.toml:11: boundary.west.concentration: used only with boundary.west.type = \"discharge\" "
                   "(boundary.west.type is \"stage\", " + (dir / "deck.toml") + ":9)");
    // A --set that changes the type leaves the deck's keys behind: the error names both places.
    expect_refused(dir, raster_deck(dir) + "[boundary.west]\ntype = \"stage\"\nvalue = 1.0\n",
                   "deck.toml:10: boundary.west.value: used only with boundary.west.type = \"stage\" or "
                   "\"discharge\" (boundary.west.type is \"wall\", command line)",
                   "check --set boundary.west.type=wall");
  }
  SECTION("keys that exclude each other are named with where each is set") {
    expect_refused(dir, raster_deck(dir),
                   "deck.toml:2: initial.bathymetry: set initial.bathymetry or initial.problem (command line), "
                   "not both",
                   "check --set initial.problem=dam_break");
    expect_refused(dir, raster_deck(dir),
                   "command line: time.output_times: set time.output_times or time.output_interval "
                   "(command line), not both",
                   "check --set time.output_interval=5 --set time.output_times=[1,2]");
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
#if !SHWA_HAVE_NETCDF || !SHWA_HAVE_PNG
  SECTION("a format this build lacks is refused, naming the deck, the key and what builds it") {
    const std::string missing = SHWA_HAVE_PNG ? "netcdf" : "png";
    const std::string package = SHWA_HAVE_PNG ? "libnetcdf-dev" : "libpng-dev";
    for (const char* command : {"check", "run"}) {
      INFO(command);
      expect_refused(dir, raster_deck(dir) + "formats = [\"vtk\", \"" + missing + "\"]\n",
                     (dir / "deck.toml") + ":8: output.formats: format \"" + missing +
                         "\" is not in this build of shwa (install " + package,
                     command);
    }
  }
#endif
  SECTION("the default formats are those of this build") {
    const Result r = expect_accepted(dir, raster_deck(dir));
    CHECK(r.out.find(SHWA_HAVE_PNG ? "formats = [\"vtk\", \"png\"]" : "formats = [\"vtk\"]") != std::string::npos);
  }
  SECTION("negative values in a discharge or concentration series are refused, as the constants are") {
    write(dir / "inflow.csv", "time,q,c\n# a comment line\n0,1.0,0.5\n\n5,-2.0,0.5\n10,1.0,-0.25\n");
    const std::string side = "[boundary.west]\ntype = \"discharge\"\nseries = \"inflow.csv\"\ncolumn = \"q\"\n";
    expect_refused(dir, raster_deck(dir) + side,
                   "inflow.csv:5: negative discharge -2 at t = 5 s; a discharge is >= 0 (boundary.west.series, ");
    write(dir / "inflow.csv", "time,q,c\n0,1.0,0.5\n10,1.0,-0.25\n");
    expect_refused(dir, raster_deck(dir) + side + "concentration_column = \"c\"\n",
                   "inflow.csv:3: negative concentration -0.25 at t = 10 s; a concentration is >= 0 "
                   "(boundary.west.concentration_column, ");
  }
  SECTION("a stage or discharge beyond the plausible is refused, constant or in a series, not run for days") {
    for (const char* command : {"check", "run"}) {
      INFO(command);
      expect_refused(dir, raster_deck(dir) + "[boundary.west]\ntype = \"stage\"\nvalue = 1e30\n",
                     "boundary.west.value: 1e+30 is out of range: must be [-100000, 100000]", command);
      expect_refused(dir, raster_deck(dir) + "[boundary.west]\ntype = \"discharge\"\nvalue = 1e30\n",
                     "boundary.west.value: 1e+30 is out of range: must be [0, 100000000]", command);
    }
    // The largest plausible values are taken.
    expect_accepted(dir, raster_deck(dir) + "[boundary.west]\ntype = \"discharge\"\nvalue = 1e8\n");
    write(dir / "tide.csv", "time,stage\n0,0.5\n5,-2e5\n10,0.5\n");
    expect_refused(dir, raster_deck(dir) + "[boundary.east]\ntype = \"stage\"\nseries = \"tide.csv\"\n",
                   "tide.csv:3: stage -200000 at t = 5 s is not plausible: at most 100000 m in magnitude "
                   "(boundary.east.series, ");
    write(dir / "inflow.csv", "time,q\n0,1.0\n10,3e8\n");
    expect_refused(dir, raster_deck(dir) + "[boundary.west]\ntype = \"discharge\"\nseries = \"inflow.csv\"\n",
                   "inflow.csv:3: discharge 300000000 at t = 10 s is not plausible: at most 100000000 m^3/s in magnitude "
                   "(boundary.west.series, ");
  }
  SECTION("a series that does not cover the run, t = 0 to time.end, is refused, not held at its ends") {
    const std::string side = "[boundary.west]\ntype = \"discharge\"\nseries = \"inflow.csv\"\ncolumn = \"q\"\n";
    write(dir / "inflow.csv", "time,q,c\n0,1.0,0.5\n9.5,1.0,0.5\n");
    expect_refused(dir, raster_deck(dir) + side,
                   "inflow.csv: the series ends at t = 9.5 s, before time.end = 10 s; give values up to the run's "
                   "end (boundary.west.series, ");
    write(dir / "inflow.csv", "time,q,c\n0.5,1.0,0.5\n10,1.0,0.5\n");
    expect_refused(dir, raster_deck(dir) + side,
                   "inflow.csv: the series starts at t = 0.5 s, after the run's start at t = 0; give a value at "
                   "t = 0 or before (boundary.west.series, ");
    // A stage series too, beside a discharge series that covers more than the run.
    write(dir / "inflow.csv", "time,q,c\n-5,1.0,0.5\n20,1.0,0.5\n");
    write(dir / "tide.csv", "time,stage\n0,0.5\n5,0.5\n");
    const std::string stage = "[boundary.east]\ntype = \"stage\"\nseries = \"tide.csv\"\n";
    expect_refused(dir, raster_deck(dir) + side + stage,
                   "tide.csv: the series ends at t = 5 s, before time.end = 10 s; give values up to the run's end "
                   "(boundary.east.series, ");
    write(dir / "tide.csv", "time,stage\n0,0.5\n10,0.5\n");
    expect_accepted(dir, raster_deck(dir) + side + stage);
  }
  SECTION("a gauge interval that would make more than 1e8 samples is refused") {
    expect_refused(dir, raster_deck(dir) + "gauge_interval = 1e-9\n",
                   "output.gauge_interval: 1e-09 s up to time.end = 10 s makes 10000000000 gauge samples; at most "
                   "100000000");
  }
  SECTION("a gauge on a NODATA cell of the bathymetry (a wall) is refused; one beside it runs") {
    write(dir / "bathy.asc", raster_with_cell(-2.0, 3, 9, "-9999"));
    expect_refused(dir, raster_deck(dir, "[gauges.pier]\nx = 35.0\ny = 99.0\n"),
                   "gauges.pier.x: the gauge at (35, 99) lies in cell (3, 9), NODATA in ");
    expect_accepted(dir, raster_deck(dir, "[gauges.pier]\nx = 35.0\ny = 89.0\n"));
  }
  SECTION("a bad value in a Manning or concentration raster is refused, naming its cell") {
    write(dir / "n.asc", raster_with_cell(0.03, 7, 2, "1.5"));
    expect_refused(dir, raster_deck(dir, "[physics]\nmanning_file = \"n.asc\"\n"),
                   "physics.manning_file: Manning's n 1.5 outside [0, 1] in cell (7, 2) counted from the south-west corner");
    write(dir / "c.asc", raster_with_cell(0.1, 0, 0, "-0.5"));
    expect_refused(dir, raster_deck(dir, "concentration_file = \"c.asc\"\n"),
                   "initial.concentration_file: negative concentration -0.5 in cell (0, 0) counted from the south-west "
                   "corner");
  }
  SECTION("a gauge name that cannot name CSV columns, and a field listed twice, are refused before any file") {
    expect_refused(dir, raster_deck(dir) + "[gauges.\"a b\"]\nx = 5.0\ny = 5.0\n",
                   "gauge name \"a b\": use letters, digits, '_', '-' and '.' only");
    expect_refused(dir, raster_deck(dir) + "fields = [\"h\", \"c\", \"h\"]\n",
                   "deck.toml:8: output.fields: field \"h\" is listed twice");
  }
  SECTION("an asc/ in the output directory that is not a folder is refused before anything is written") {
    fs::create_directory(dir / "out");
    write(dir / "out/asc", "not a folder");
    write(dir / "deck.toml", raster_deck(dir) + "formats = [\"asc\"]\n");
    const Result r = shwa(dir, "run " + (dir / "deck.toml"));
    INFO(r.err);
    CHECK(r.code == 1);
    CHECK(r.err.find("output.dir: \"" + (dir / "out/asc") + "\": ") != std::string::npos);
    CHECK(std::distance(fs::directory_iterator(dir / "out"), fs::directory_iterator()) == 1);
  }
  SECTION("a tiny output interval is refused from the count, before any list is built") {
    std::string d = raster_deck(dir);
    d.replace(d.find("end = 10.0"), 10, "end = 10.0\noutput_interval = 1e-12");
    expect_refused(dir, d, "deck.toml:6: time.output_interval: 1e-12 s up to time.end = 10 s makes 10000000000000 "
                           "output times; at most 100000");
  }
  SECTION("absurd magnitudes are refused at input time, as bad input") {
    std::string dam = kDamBreak;
    expect_refused(dir, std::string(dam).replace(dam.find("dx = 1.0"), 8, "dx = 1e400"),
                   "deck.toml:5: grid.dx: a number at or beyond the largest double (1.8e308)");
    expect_refused(dir, std::string(dam).replace(dam.find("h_left = 2.0"), 12, "h_left = 1e300"),
                   "deck.toml:8: initial.h_left: 1e+300 is out of range");
    expect_refused(dir, raster_deck(dir) + "[physics]\ng = 1e300\n", "deck.toml:9: physics.g: 1e+300 is out of range");
    expect_refused(dir, raster_deck(dir) + "[physics]\neps_h = 1e-13\n", "deck.toml:9: physics.eps_h: 1e-13 is out of range");
    expect_refused(dir, raster_deck(dir) + "[physics]\ng = 1e-7\n", "deck.toml:9: physics.g: 1e-07 is out of range");
    write(dir / "bathy.asc", raster(-1e300));
    expect_refused(dir, raster_deck(dir), "initial.bathymetry: bottom -1e+300 m in cell (0, 0)");
    write(dir / "bathy.asc", raster(-2.0));
    write(dir / "depth.asc", raster(1e300));
    expect_refused(dir, raster_deck(dir, "depth_file = \"depth.asc\""),
                   "deck.toml:3: initial.depth_file: initial depth 1e+300 m in cell (0, 0)");
  }
  SECTION("a run whose first time step implies more than numerics.max_steps steps") {
    // 2 m deep, 10 m cells, CFL 0.9: dt = 0.9 * 10 / (2 sqrt(9.81 * 2)) = 1.016 s, so 9.8 steps to 10 s.
    expect_refused(dir, raster_deck(dir) + "[numerics]\nmax_steps = 9\n",
                   "deck.toml:9: numerics.max_steps: the first time step, 1.01");
    expect_refused(dir, raster_deck(dir) + "[numerics]\nmax_steps = 20.5\n",
                   "deck.toml:9: numerics.max_steps: expected a whole number of steps, got 20.5");
    expect_refused(dir, raster_deck(dir) + "[numerics]\nmax_steps = 0\n",
                   "deck.toml:9: numerics.max_steps: 0 is out of range: must be >= 1");
    expect_refused(dir, raster_deck(dir) + "[numerics]\nmax_steps = 1e400\n",
                   "deck.toml:9: numerics.max_steps: a number at or beyond the largest double (1.8e308)");
    expect_accepted(dir, raster_deck(dir) + "[numerics]\nmax_steps = 10\n");
  }
  SECTION("a grid that needs more memory than the machine has is refused at once, before its state is built") {
    // 2^31 cells, the most a deck may give: several hundred GB for its initial state alone.
    std::ifstream meminfo("/proc/meminfo");
    std::string key;
    long long kb = 0, available_kb = -1;
    while (meminfo >> key >> kb) {
      if (key == "MemAvailable:") available_kb = kb;
      meminfo.ignore(64, '\n');
    }
    if (available_kb > (1LL << 30)) {  // more than 1 TiB: such a run may fit
      WARN("this machine has " << available_kb / (1 << 20) << " GiB available: the refusal of a 2^31-cell grid is not tested");
    } else {
      std::string dam = kDamBreak;
      const std::string grid = "nx = 60\nny = 20";
      dam.replace(dam.find(grid), grid.size(), "nx = 1048576\nny = 2048");
      for (const char* command : {"check", "run"}) {
        INFO(command);
        const auto t0 = std::chrono::steady_clock::now();
        expect_refused(dir, dam + "[output]\ndir = \"" + (dir / "out") + "\"\n",
                       "deck.toml:3: grid.nx: the 1048576 x 2048 grid (2147483648 cells) needs about ", command);
        const Result r = shwa(dir, std::string(command) + " " + (dir / "deck.toml"));
        CHECK(r.err.find(" of host memory on its rank, more than the ") != std::string::npos);
        CHECK(r.err.find(" available (") != std::string::npos);
        CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(60));
      }
      // No child grew to the size of the grid's state (16 GiB a field).
      struct rusage use {};
      getrusage(RUSAGE_CHILDREN, &use);
      CHECK(use.ru_maxrss < 1024L * 1024);  // KiB: less than 1 GiB
    }
  }
  SECTION("a bad command line") {
    const Result r = shwa(dir, "run");
    CHECK(r.code == 2);
    CHECK(r.err.rfind("shwa: error: ", 0) == 0);
    // A --set without a key and an '=' is one too, naming what it got; nothing is written.
    write(dir / "deck.toml", raster_deck(dir));
    for (const char* set : {"grid.nx", "=5"}) {
      INFO(set);
      const Result s = shwa(dir, "run " + (dir / "deck.toml") + " --set " + set);
      CHECK(s.code == 2);
      CHECK(s.err.find("--set") != std::string::npos);
      CHECK(s.err.find("expected SECTION.KEY=VALUE, got \"" + std::string(set) + "\"") != std::string::npos);
      CHECK_FALSE(fs::exists(dir / "out"));
    }
  }
}

TEST_CASE("app: info and help", "[app][cli]") {
  TempDir dir;
  const Result info = shwa(dir, "info");
  CHECK(info.code == 0);
  // The Kokkos this build uses, whichever version (3.4 on).
  CHECK(info.out.find("Kokkos " + std::to_string(KOKKOS_VERSION / 10000) + "." +
                      std::to_string(KOKKOS_VERSION / 100 % 100) + ".") != std::string::npos);
  CHECK(info.out.find("precision: ") != std::string::npos);
  // Which operations are fused into FMAs: none on a host build (-ffp-contract=off); a CUDA build's
  // answer depends on SHWA_DEVICE_FMA.
#ifdef KOKKOS_ENABLE_CUDA
  CHECK(info.out.find("FMA contraction: ") != std::string::npos);
#else
  CHECK(info.out.find("FMA contraction: none\n") != std::string::npos);
#endif
  // How the device kernels divide and take roots (core/math.hpp): as written on a host build.
#if defined(KOKKOS_ENABLE_CUDA) || defined(KOKKOS_ENABLE_HIP)
  CHECK(info.out.find("device math: ") != std::string::npos);
#else
  CHECK(info.out.find("device math: divisions and roots as written\n") != std::string::npos);
#endif
  // The output formats of this build, and what builds the missing ones.
  const std::string built = info.out.substr(info.out.find("output formats: "));
  CHECK(built.rfind("output formats: vtk", 0) == 0);
  const std::string first_line = built.substr(0, built.find('\n'));
  CHECK(first_line.find("asc") != std::string::npos);
  CHECK((first_line.find("netcdf") != std::string::npos) == bool(SHWA_HAVE_NETCDF));
  CHECK((first_line.find("png") != std::string::npos) == bool(SHWA_HAVE_PNG));
  CHECK((info.out.find("\n  netcdf: ") != std::string::npos) == !SHWA_HAVE_NETCDF);
  CHECK((info.out.find("\n  png: ") != std::string::npos) == !SHWA_HAVE_PNG);
  if (!SHWA_HAVE_PNG) CHECK(info.out.find("install libpng-dev") != std::string::npos);
  if (!SHWA_HAVE_NETCDF) CHECK(info.out.find("install libnetcdf-dev") != std::string::npos);
  if (SHWA_HAVE_NETCDF && SHWA_HAVE_PNG) CHECK(info.out.find("output formats not in this build: none") != std::string::npos);
  const Result help = shwa(dir, "--help");
  CHECK(help.code == 0);
  CHECK(help.out.find("run") != std::string::npos);
  // --version: the line `shwa info` starts with.
  const Result version = shwa(dir, "--version");
  CHECK(version.code == 0);
  CHECK(version.out == info.out.substr(0, info.out.find('\n') + 1));
  CHECK(version.out.rfind("shwa ", 0) == 0);
  // Thread counts Kokkos cannot start are a bad command line (exit 2), not a crash.
  for (const char* n : {"0", "-3", "100000"}) {
    INFO("--threads " << n);
    const Result r = shwa(dir, std::string("--threads ") + n + " info");
    CHECK(r.code == 2);
    CHECK(r.err.find("--threads") != std::string::npos);
  }
  CHECK(shwa(dir, "--threads 2 info").code == 0);
  // A first word that is no command is named; a device number below 0 is refused in a short line.
  const Result bogus = shwa(dir, "--threads 2 bogus");
  CHECK(bogus.code == 2);
  CHECK(bogus.err == "shwa: error: unknown command \"bogus\"; the commands are run, check and info (see shwa --help)\n");
  const Result device = shwa(dir, "--device -1 info");
  CHECK(device.code == 2);
  CHECK(device.err == "shwa: error: --device: Value -1 not in range 0 to 65535 (see shwa --help)\n");
  // --threads after the command, as before it.
  write(dir / "deck.toml", "[grid]\nnx = 10\nny = 10\ndx = 1.0\n[initial]\nproblem = \"lake_at_rest\"\n[time]\nend = 1.0\n");
  CHECK(shwa(dir, "check " + (dir / "deck.toml") + " --threads 2").code == 0);
}

// The commands the decks under inputs/ print in their header comments ("#   shwa run inputs/X.toml
// ARGS") check as they are. Those run under mpirun are the MPI tests' (app.mpi.*).
TEST_CASE("app: the commands in the decks' comments are accepted", "[app][decks]") {
  TempDir dir;
  const std::regex command(R"(^#\s+shwa run inputs/(\S+\.toml)(.*)$)");
  int commands = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(SHWA_SOURCE_DIR) / "inputs")) {
    if (entry.path().extension() != ".toml") continue;
    for (const std::string& line : lines_of(slurp(entry.path().string()))) {
      std::smatch m;
      if (!std::regex_match(line, m, command)) continue;
      INFO(entry.path().filename().string() << ": " << line);
      const Result r = shwa(dir, "check " + (fs::path(SHWA_SOURCE_DIR) / "inputs" / m[1].str()).string() + m[2].str());
      INFO("stderr: " << r.err);
      CHECK(r.code == 0);
      ++commands;
    }
  }
  CHECK(commands >= 4);
}

TEST_CASE("app: output.precision and output.vtk_compression keep the values, in fewer bytes",
          "[app][vtk_encoding]") {
  TempDir dir;
  std::string deck = kDamBreak;
  deck.replace(deck.find("end = 2.0"), 9, "end = 2.0\noutput_interval = 1.0");
  deck += "[pollutant]\nx = 20.0\ny = 10.0\nradius = 5.0\nconcentration = 1.0\n";
  auto run = [&](const std::string& name, const std::string& keys) {
    write(dir / (name + ".toml"), deck + "[output]\ndir = \"" + (dir / name) + "\"\nformats = [\"vtk\"]\n" + keys);
    const Result r = shwa(dir, "run " + (dir / (name + ".toml")));
    INFO(r.err);
    REQUIRE(r.code == 0);
  };
  run("double", "");
  run("zlib", "vtk_compression = \"zlib\"\n");
  run("single", "precision = \"single\"\nvtk_compression = \"zlib\"\n");
  using vti_test::read_vti;
  for (const char* file : {"vtk/shwa_0002.vti", "vtk/maxima.vti"}) {
    INFO(file);
    const auto d = read_vti(slurp(dir / ("double/" + std::string(file))));
    const auto z = read_vti(slurp(dir / ("zlib/" + std::string(file))));
    const auto s = read_vti(slurp(dir / ("single/" + std::string(file))));
    CHECK(!d.compressed);
    CHECK(z.compressed);
    CHECK(s.compressed);
    REQUIRE(d.arrays.size() == (std::string(file) == "vtk/maxima.vti" ? 3u : 5u));
    for (const auto& [name, a] : d.arrays) {
      INFO(name);
      CHECK(a.type == "Float64");
      CHECK(z.arrays.at(name).type == "Float64");
      CHECK(z.arrays.at(name).bytes == a.bytes);
      CHECK(s.arrays.at(name).type == "Float32");
      const std::vector<double> exact = d.values<double>(name);
      const std::vector<float> single = s.values<float>(name);
      REQUIRE(single.size() == exact.size());
      for (std::size_t k = 0; k < exact.size(); ++k)
        if (std::isnan(exact[k])) REQUIRE(std::isnan(single[k]));
        else REQUIRE(single[k] == static_cast<float>(exact[k]));
    }
  }
  // The resolved deck names both keys with their values; an unknown value is refused, naming it.
  CHECK(slurp(dir / "single/deck.toml").find("precision = \"single\"") != std::string::npos);
  CHECK(slurp(dir / "double/deck.toml").find("vtk_compression = \"none\"") != std::string::npos);
  write(dir / "bad.toml", deck + "[output]\ndir = \"" + (dir / "bad") + "\"\nprecision = \"half\"\n");
  const Result bad = shwa(dir, "run " + (dir / "bad.toml"));
  CHECK(bad.code == 1);
  CHECK(bad.err.find("output.precision") != std::string::npos);
  CHECK(bad.err.find("expected one of double, single") != std::string::npos);
  CHECK(!fs::exists(dir / "bad"));
}

TEST_CASE("app: a run writes every format, the summary and the resolved deck", "[app][outputs]") {
  TempDir dir;
  std::string deck = kDamBreak;
  deck.replace(deck.find("end = 2.0"), 9, "end = 2.0\noutput_interval = 1.0");
  std::string formats = "\"vtk\", \"asc\"";
  std::vector<std::string> files = {"deck.toml", "summary.json", "shwa.pvd", "gauges.csv", "vtk/shwa_0002.vti",
                                    "vtk/maxima.vti", "asc/h_0002.asc", "asc/c_0000.asc", "maxima/arrival.asc"};
  if (SHWA_HAVE_NETCDF) {
    formats += ", \"netcdf\"";
    files.push_back("shwa.nc");
  }
  if (SHWA_HAVE_PNG) {
    formats += ", \"png\"";
    for (const char* f : {"png/depth_0002.png", "png/concentration_0001.png", "png/hmax.png", "png/depth_animation.png",
                          "png/concentration_animation.png"})
      files.push_back(f);
  }
  write(dir / "deck.toml", deck + "[output]\ndir = \"" + (dir / "out") + "\"\nformats = [" + formats + "]\n"
                               "[gauges.g1]\nx = 30.0\ny = 10.0\n[pollutant]\nx = 20.0\ny = 10.0\nradius = 5.0\n"
                               "concentration = 1.0\n");
  const Result r = shwa(dir, "run " + (dir / "deck.toml"));
  INFO(r.err);
  REQUIRE(r.code == 0);
  for (const std::string& f : files) {
    INFO(f);
    CHECK(fs::exists(dir / ("out/" + f)));
  }
  // The first line: the run, its grid and end, and how long its inputs took to read.
  INFO(r.out);
  const std::string first = r.out.substr(0, r.out.find('\n'));
  CHECK(first.rfind("shwa: run " + (dir / "deck.toml") + ": 60 x 20 cells to t = 2 s; inputs read in ", 0) == 0);
  const std::string summary = slurp(dir / "out/summary.json");
  CHECK(summary.find("\"steps\"") != std::string::npos);
  CHECK(summary.find("\"exact_solution_error\"") != std::string::npos);
  // Where the wall time went: the parts are seconds, none negative, the loop's that of
  // time_loop_s (one rank), each format's time named in the order of output.formats, and the
  // frames' fields and the formats inside the outputs' time.
  {
    INFO(summary);
    const auto seconds = [&](const std::string& key) {
      const std::string v = json_number(summary, key);
      REQUIRE_FALSE(v.empty());
      return std::stod(v);
    };
    const double total = seconds("wall_time_s"), outputs = seconds("outputs");
    CHECK(json_number(summary, "time_loop") == json_number(summary, "time_loop_s"));
    for (const char* part : {"inputs", "set_up", "time_loop", "outputs"}) CHECK(seconds(part) > 0);
    // The last line says it too.
    CHECK(r.out.find("s (the steps ") != std::string::npos);
    CHECK(r.out.find(" cell updates/s, outputs ") != std::string::npos);
    CHECK(seconds("checkpoints") >= 0);
    CHECK(seconds("inputs") + seconds("set_up") + seconds("time_loop") + outputs + seconds("checkpoints") <= total);
    CHECK(seconds("fields") > 0);
    CHECK(seconds("fields") < outputs);
    CHECK(seconds("fields_from_device") > 0);
    CHECK(seconds("fields_from_device") < seconds("fields"));
    std::size_t at = summary.find("\"outputs_split_s\"");
    REQUIRE(at != std::string::npos);
    std::string names = "\"vtk\", \"asc\"";
    if (SHWA_HAVE_NETCDF) names += ", \"netcdf\"";
    if (SHWA_HAVE_PNG) names += ", \"png\"";
    for (const std::string& f : split(names, ',')) {
      const std::string name = f.substr(f.find('"'));
      INFO(name);
      const std::size_t here = summary.find(name + ": ", at);
      REQUIRE(here != std::string::npos);
      CHECK(seconds(name.substr(1, name.size() - 2)) > 0);
      CHECK(seconds(name.substr(1, name.size() - 2)) < outputs);
      at = here;
    }
  }
  if (SHWA_HAVE_PNG) {
    // The quicklooks hold the 60 x 20 map and, below it, their legend (tests/io/test_png.cpp):
    // the size in the PNG header (big-endian width and height at bytes 16 and 20).
    for (const char* f : {"png/depth_0002.png", "png/hmax.png"}) {
      const std::string png = slurp(dir / ("out/" + std::string(f)));
      REQUIRE(png.size() > 24);
      const auto be32 = [&](std::size_t at) {
        unsigned long v = 0;
        for (std::size_t k = at; k < at + 4; ++k) v = v << 8 | static_cast<unsigned char>(png[k]);
        return v;
      };
      INFO(f << ": " << be32(16) << " x " << be32(20));
      CHECK(be32(16) >= 60);
      CHECK(be32(20) > 20 + 20);
    }
    // Each field's animation holds its three frames (t = 0, 1, 2 s), one canvas, in order
    // (tests/io/apng_reader.hpp reads it: chunk order, CRCs, sequence numbers).
    for (const std::string field : {"depth", "concentration"}) {
      INFO(field);
      check_animation(dir / "out/png", field, 3);
    }
    // output.png_animation = false: the frames without the animations.
    const Result none = shwa(dir, "run " + (dir / "deck.toml") + " --set output.png_animation=false --set output.dir=" +
                                      (dir / "still"));
    INFO(none.err);
    REQUIRE(none.code == 0);
    CHECK(fs::exists(dir / "still/png/depth_0002.png"));
    CHECK_FALSE(fs::exists(dir / "still/png/depth_animation.png"));
    CHECK_FALSE(fs::exists(dir / "still/png/concentration_animation.png"));
  }
  // The resolved deck runs again as it is, into another folder (not over itself).
  const Result again = shwa(dir, "check " + (dir / "out/deck.toml") + " --set output.dir=" + (dir / "again"));
  INFO(again.err);
  CHECK(again.code == 0);
}

TEST_CASE("app: the progress line at an output shows the step the run is making, not the step cut short to land there",
          "[app][outputs]") {
  TempDir dir;
  write(dir / "deck.toml", std::string(kDamBreak) + "[output]\ndir = \"" + (dir / "out") + "\"\nformats = [\"asc\"]\n");
  // A progress line for every step (stdout is not a terminal): "t = T s / ... step N  dt D s  ...".
  struct Line {
    double t;
    long step;
    std::string dt;
  };
  const auto progress = [&](const std::string& sets) {
    const Result r = shwa(dir, "run " + (dir / "deck.toml") + " --overwrite --set output.progress_interval=1e-9" + sets);
    INFO(r.err);
    REQUIRE(r.code == 0);
    std::vector<Line> lines;
    for (const std::string& l : lines_of(r.out)) {
      const std::size_t step = l.find("  step "), dt = l.find("  dt ");
      if (l.rfind("t = ", 0) != 0 || step == std::string::npos || dt == std::string::npos) continue;
      // "... dt D s  Sx real time  elapsed ...": the simulated seconds a wall second.
      const std::size_t speed = l.find(" s  ", dt + 5) + 4;
      CHECK(l.find("x real time  elapsed ", speed) == l.find_first_not_of("0123456789.", speed));
      CHECK(std::stod(l.substr(speed)) >= 0);
      lines.push_back({std::stod(l.substr(4)), std::stol(l.substr(step + 7)),
                       l.substr(dt + 5, l.find(" s", dt + 5) - dt - 5)});
    }
    return lines;
  };
  const std::vector<Line> steps = progress("");
  REQUIRE(steps.size() >= 10);
  // An output time 1 % into a step halfway: the step that reaches it is cut to 1 % of its length.
  const Line& a = steps[steps.size() / 2];
  const Line& b = steps[steps.size() / 2 + 1];
  REQUIRE(b.step == a.step + 1);
  std::ostringstream at;
  at.precision(17);
  at << a.t + 0.01 * (b.t - a.t);
  const std::vector<Line> cut = progress(" --set 'time.output_times=[" + at.str() + "]'");
  const auto line = std::find_if(cut.begin(), cut.end(), [&](const Line& l) { return l.step == a.step + 1; });
  REQUIRE(line != cut.end());
  INFO("output at t = " << at.str() << ", step " << line->step << " shows dt " << line->dt);
  CHECK(line->t < b.t);  // the step was cut short
  CHECK(line->dt == a.dt);  // the dt of the step before it, the CFL step
  // The next step is a whole one again and shows its own dt.
  REQUIRE(line + 1 != cut.end());
  CHECK(std::stod((line + 1)->dt) > 0.5 * std::stod(a.dt));
}

TEST_CASE("app: the resolved deck in the output directory runs as it is, from any folder, giving the same results",
          "[app][resolved_deck]") {
  TempDir dir;
  // The deck and its inputs in a folder of their own, so that a file name relative to the deck's
  // folder does not resolve from the output directory's or the current one.
  fs::create_directories(dir / "case");
  write(dir / "case/bathy.asc", raster(-2.0));
  write(dir / "case/tide.csv", "time,stage\n0,0\n5,0.3\n10,0.1\n");
  write(dir / "case/inflow.csv", "time,q,c\n0,0.5,0\n10,2.0,1\n");
  write(dir / "case/deck.toml", "[initial]\nbathymetry = \"bathy.asc\"\n[boundary.west]\ntype = \"stage\"\n"
                                "series = \"tide.csv\"\ncolumn = \"stage\"\n[boundary.east]\ntype = \"discharge\"\n"
                                "column = \"q\"\nconcentration_column = \"c\"\n[time]\nend = 10.0\n"
                                "output_interval = 5.0\n[output]\nformats = [\"asc\"]\ngauge_interval = 1.0\n"
                                "[gauges.g]\nx = 150.0\ny = 50.0\n");
  // The discharge series is set on the command line, relative to the current directory.
  const std::string inflow = fs::relative(dir / "case/inflow.csv").string();
  REQUIRE(fs::path(inflow).is_relative());
  Result r = shwa(dir, "run " + (dir / "case/deck.toml") + " --set output.dir=" + (dir / "out") +
                           " --set boundary.east.series=" + inflow);
  INFO(r.err);
  REQUIRE(r.code == 0);
  const std::string resolved = slurp(dir / "out/deck.toml");
  CHECK(resolved.find("bathymetry = \"" + (dir / "case/bathy.asc") + "\"") != std::string::npos);
  CHECK(resolved.find("series = \"" + (dir / "case/tide.csv") + "\"") != std::string::npos);
  CHECK(resolved.find("series = \"" + (dir / "case/inflow.csv") + "\"  # command line") != std::string::npos);

  // Run as it is, from another current directory, into another folder: the same outputs.
  fs::create_directories(dir / "elsewhere");
  const std::string cd = "-c 'cd " + (dir / "elsewhere") + " && exec " + kBounded + SHWA_EXE + " run ../out/deck.toml --set output.dir=../again'";
  const int status = std::system(("bash " + cd + " > " + (dir / "stdout.txt") + " 2> " + (dir / "stderr.txt")).c_str());
  INFO(slurp(dir / "stderr.txt"));
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  std::vector<std::string> frames;
  for (const auto& e : fs::directory_iterator(dir / "out/asc")) frames.push_back(e.path().filename().string());
  std::sort(frames.begin(), frames.end());
  REQUIRE(frames.size() >= 6);  // h, eta, u, v, c, ... at t = 0, 5, 10
  for (const std::string& f : frames) {
    INFO(f);
    CHECK(slurp(dir / ("again/asc/" + f)) == slurp(dir / ("out/asc/" + f)));
  }
  CHECK(slurp(dir / "again/gauges.csv") == slurp(dir / "out/gauges.csv"));
  // The inflow reached the domain: the runs compared are not both of still water.
  CHECK(slurp(dir / "out/asc/h_0002.asc") != slurp(dir / "out/asc/h_0000.asc"));
}

TEST_CASE("app: an output that cannot be written ends the run with the error of the first format in the deck's order",
          "[app][outputs]") {
  // The formats of a frame are written at once; a directory where a frame's file goes makes
  // its writer fail.
  TempDir dir;
  write(dir / "deck.toml", "[grid]\nnx = 40\nny = 20\ndx = 1.0\n[initial]\nproblem = \"dam_break\"\nh_left = 2.0\n"
                           "h_right = 0.5\n[time]\nend = 1.0\noutput_interval = 0.5\n[output]\ndir = \"" + (dir / "out") +
                           "\"\n");
  auto block = [&](const std::string& file) { fs::create_directories(dir / ("out/" + file + "/x")); };
  auto run = [&](const std::string& formats) {
    return shwa(dir, "run " + (dir / "deck.toml") + " --set 'output.formats=" + formats + "'");
  };
  const std::string vtk = dir / "out/vtk/shwa_0000.vti", asc = dir / "out/asc/h_0000.asc";
  block("vtk/shwa_0000.vti");
  block("asc/h_0000.asc");
  for (const auto& [formats, named] : std::vector<std::pair<std::string, std::string>>{
           {"[\"vtk\",\"asc\"]", vtk}, {"[\"asc\",\"vtk\"]", asc}}) {
    const Result r = run(formats);
    INFO(formats << ": " << r.err);
    CHECK(r.code == 1);
    CHECK(r.err == "shwa: error: " + named + ": cannot rename the temporary file: Is a directory\n");
  }
  // The second format alone fails: its error ends the run.
  fs::remove_all(vtk);
  const Result r = run("[\"vtk\",\"asc\"]");
  INFO(r.err);
  CHECK(r.code == 1);
  CHECK(r.err == "shwa: error: " + asc + ": cannot rename the temporary file: Is a directory\n");
  CHECK(fs::is_regular_file(vtk));
}

TEST_CASE("app: a run never writes over its deck or an input file", "[app][outputs]") {
  TempDir dir;
  fs::create_directories(dir / "out/asc");
  write(dir / "out/asc/bathy.asc", raster(-2.0));
  const std::string raster_in_out = "[initial]\nbathymetry = \"out/asc/bathy.asc\"\n[time]\nend = 1.0\n";
  struct Case {
    std::string deck, text, expect;
  };
  const std::vector<Case> cases = {
      // output.dir is the deck's own folder: the resolved deck.toml would replace the deck.
      {dir / "deck.toml", raster_in_out + "[output]\ndir = \"" + (dir / "") + "\"\n",
       "the run would write " + (dir / "deck.toml") + " over the deck, " + (dir / "deck.toml")},
      // The bathymetry lies in a folder the run fills.
      {dir / "case.toml", raster_in_out + "[output]\ndir = \"" + (dir / "out") + "\"\n",
       "the run would write " + (dir / "out/asc/bathy.asc") + " over the file of initial.bathymetry, " +
           (dir / "out/asc/bathy.asc")},
      // The same folder reached through another path.
      {dir / "out/deck.toml", "[initial]\nbathymetry = \"asc/bathy.asc\"\n[time]\nend = 1.0\n[output]\ndir = \"" +
                                  (dir / "out/asc/../.") + "\"\n",
       " over the deck, " + (dir / "out/deck.toml")},
  };
  for (const Case& c : cases) {
    write(c.deck, c.text);
    for (const char* command : {"run ", "check "}) {
      const Result r = shwa(dir, command + c.deck);
      INFO(command << c.deck << ": " << r.err);
      CHECK(r.code == 1);
      CHECK(r.err.rfind("shwa: error: ", 0) == 0);
      CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
      CHECK(r.err.find("output.dir") != std::string::npos);
      CHECK(r.err.find(c.expect) != std::string::npos);
      CHECK(slurp(c.deck) == c.text);
    }
  }
  // Nothing was written: the folders hold only the inputs.
  std::vector<std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(dir / ""))
    if (e.is_regular_file()) files.push_back(fs::relative(e.path(), dir / "").string());
  std::sort(files.begin(), files.end());
  CHECK(files == std::vector<std::string>{"case.toml", "deck.toml", "out/asc/bathy.asc", "out/deck.toml",
                                          "stderr.txt", "stdout.txt"});
  // A deck of another name in the output folder is left alone by a run there.
  fs::create_directories(dir / "run");
  write(dir / "run/my.toml", "[initial]\nbathymetry = \"../out/asc/bathy.asc\"\n[time]\nend = 1.0\n[output]\n"
                             "formats = [\"asc\"]\ndir = \"" + (dir / "run") + "\"\n");
  const std::string mine = slurp(dir / "run/my.toml");
  const Result r = shwa(dir, "run " + (dir / "run/my.toml"));
  INFO(r.err);
  CHECK(r.code == 0);
  CHECK(slurp(dir / "run/my.toml") == mine);
  CHECK(fs::exists(dir / "run/deck.toml"));
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
  // With PNG, the frames and the animations too: the restarted run's animations hold every frame.
  write(dir / "deck.toml", SHWA_HAVE_PNG ? std::string(deck).replace(std::string(deck).find("\"vtk\"]"), 6,
                                                                     "\"vtk\", \"png\"]")
                                        : std::string(deck));
  const std::string ref = dir / "ref", cut = dir / "cut";
  Result r = shwa(dir, "run " + (dir / "deck.toml") + " --set output.dir=" + ref);
  INFO(r.err);
  REQUIRE(r.code == 0);

  // The same run, killed as soon as its first checkpoint exists; its checkpoints compressed (a
  // restart may change that: the state is the same).
  const std::string zlib = "output.checkpoint_compression=\"zlib\"";
  const pid_t pid = start_shwa({"run", dir / "deck.toml", "--set", "output.dir=" + cut, "--set", zlib}, "/dev/null");
  REQUIRE(pid > 0);
  auto has_checkpoint = [&] { return !checkpoints_in(cut).empty(); };
  wait_until(has_checkpoint);
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  REQUIRE(has_checkpoint());
  // Killed mid-run: it had not finished.
  REQUIRE(WIFSIGNALED(status));
  REQUIRE_FALSE(fs::exists(cut + "/summary.json"));

  const std::string first = checkpoints_in(cut).front();
  const std::string head = slurp(first).substr(0, 12);
  CHECK(head == std::string("SHWACKPT\x02\0\0\0", 12));  // format version 2
  CHECK(fs::file_size(first) < fs::file_size(checkpoints_in(ref).back()) / 2);  // the reference's are raw
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
#if SHWA_HAVE_PNG
  for (const char* f : {"png/depth_0000.png", "png/depth_0004.png", "png/concentration_0004.png", "png/hmax.png",
                        "png/depth_animation.png", "png/concentration_animation.png"}) {
    INFO(f);
    REQUIRE(fs::exists(ref + "/" + f));
    CHECK(slurp(ref + "/" + f) == slurp(cut + "/" + f));
  }
  check_animation(cut + "/png", "depth", 5);
  check_animation(cut + "/png", "concentration", 5);
#endif

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
    INFO("stderr: " << none.err << "stdout: " << none.out);
    CHECK(none.code == 1);
    CHECK(none.err.find("no checkpoint to restart from") != std::string::npos);
    CHECK_FALSE(fs::exists(dir / "none"));
  }
}

TEST_CASE("app: SIGTERM or SIGHUP stops a run with a checkpoint and says how to resume; a SIGINT with it ends it at once",
          "[app][interrupt]") {
  TempDir dir;
  const std::string deck = kLongDamBreak;
  write(dir / "deck.toml", deck);
  const std::string ref = dir / "ref", cut = dir / "cut";
  Result r = shwa(dir, "run " + (dir / "deck.toml") + " --set output.dir=" + ref);
  INFO(r.err);
  REQUIRE(r.code == 0);

  // SIGTERM once the time loop runs (the first frame is written just before it).
  const std::string err = dir / "interrupted.txt";
  pid_t pid = start_shwa({"run", dir / "deck.toml", "--set", "output.dir=" + cut}, err);
  REQUIRE(pid > 0);
  REQUIRE(wait_until([&] { return fs::exists(cut + "/asc/h_0000.asc"); }));
  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  const std::string said = slurp(err);
  INFO(said);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 4);
  // The checkpoint of the step it stopped after, named; no summary (the run is not over).
  const std::vector<std::string> saved = checkpoints_in(cut);
  REQUIRE(saved.size() == 1);
  CHECK(said.rfind("shwa: SIGTERM stopped the run after step ", 0) == 0);
  CHECK(said.find("; its checkpoint is " + saved.back() + "\n") != std::string::npos);
  CHECK_FALSE(fs::exists(cut + "/summary.json"));
  const std::string hint = "shwa: resume with: ";
  const std::size_t at = said.find(hint);
  REQUIRE(at != std::string::npos);
  const std::string command = said.substr(at + hint.size(), said.find('\n', at) - at - hint.size());
  CHECK(command == std::string(SHWA_EXE) + " run " + (dir / "deck.toml") + " --set output.dir=" + cut + " --restart");

  // The command it gives resumes the run, which ends bit-identical to the uninterrupted one.
  const int resumed = std::system((kBounded + command + " > " + (dir / "resumed.txt") + " 2>&1").c_str());
  INFO(slurp(dir / "resumed.txt"));
  REQUIRE(WIFEXITED(resumed));
  REQUIRE(WEXITSTATUS(resumed) == 0);
  for (const char* f : {"asc/h_0004.asc", "asc/u_0004.asc", "asc/v_0004.asc", "asc/c_0004.asc", "asc/eta_0004.asc",
                        "vtk/shwa_0004.vti", "maxima/hmax.asc", "maxima/cmax.asc", "maxima/arrival.asc",
                        "gauges.csv", "shwa.pvd"}) {
    INFO(f);
    REQUIRE(fs::exists(ref + "/" + f));
    CHECK(slurp(ref + "/" + f) == slurp(cut + "/" + f));
  }

  // A signal ignored when shwa starts stays ignored: the run goes on to its end.
  pid = start_shwa({"run", dir / "deck.toml", "--set", "output.dir=" + (dir / "ignored")}, "/dev/null", true);
  REQUIRE(pid > 0);
  REQUIRE(wait_until([&] { return fs::exists(dir / "ignored/asc/h_0000.asc"); }));
  kill(pid, SIGINT);
  waitpid(pid, &status, 0);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(slurp(dir / "ignored/asc/h_0004.asc") == slurp(ref + "/asc/h_0004.asc"));

  // SIGHUP (the terminal or ssh session closing) stops the run as SIGTERM does.
  const std::string hup_err = dir / "hup.txt";
  // (Runs that last hours on any machine, so that the signal finds them in their time loop.)
  const std::vector<std::string> endless = {"--set", "time.end=1e6", "--set", "time.output_interval=1e5"};
  auto args = [&](const std::string& out) {
    std::vector<std::string> a = {"run", dir / "deck.toml", "--set", "output.dir=" + out};
    a.insert(a.end(), endless.begin(), endless.end());
    return a;
  };
  std::vector<std::string> hup_args = args(dir / "hup");
  if (SHWA_HAVE_PNG) hup_args.insert(hup_args.end(), {"--set", "output.formats=[\"asc\", \"png\"]"});
  pid = start_shwa(hup_args, hup_err);
  REQUIRE(pid > 0);
  REQUIRE(wait_until([&] { return fs::exists(dir / "hup/asc/h_0000.asc"); }));
  kill(pid, SIGHUP);
  waitpid(pid, &status, 0);
  INFO(slurp(hup_err));
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 4);
  CHECK(slurp(hup_err).rfind("shwa: SIGHUP stopped the run after step ", 0) == 0);
  CHECK(checkpoints_in(dir / "hup").size() == 1);
  // The frames so far are there; the animations belong to a run that reaches its end.
  if (SHWA_HAVE_PNG) {
    CHECK(fs::exists(dir / "hup/png/depth_0000.png"));
    CHECK_FALSE(fs::exists(dir / "hup/png/depth_animation.png"));
  }

  // SIGTERM twice, as `timeout` sends it (to the process, then to its group): one request, which
  // still ends in a checkpoint. The second comes once the first was handled, which shows in
  // /proc as SIGINT no longer caught (pending together, two SIGTERMs would be delivered as one),
  // and while the run still finishes its step: a grid of steps of tens of milliseconds.
  auto catches = [](pid_t p, int sig) {
    std::ifstream status("/proc/" + std::to_string(p) + "/status");
    for (std::string line; std::getline(status, line);)
      if (line.rfind("SigCgt:", 0) == 0) return (std::stoull(line.substr(7), nullptr, 16) >> (sig - 1) & 1) != 0;
    return false;
  };
  std::vector<std::string> large = args(dir / "term2");
  large.insert(large.end(), {"--set", "grid.nx=1200", "--set", "grid.ny=600", "--set", "grid.dx=0.2", "--set", "numerics.max_steps=1e9"});
  pid = start_shwa(large, "/dev/null");
  REQUIRE(pid > 0);
  REQUIRE(wait_until([&] { return fs::exists(dir / "term2/asc/h_0000.asc"); }));
  REQUIRE(catches(pid, SIGINT));
  kill(pid, SIGTERM);
  REQUIRE(wait_until([&] { return !catches(pid, SIGINT); }));
  kill(pid, SIGTERM);
  waitpid(pid, &status, 0);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 4);
  CHECK(checkpoints_in(dir / "term2").size() == 1);

  // A SIGTERM and a SIGINT end the process at once, by the default action of the one that came
  // second (pending together, the SIGINT is delivered first).
  pid = start_shwa(args(dir / "twice"), "/dev/null");
  REQUIRE(pid > 0);
  REQUIRE(wait_until([&] { return fs::exists(dir / "twice/asc/h_0000.asc"); }));
  kill(pid, SIGTERM);
  kill(pid, SIGINT);
  waitpid(pid, &status, 0);
  REQUIRE(WIFSIGNALED(status));
  CHECK((WTERMSIG(status) == SIGINT || WTERMSIG(status) == SIGTERM));
}

TEST_CASE("app: a second run into the output directory of a running one is refused; a killed run's lock is not",
          "[app][lock]") {
  TempDir dir;
  write(dir / "deck.toml", kLongDamBreak);
  const std::string out = dir / "out";
  // Runs for hours on any machine (ten outputs), so it still holds the lock when the second run
  // starts, however fast the device; killed after it.
  const pid_t pid = start_shwa({"run", dir / "deck.toml", "--set", "output.dir=" + out, "--set", "time.end=1e6",
                                "--set", "time.output_interval=1e5"},
                               "/dev/null");
  REQUIRE(pid > 0);
  REQUIRE(wait_until([&] { return fs::exists(out + "/asc/h_0000.asc"); }));
  const std::string deck = slurp(out + "/deck.toml");
  const Result second = shwa(dir, "run " + (dir / "deck.toml") + " --set output.dir=" + out + " --set time.end=1.0");
  INFO(second.err);
  CHECK(second.code == 1);
  CHECK(second.err == "shwa: error: " + out + ": another shwa run (process " + std::to_string(pid) +
                          ") is writing in this output directory; wait for it to end or choose another output.dir\n");
  CHECK(slurp(out + "/deck.toml") == deck);  // the second wrote nothing
  // A restart there is refused the same way, before it looks for checkpoints (there are none).
  const Result restart = shwa(dir, "run " + (dir / "deck.toml") + " --set output.dir=" + out + " --restart");
  INFO(restart.err);
  CHECK(restart.code == 1);
  CHECK(restart.err == second.err);
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  REQUIRE(WIFSIGNALED(status));
  // The killed run left its lock file, which locks nothing any more.
  REQUIRE(fs::exists(out + "/shwa.lock"));
  // Temporary files of writes a kill cut short, as io::AtomicFile names them, and files that
  // only look alike.
  fs::create_directories(out + "/checkpoints");
  const std::vector<std::string> stale = {"checkpoints/checkpoint_0000000007.shck.tmp.4242.0",
                                          "asc/h_0001.asc.tmp.4242.3", "deck.toml.tmp.17.1"};
  const std::vector<std::string> kept = {"notes.tmp.txt", "asc/h.tmp.1", "checkpoints/x.tmp.1.a", ".tmp.1.2"};
  for (const std::string& f : stale) write(out + "/" + f, "half");
  for (const std::string& f : kept) write(out + "/" + f, "mine");
  const Result third = shwa(dir, "run " + (dir / "deck.toml") + " --set output.dir=" + out + " --set time.end=1.0");
  INFO(third.err);
  CHECK(third.code == 0);
  CHECK(fs::exists(out + "/summary.json"));
  // The run that holds the lock removes the temporaries, and only them.
  for (const std::string& f : stale) CHECK_FALSE(fs::exists(out + "/" + f));
  for (const std::string& f : kept) CHECK(slurp(out + "/" + f) == "mine");
}

TEST_CASE("app: a closed stdout does not stop a run", "[app][closed_stdout]") {
  TempDir dir;
  write(dir / "deck.toml", kLongDamBreak);
  // The run's first line, then a progress line after every step, into `head -2`, which closes
  // the pipe after the first progress line.
  const std::string cmd = "bash -c '" + kBounded + SHWA_EXE + " run " + (dir / "deck.toml") + " --set output.dir=" +
                          (dir / "out") + " --set output.progress_interval=1e-9 2> " + (dir / "err.txt") +
                          " | head -2 > " + (dir / "first.txt") + "; exit ${PIPESTATUS[0]}'";
  const int status = std::system(cmd.c_str());
  INFO(slurp(dir / "err.txt"));
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  const std::string first = slurp(dir / "first.txt");
  INFO(first);
  CHECK(first.rfind("shwa: run ", 0) == 0);
  CHECK(first.find("\nt = ") != std::string::npos);
  CHECK(slurp(dir / "err.txt").empty());
  // The whole run: every frame and the summary.
  CHECK(fs::exists(dir / "out/asc/h_0004.asc"));
  CHECK(json_number(slurp(dir / "out/summary.json"), "end_time") == "16");
}

TEST_CASE("app: --restart refuses a changed deck or input file, writing nothing, and continues the same run",
          "[app][restart_changed]") {
  TempDir dir;
  write(dir / "bathy.asc", raster(-2.0));
  const std::string deck = raster_deck(dir, "[boundary.west]\ntype = \"stage\"\nvalue = 0.1\n");
  write(dir / "deck.toml", deck);
  const std::string run = "run " + (dir / "deck.toml");
  // A checkpoint an earlier run left, of a higher step than this run's: a run that starts over
  // (here with --overwrite: the earlier run left no record) removes it, so that a restart takes
  // this run's newest.
  fs::create_directories(dir / "out/checkpoints");
  write(dir / "out/checkpoints/checkpoint_0000009999.shck", "an earlier run's");
  Result r = shwa(dir, run + " --set time.checkpoint_interval=4.0 --set time.end=8.0 --overwrite");
  INFO(r.err);
  REQUIRE(r.code == 0);
  const std::string written = slurp(dir / "out/deck.toml"), summary = slurp(dir / "out/summary.json");
  REQUIRE(summary.find("\"restarted_from\": null") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "out/checkpoints/checkpoint_0000009999.shck"));
  CHECK(checkpoints_in(dir / "out").size() == 2);  // t = 4 and 8

  // Refused with one line naming the first difference; the output folder is left as it was.
  auto refused = [&](const std::string& sets, const std::string& expect) {
    const Result bad = shwa(dir, run + " --restart" + sets);
    INFO("--restart" << sets << ": " << bad.err);
    CHECK(bad.code == 1);
    CHECK(bad.err.rfind("shwa: error: ", 0) == 0);
    CHECK(std::count(bad.err.begin(), bad.err.end(), '\n') == 1);
    CHECK(bad.err.find(expect) != std::string::npos);
    CHECK(slurp(dir / "out/deck.toml") == written);
    CHECK(slurp(dir / "out/summary.json") == summary);
  };
  refused(" --set physics.manning=0.03", "command line: physics.manning: \"0.03\" here, \"0\" in the run that wrote " +
                                             (dir / "out/checkpoints/checkpoint_"));
  refused(" --set physics.manning=0.03 --set boundary.west.value=0.2",
          "command line: boundary.west.value: \"0.2\" here");
  refused(" --set initial.surface=0.5", "initial.surface: \"0.5\" here, \"0\" in the run");
  write(dir / "bathy.asc", raster(-2.5));
  refused("", (dir / "bathy.asc") + " (initial.bathymetry): the file changed since ");
  write(dir / "bathy.asc", raster(-2.0));

  // The same run, to a later end: accepted (time.end may change on a restart).
  r = shwa(dir, run + " --restart --set time.end=10.0 --set output.progress_interval=1.0");
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(json_number(slurp(dir / "out/summary.json"), "restarted_from") == "8");
}

TEST_CASE("app: a bathymetry read from a pipe is read once, and runs as the same file does", "[app][inputs]") {
  TempDir dir;
  write(dir / "bathy.asc", raster(-2.0));
  write(dir / "file.toml", raster_deck(dir));
  std::string piped = raster_deck(dir);
  piped.replace(piped.find("bathy.asc"), 9, "/dev/stdin");
  piped.replace(piped.find(dir / "out"), (dir / "out").size(), dir / "out-pipe");
  write(dir / "pipe.toml", piped);
  const Result file = shwa(dir, "run " + (dir / "file.toml"));
  REQUIRE(file.code == 0);
  const Result pipe = shwa(dir, "run " + (dir / "pipe.toml"), dir / "bathy.asc");
  INFO("stderr: " << pipe.err);
  REQUIRE(pipe.code == 0);
  int frames = 0;
  for (const auto& f : fs::directory_iterator(dir / "out/vtk")) {
    INFO(f.path().filename());
    CHECK(slurp(dir / ("out-pipe/vtk/" + f.path().filename().string())) == slurp(f.path().string()));
    ++frames;
  }
  CHECK(frames > 1);
  CHECK(slurp(dir / "out-pipe/shwa.run").find("input.initial.bathymetry = not a regular file: not checked") !=
        std::string::npos);
}

TEST_CASE("app: a deck read from a pipe names files relative to the current directory, and reruns as the same run",
          "[app][inputs]") {
  TempDir dir;
  write(dir / "bathy.asc", raster(-2.0));
  write(dir / "deck.toml", raster_deck(dir));
  REQUIRE(shwa(dir, "run " + (dir / "deck.toml")).code == 0);
  const std::string before = slurp(dir / "out/shwa.run");
  // From the deck's folder, the piped deck's bathy.asc is the same file: the same run, which may
  // write over the outputs of the first.
  const std::string err = dir / "pipe-err.txt";
  const std::string cmd = "cd " + (dir / "") + " && cat deck.toml | " + kBounded + SHWA_EXE +
                          " run /dev/stdin > /dev/null 2> " + err;
  const int status = std::system(cmd.c_str());
  INFO(slurp(err));
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(slurp(dir / "out/shwa.run") == before);
}

TEST_CASE("app: the bathymetry's .prj goes beside every .asc output and into shwa.nc; output.projection names another",
          "[app][outputs][inputs]") {
  TempDir dir;
  const std::string utm = "PROJCS[\"WGS 84 / UTM zone 31N\",GEOGCS[\"WGS 84\"],UNIT[\"metre\",1]]\r\n";
  write(dir / "bathy.asc", raster(-2.0));
  write(dir / "bathy.prj", utm);
  std::string formats = "\"asc\"";
  if (SHWA_HAVE_NETCDF) formats += ", \"netcdf\"";
  write(dir / "deck.toml", raster_deck(dir, "[pollutant]\nx = 50.0\ny = 50.0\nradius = 20.0\nconcentration = 1.0") +
                               "formats = [" + formats + "]\n");
  const std::string run = "run " + (dir / "deck.toml") + " --set time.end=2.0 --set time.output_interval=1.0";
  const Result check = shwa(dir, "check " + (dir / "deck.toml"));
  INFO(check.err);
  REQUIRE(check.code == 0);
  CHECK(check.out.find("projection = \"" + (dir / "bathy.prj") + "\"  # default") != std::string::npos);
  CHECK(check.out.find("# coordinate system: \"WGS 84 / UTM zone 31N\" from " + (dir / "bathy.prj") +
                       ", written beside each .asc" + (SHWA_HAVE_NETCDF ? " and in shwa.nc\n" : "\n")) !=
        std::string::npos);
  const Result r = shwa(dir, run);
  INFO(r.err);
  REQUIRE(r.code == 0);
  // Every .asc has its .prj, the bathymetry's byte for byte, and no .prj is alone.
  int pairs = 0;
  for (const char* folder : {"out/asc", "out/maxima"})
    for (const auto& e : fs::directory_iterator(dir / folder)) {
      const fs::path p = e.path();
      INFO(p);
      if (p.extension() == ".asc") {
        CHECK(slurp(fs::path(p).replace_extension(".prj").string()) == utm);
        ++pairs;
      } else {
        CHECK(p.extension() == ".prj");
        CHECK(fs::exists(fs::path(p).replace_extension(".asc")));
      }
    }
  CHECK(pairs == 3 * 5 + 3);  // h, eta, u, v, c at 0, 1, 2 s; hmax, cmax, arrival
  // The classic NetCDF format keeps an attribute's text as it is in the file's header.
  if (SHWA_HAVE_NETCDF) CHECK(slurp(dir / "out/shwa.nc").find(utm) != std::string::npos);

  // output.projection = "" leaves it out; run over the same directory (--overwrite: another
  // definition), the old .prj files are removed with the rest of the run's outputs.
  const Result none = shwa(dir, run + " --set 'output.projection=\"\"' --overwrite");
  INFO(none.err);
  REQUIRE(none.code == 0);
  CHECK(fs::exists(dir / "out/asc/h_0002.asc"));
  for (const char* folder : {"out/asc", "out/maxima"})
    for (const auto& e : fs::directory_iterator(dir / folder)) CHECK(e.path().extension() == ".asc");
  CHECK(shwa(dir, "check " + (dir / "deck.toml") + " --set 'output.projection=\"\"'").out.find("coordinate system") ==
        std::string::npos);

  // Another .prj, named in the deck, relative to the deck's folder.
  write(dir / "other.prj", "PROJCRS[\"ETRS89 / UTM zone 32N\"]");
  const Result other = shwa(dir, run + " --overwrite --set output.projection=" + (dir / "other.prj"));
  INFO(other.err);
  REQUIRE(other.code == 0);
  CHECK(slurp(dir / "out/maxima/hmax.prj") == "PROJCRS[\"ETRS89 / UTM zone 32N\"]");

  // A .prj that is not WKT is refused, naming it: the bathymetry's (a default the deck can turn
  // off), or the one the deck names. Nothing is written.
  TempDir bad;
  write(bad / "bathy.asc", raster(-2.0));
  write(bad / "bathy.prj", "+proj=utm +zone=31 +datum=WGS84\n");
  expect_refused(bad, raster_deck(bad),
                 "deck.toml:2: initial.bathymetry: " + (bad / "bathy.prj") +
                     ": not a coordinate system (.prj): WKT starts with a keyword and a bracket");
  CHECK(shwa(bad, "check " + (bad / "deck.toml")).err.find("output.projection = \"\" leaves it out") !=
        std::string::npos);
  CHECK(shwa(bad, "check " + (bad / "deck.toml") + " --set 'output.projection=\"\"'").code == 0);
  // A geographic system: the raster's cells would be degrees, not the metres shwa takes them for.
  write(bad / "bathy.prj", "GEOGCS[\"WGS 84\",DATUM[\"WGS_1984\"],UNIT[\"degree\",0.0174532925199433]]");
  expect_refused(bad, raster_deck(bad),
                 "deck.toml:2: initial.bathymetry: " + (bad / "bathy.prj") +
                     ": the grid's coordinate system \"WGS 84\" is geographic (degrees of longitude and latitude), "
                     "but shwa's cell sizes are metres: reproject the rasters to a projected system");
  write(bad / "bathy.prj", utm);
  expect_refused(bad, raster_deck(bad) + "projection = \"missing.prj\"\n",
                 "deck.toml:8: output.projection: " + (bad / "missing.prj") + ": cannot read: No such file or directory");
  // A bathymetry without a .prj beside it: none, and no .prj is written.
  fs::remove(bad / "bathy.prj");
  write(bad / "deck.toml", raster_deck(bad));
  const Result bare = shwa(bad, "run " + (bad / "deck.toml") + " --set time.end=1.0 --set 'output.formats=[\"asc\"]'");
  INFO(bare.err);
  REQUIRE(bare.code == 0);
  CHECK(fs::exists(bad / "out/asc/h_0000.asc"));
  CHECK_FALSE(fs::exists(bad / "out/asc/h_0000.prj"));
}

TEST_CASE("app: an empty [pollutants.NAME] table is a pollutant with its defaults", "[app][pollutants]") {
  TempDir dir;
  write(dir / "bathy.asc", raster(-2.0));
  write(dir / "deck.toml", raster_deck(dir) + "[pollutants.dye]\n[boundary.west]\ntype = \"discharge\"\nvalue = 1.0\n"
                                              "concentration.dye = 0.5\n");
  const Result r = shwa(dir, "run " + (dir / "deck.toml") + " --set time.end=2.0 --set 'output.formats=[\"asc\"]'");
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(fs::exists(dir / "out/asc/c_dye_0000.asc"));
  CHECK_FALSE(fs::exists(dir / "out/asc/c_0000.asc"));
}

// A dam break on 40 x 20 cells: a run of 30 s takes about 200 steps, its step shrinking as the
// flow gathers speed. Each test adds its [time] and [output].
const char* const kSmallDamBreak = R"(
[grid]
nx = 40
ny = 20
dx = 1.0
[initial]
problem = "dam_break"
h_left = 1.0
h_right = 0.5
)";

TEST_CASE("app: a restart to a later time.end numbers its frames after the run's, keeping every one",
          "[app][restart_frames]") {
  // The first run ends at 1.5 s, off its output interval: its frames are t = 0, 1, 1.5. The
  // restart from its last checkpoint to 3 s writes t = 2 and 3 as frames 3 and 4, not over frame 2.
  TempDir dir;
  write(dir / "deck.toml", std::string(kSmallDamBreak) + R"([time]
end = 1.5
output_interval = 1.0
checkpoint_interval = 0.5
[output]
formats = ["asc", "vtk"]
)");
  const std::string run = "run " + (dir / "deck.toml") + " --set output.dir=" + (dir / "out");
  Result r = shwa(dir, run);
  INFO(r.err);
  REQUIRE(r.code == 0);
  const std::string end_frame = slurp(dir / "out/asc/h_0002.asc");
  r = shwa(dir, run + " --restart --set time.end=3");
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(slurp(dir / "out/asc/h_0002.asc") == end_frame);
  const std::string pvd = slurp(dir / "out/shwa.pvd");
  for (const auto& [time, file] : std::vector<std::pair<std::string, std::string>>{
           {"0", "0000"}, {"1", "0001"}, {"1.5", "0002"}, {"2", "0003"}, {"3", "0004"}}) {
    INFO(time);
    CHECK(pvd.find("timestep=\"" + time + "\" group=\"\" part=\"0\" file=\"vtk/shwa_" + file + ".vti\"") !=
          std::string::npos);
    CHECK(fs::exists(dir / ("out/asc/h_" + file + ".asc")));
  }
  std::size_t datasets = 0;
  for (std::size_t at = pvd.find("<DataSet "); at != std::string::npos; at = pvd.find("<DataSet ", at + 1)) ++datasets;
  CHECK(datasets == 5);
  // A further restart checks the five frames before it, and refuses where one is missing.
  fs::remove(dir / "out/asc/h_0003.asc");
  r = shwa(dir, run + " --restart --set time.end=4");
  CHECK(r.code == 1);
  CHECK(r.err.find((dir / "out/asc/h_0003.asc") + ": missing") != std::string::npos);
}

TEST_CASE("app: numerics.max_steps holds the whole run: a run that reaches it stops with a checkpoint",
          "[app][max_steps]") {
  // A dam break's step shrinks as the flow gathers speed: the first step implies fewer steps to
  // time.end than the run takes. Stopped at the limit with exit status 3 and a checkpoint, the run
  // resumes with a higher limit and ends as the run without one.
  TempDir dir;
  write(dir / "deck.toml", std::string(kSmallDamBreak) + R"([time]
end = 30.0
output_interval = 10.0
[output]
formats = ["asc"]
)");
  const std::string run = "run " + (dir / "deck.toml") + " --set output.dir=" + (dir / "out");
  Result r = shwa(dir, "run " + (dir / "deck.toml") + " --set output.dir=" + (dir / "full"));
  INFO(r.err);
  REQUIRE(r.code == 0);
  const long steps = std::stol(json_number(slurp(dir / "full/summary.json"), "steps"));
  // The first step's estimate passes a limit of steps - 1 (what this test needs to show).
  r = shwa(dir, run + " --set numerics.max_steps=" + std::to_string(steps - 1));
  INFO(r.err);
  REQUIRE(r.code == 3);
  CHECK(r.err.rfind("shwa: error: numerics.max_steps: the run took " + std::to_string(steps - 1) + " steps by t = ", 0) ==
        0);
  const std::vector<std::string> saved = checkpoints_in(dir / "out");
  REQUIRE_FALSE(saved.empty());
  CHECK(r.err.find("its checkpoint is " + saved.back() + ": raise numerics.max_steps") != std::string::npos);
  CHECK_FALSE(fs::exists(dir / "out/summary.json"));
  r = shwa(dir, run + " --restart --set numerics.max_steps=1e8");
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(json_number(slurp(dir / "out/summary.json"), "steps") == std::to_string(steps));
  CHECK(slurp(dir / "out/asc/h_0003.asc") == slurp(dir / "full/asc/h_0003.asc"));
}

TEST_CASE("app: a blow-up stops the run with exit code 3 and names the step", "[app][blowup]") {
  TempDir dir;
  // A velocity so large that the sum of wave speeds overflows: the time step becomes zero.
  write(dir / "bathy.asc", raster(-2.0));
  write(dir / "deck.toml", raster_deck(dir, "u = 1.7e308") + "formats = [\"vtk\"]\n");
  const Result r = shwa(dir, "run " + (dir / "deck.toml"));
  CHECK(r.code == 3);
  CHECK(r.err.rfind("shwa: error: blow-up found after step 0", 0) == 0);
}

TEST_CASE("app: a blow-up the time step does not see is found at the next health check, named where it began",
          "[app][blowup]") {
  TempDir dir;
  write(dir / "bathy.asc", raster(-2.0));
  // A velocity so large that the fluxes overflow in the first steps: NaNs appear in a few cells
  // while the time step stays positive, so only the health checks find them (numerics.max_steps
  // = 1e308 lets the run of some 1e150 steps start).
  const std::string deck = raster_deck(dir, "u = 1e150") + "formats = [\"vtk\"]\n[numerics]\nmax_steps = 1e308\n";
  write(dir / "deck.toml", deck);

  // Checked after every step, the blow-up is reported right after the step that made it.
  const Result now = shwa(dir, "run " + (dir / "deck.toml") + " --set numerics.health_interval=1");
  INFO(now.err);
  REQUIRE(now.code == 3);
  REQUIRE(now.err.rfind("shwa: error: blow-up found after step ", 0) == 0);
  CHECK(now.err.find("first seen") == std::string::npos);
  const std::string step = now.err.substr(38, now.err.find(' ', 38) - 38);
  const std::size_t cell_at = now.err.find("first in cell (");
  REQUIRE(cell_at != std::string::npos);
  const std::string cell = now.err.substr(cell_at, now.err.find(':', cell_at) - cell_at);  // "first in cell (i, j) at x = .., y = .."
  const std::string time = now.err.substr(now.err.find("(t = "), now.err.find(" s)") + 3 - now.err.find("(t = "));

  // Checked every 10 steps (the default), the same step, time and cell are named.
  for (const std::string& maxima : {"true", "false"}) {
    INFO("output.maxima = " << maxima);
    const Result later = shwa(dir, "run " + (dir / "deck.toml") + " --set output.maxima=" + maxima);
    INFO(later.err);
    CHECK(later.code == 3);
    if (later.err.rfind("shwa: error: blow-up found after step 10 (", 0) != 0) {
      // Where the NaNs reach the time step before the first health check (the GPU's fused
      // multiply-adds overflow sooner), the failed step stops the run at once: the same step and
      // time as with health_interval = 1.
      CHECK(later.err.substr(0, later.err.find(':', 13)) == now.err.substr(0, now.err.find(':', 13)));
      continue;
    }
    CHECK(later.err.rfind("shwa: error: blow-up found after step 10 (", 0) == 0);
    if (maxima == "true") {
      // The maxima kernel watches every step: the record names the step where it began.
      CHECK(later.err.find(", first seen after step " + step + " " + time + "; " + cell + ", which after step 10 holds h = ") !=
            std::string::npos);
    } else {
      // Without maxima the health check scans the state it finds.
      CHECK(later.err.find("; first in cell (") != std::string::npos);
    }
    CHECK(std::count(later.err.begin(), later.err.end(), '\n') == 1);
  }
}

namespace {

// A dam break of about 500 steps with two gauges, one where the front passes.
const char* const kGaugedDamBreak = R"(
[grid]
nx = 400
ny = 4
dx = 0.05
[initial]
problem = "dam_break"
h_left = 2.0
h_right = 0.5
[time]
end = 2.0
output_interval = 0.5
[output]
formats = ["asc"]
[gauges.dam]
x = 10.01
y = 0.11
[gauges.downstream]
x = 15.01
y = 0.16
)";

}  // namespace

TEST_CASE("app: gauges sampled every step are written whole, as the output fields give them", "[app][gauges]") {
  TempDir dir;
  // About 500 steps: the gauge samples fill the device buffer (256 rows) before they are written.
  write(dir / "deck.toml", kGaugedDamBreak);
  const Result r = shwa(dir, "run " + (dir / "deck.toml") + " --set output.dir=" + (dir / "ref"));
  INFO(r.err);
  REQUIRE(r.code == 0);
  const long steps = std::stol(json_number(slurp(dir / "ref/summary.json"), "steps"));
  REQUIRE(steps > 300);

  // One row at the start and one after each step, in time order.
  std::vector<std::vector<std::string>> rows;
  for (const std::string& line : lines_of(slurp(dir / "ref/gauges.csv")))
    if (!line.empty() && line[0] != '#' && line.rfind("time,", 0) != 0) rows.push_back(split(line, ','));
  REQUIRE(long(rows.size()) == steps + 1);
  for (std::size_t k = 1; k < rows.size(); ++k) {
    INFO("row " << k);
    REQUIRE(rows[k].size() == 11);
    CHECK(std::strtod(rows[k][0].c_str(), nullptr) > std::strtod(rows[k - 1][0].c_str(), nullptr));
  }
  CHECK(rows.front()[0] == "0");
  CHECK(rows.back()[0] == "2");
  // At each output time the gauges' depths are the output grids' values of their cells, to the digit.
  for (int out = 0; out <= 4; ++out) {
    INFO("output " << out);
    const std::string t = out == 0 ? "0" : out == 1 ? "0.5" : out == 2 ? "1" : out == 3 ? "1.5" : "2";
    const auto row = std::find_if(rows.begin(), rows.end(), [&](const auto& x) { return x[0] == t; });
    REQUIRE(row != rows.end());
    const std::vector<std::string> grid = lines_of(slurp(dir / ("ref/asc/h_000" + std::to_string(out) + ".asc")));
    REQUIRE(grid.size() == 6 + 4);
    // Rows run north to south: cell row j is line 6 + (3 - j).
    CHECK((*row)[1] == split(grid[6 + 3 - 2], ' ')[200]);  // dam: cell (200, 2)
    CHECK((*row)[6] == split(grid[6 + 3 - 3], ' ')[300]);  // downstream: cell (300, 3)
  }

  // Stopped at t = 1 with a checkpoint and resumed to the end: the same file, byte for byte.
  Result part = shwa(dir, "run " + (dir / "deck.toml") + " --set output.dir=" + (dir / "cut") +
                              " --set time.end=1.0 --set time.checkpoint_interval=1.0");
  INFO(part.err);
  REQUIRE(part.code == 0);
  part = shwa(dir, "run " + (dir / "deck.toml") + " --set output.dir=" + (dir / "cut") + " --restart");
  INFO(part.err);
  REQUIRE(part.code == 0);
  CHECK(slurp(dir / "cut/gauges.csv") == slurp(dir / "ref/gauges.csv"));
  CHECK(slurp(dir / "cut/asc/h_0004.asc") == slurp(dir / "ref/asc/h_0004.asc"));
}

namespace {

// The values of summary.json's object "key": {...} (the first one), as text.
std::string json_object(const std::string& json, const std::string& key) {
  const std::size_t at = json.find("\"" + key + "\": {");
  return at == std::string::npos ? "" : json.substr(at, json.find('}', at) - at);
}

// The columns of gauges.csv, by the header's names.
std::map<std::string, std::vector<std::string>> gauge_columns(const std::string& path) {
  std::map<std::string, std::vector<std::string>> columns;
  std::vector<std::string> names;
  for (const std::string& line : lines_of(slurp(path))) {
    if (line.empty() || line[0] == '#') continue;
    const std::vector<std::string> cells = split(line, ',');
    if (names.empty()) {
      names = cells;
      continue;
    }
    for (std::size_t k = 0; k < cells.size() && k < names.size(); ++k) columns[names[k]].push_back(cells[k]);
  }
  return columns;
}

}  // namespace

TEST_CASE("app: output times are the decimal multiples of output_interval", "[app][outputs]") {
  // 3 x 0.1 is 0.30000000000000004 in doubles; the deck's 0.1 s means frames at 0.1, 0.2, 0.3, ...
  TempDir dir;
  write(dir / "deck.toml", kGaugedDamBreak);
  const Result r = shwa(dir, "run " + (dir / "deck.toml") + " --set output.dir=" + (dir / "out") +
                                 " --set time.end=0.7 --set time.output_interval=0.1 --set output.formats=[\\\"vtk\\\"]");
  INFO(r.err);
  REQUIRE(r.code == 0);
  const std::string pvd = slurp(dir / "out/shwa.pvd");
  INFO(pvd);
  for (const char* t : {"0", "0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7"})
    CHECK(pvd.find("timestep=\"" + std::string(t) + "\"") != std::string::npos);
  CHECK(pvd.find("0000000") == std::string::npos);
}

TEST_CASE("app: gauges sampled at an interval fall on its multiples, linear in time between the steps around each",
          "[app][gauges]") {
  TempDir dir;
  write(dir / "deck.toml", kGaugedDamBreak);
  // Every step, and every 2.5 ms: steps of about 4 ms cross one or two multiples each.
  for (const auto& [out, interval] : {std::pair<std::string, std::string>{"steps", "0"}, {"every", "0.0025"}}) {
    const Result r = shwa(dir, "run " + (dir / "deck.toml") + " --set output.dir=" + (dir / out) +
                                   " --set output.gauge_interval=" + interval);
    INFO(r.err);
    REQUIRE(r.code == 0);
  }
  const auto steps = gauge_columns(dir / "steps/gauges.csv"), sampled = gauge_columns(dir / "every/gauges.csv");
  auto numbers = [](const std::vector<std::string>& column) {
    std::vector<double> v;
    for (const std::string& x : column) v.push_back(std::strtod(x.c_str(), nullptr));
    return v;
  };
  const std::vector<double> t = numbers(steps.at("time")), ts = numbers(sampled.at("time"));
  // Samples at 0, every, 2 every, ..., 2 s: each time the double nearest the decimal multiple
  // (k 25 / 10^4), which prints as the decimal: 0.0875, not 0.08750000000000001 (35 x 0.0025).
  REQUIRE(ts.size() == 801);
  for (std::size_t k = 0; k < ts.size(); ++k) CHECK(ts[k] == double(k * 25) / 1e4);
  CHECK(sampled.at("time")[35] == "0.0875");
  CHECK(sampled.at("time")[41] == "0.1025");
  int between = 0;  // samples that differ from both steps around them
  for (const char* gauge : {"dam", "downstream"}) {
    const std::string g = gauge;
    const std::vector<double> h = numbers(steps.at(g + ".h")), u = numbers(steps.at(g + ".u")),
                              hs = numbers(sampled.at(g + ".h")), us = numbers(sampled.at(g + ".u"));
    for (std::size_t k = 0; k < ts.size(); ++k) {
      // The steps from t[b - 1] to t[b] >= ts[k]: W + s (W' - W) of the conserved h and h u.
      const std::size_t b = std::size_t(std::lower_bound(t.begin(), t.end(), ts[k]) - t.begin());
      REQUIRE(b < t.size());
      INFO(g << " at t = " << ts[k] << ", steps at " << (b ? t[b - 1] : 0.0) << " and " << t[b]);
      if (t[b] == ts[k]) {
        CHECK(hs[k] == h[b]);
        CHECK(us[k] == u[b]);
        continue;
      }
      const double s = (ts[k] - t[b - 1]) / (t[b] - t[b - 1]);
      const double hi = h[b - 1] + s * (h[b] - h[b - 1]), qi = h[b - 1] * u[b - 1] + s * (h[b] * u[b] - h[b - 1] * u[b - 1]);
      CHECK(std::abs(hs[k] - hi) <= 1e-6 * std::abs(hi));
      CHECK(std::abs(us[k] - (hi > 0 ? qi / hi : 0.0)) <= 1e-6 * (std::abs(us[k]) + 1e-6));
      if (std::min(std::abs(hs[k] - h[b - 1]), std::abs(hs[k] - h[b])) > 1e-4) ++between;
    }
  }
  CHECK(between > 20);
  // Stopped at t = 1 with a checkpoint and resumed to the end: the same samples, byte for byte.
  Result part = shwa(dir, "run " + (dir / "deck.toml") + " --set output.dir=" + (dir / "cut") +
                              " --set output.gauge_interval=0.0025 --set time.end=1.0 --set time.checkpoint_interval=1.0");
  INFO(part.err);
  REQUIRE(part.code == 0);
  part = shwa(dir, "run " + (dir / "deck.toml") + " --set output.dir=" + (dir / "cut") +
                       " --set output.gauge_interval=0.0025 --restart");
  INFO(part.err);
  REQUIRE(part.code == 0);
  CHECK(slurp(dir / "cut/gauges.csv") == slurp(dir / "every/gauges.csv"));
}

TEST_CASE("app: named pollutants each get the bits the unnamed pollutant gets alone, in files of their own",
          "[app][pollutants]") {
  TempDir dir;
  // The decomposition deck's dam break and river (inputs/two_pollutants.toml): oil spilled behind
  // the dam and carried by the river, salt as a background the river dilutes. Run once with both,
  // and once each as the unnamed pollutant of the same deck.
  const std::string base = R"(
[grid]
nx = 64
ny = 40
dx = 1.0
[initial]
problem = "dam_break"
h_left = 1.0
h_right = 0.0
x_dam = 20.0
[physics]
manning = 0.02
[boundary.east]
type = "open"
[boundary.south.segments.river]
type = "discharge"
begin = 36.0
end = 44.0
value = 0.5
[time]
end = 6.0
output_interval = 2.0
[output]
formats = ["asc", "vtk")" + std::string(SHWA_HAVE_PNG ? ", \"png\"" : "") + R"(]
gauge_interval = 0.5
arrival_threshold = 0.05
[gauges.front]
x = 30.5
y = 20.5
)";
  const std::string spill = "x = 10.0\ny = 20.0\nradius = 6.0\nconcentration = 1.0\n";
  write(dir / "both.toml", base + "[pollutants.oil.spill]\n" + spill + "[pollutants.salt]\nconcentration = 0.1\n");
  write(dir / "oil.toml", base + "[pollutant]\n" + spill);
  write(dir / "salt.toml", base);
  const std::string river = " --set boundary.south.segments.river.concentration";
  for (const auto& [deck, sets] : std::vector<std::pair<std::string, std::string>>{
           {"both", river + ".oil=0.5" + river + ".salt=0.0"},
           {"oil", river + "=0.5"},
           {"salt", " --set initial.concentration=0.1"}}) {
    const Result r = shwa(dir, "run " + (dir / (deck + ".toml")) + " --set output.dir=" + (dir / deck) + sets);
    INFO(deck << ": " << r.err);
    REQUIRE(r.code == 0);
  }
  const std::string both = dir / "both", oil = dir / "oil", salt = dir / "salt";
  for (const char* tag : {"0000", "0001", "0003"}) {
    INFO("frame " << tag);
    for (const char* f : {"h_", "eta_", "u_", "v_"}) {
      const std::string file = std::string("/asc/") + f + tag + ".asc";
      REQUIRE(fs::exists(both + file));
      CHECK(slurp(both + file) == slurp(oil + file));
      CHECK(slurp(both + file) == slurp(salt + file));
    }
    CHECK(slurp(both + "/asc/c_oil_" + tag + ".asc") == slurp(oil + "/asc/c_" + tag + ".asc"));
    CHECK(slurp(both + "/asc/c_salt_" + tag + ".asc") == slurp(salt + "/asc/c_" + tag + ".asc"));
    CHECK_FALSE(fs::exists(both + "/asc/c_" + tag + ".asc"));
  }
  CHECK(slurp(both + "/asc/c_oil_0003.asc") != slurp(both + "/asc/c_salt_0003.asc"));
  for (const char* f : {"cmax", "arrival"}) {
    INFO(f);
    CHECK(slurp(both + "/maxima/" + f + "_oil.asc") == slurp(oil + "/maxima/" + f + ".asc"));
    CHECK(slurp(both + "/maxima/" + f + "_salt.asc") == slurp(salt + "/maxima/" + f + ".asc"));
  }
  CHECK(slurp(both + "/maxima/hmax.asc") == slurp(oil + "/maxima/hmax.asc"));
  // gauges.csv: one concentration column a pollutant, each the unnamed run's column.
  auto g = gauge_columns(both + "/gauges.csv");
  const auto go = gauge_columns(oil + "/gauges.csv"), gs = gauge_columns(salt + "/gauges.csv");
  REQUIRE(g.count("front.c_oil") == 1);
  REQUIRE(g.count("front.c_salt") == 1);
  CHECK(g.count("front.c") == 0);
  CHECK(g["front.c_oil"] == go.at("front.c"));
  CHECK(g["front.c_salt"] == gs.at("front.c"));
  CHECK(g["front.h"] == go.at("front.h"));
  CHECK(g.size() == go.size() + 1);
  // Each pollutant's mass balance, the unnamed run's to the digit.
  const std::string sb = slurp(both + "/summary.json");
  const std::string mass = sb.substr(sb.find("\"pollutant_mass\""));
  const std::string mo = json_object(mass, "oil"), ms = json_object(mass, "salt");
  const std::string uo = json_object(slurp(oil + "/summary.json"), "pollutant_mass"),
                    us = json_object(slurp(salt + "/summary.json"), "pollutant_mass");
  REQUIRE_FALSE(json_number(mo, "final").empty());
  for (const char* k : {"initial", "final", "change"}) {
    INFO(k);
    CHECK(json_number(mo, k) == json_number(uo, k));
    CHECK(json_number(ms, k) == json_number(us, k));
  }
#if SHWA_HAVE_PNG
  for (const char* f : {"concentration_oil_0003.png", "concentration_salt_0003.png", "cmax_oil.png",
                        "arrival_salt.png", "concentration_oil_animation.png", "depth_animation.png"}) {
    INFO(f);
    CHECK(fs::exists(both + "/png/" + f));
  }
  CHECK_FALSE(fs::exists(both + "/png/concentration_0003.png"));
  check_animation(both + "/png", "concentration_salt", 4);
#endif

  // Stopped at t = 4 s (an output time) with a checkpoint and resumed: the same files, byte for byte.
  const std::string cut = dir / "cut";
  Result r = shwa(dir, "run " + (dir / "both.toml") + " --set output.dir=" + cut + river + ".oil=0.5" + river +
                           ".salt=0.0 --set time.end=4.0 --set time.checkpoint_interval=4.0");
  INFO(r.err);
  REQUIRE(r.code == 0);
  r = shwa(dir, "run " + (dir / "both.toml") + " --set output.dir=" + cut + river + ".oil=0.5" + river +
                    ".salt=0.0 --restart");
  INFO(r.err);
  REQUIRE(r.code == 0);
  for (const char* f : {"asc/c_oil_0003.asc", "asc/c_salt_0003.asc", "maxima/cmax_salt.asc", "maxima/arrival_oil.asc",
                        "gauges.csv"}) {
    INFO(f);
    CHECK(slurp(cut + "/" + f) == slurp(both + "/" + f));
  }
  CHECK(json_object(slurp(cut + "/summary.json"), "salt") == json_object(mass, "salt"));
}

TEST_CASE("app: numerics.skip_dry changes no output, and the run says how much land it skipped", "[app][skip_dry]") {
  TempDir dir;
  // A dam break onto a dry bed: the front crosses land that is skipped until the water comes,
  // carrying a pollutant patch onto it; the maxima (maxima/*.asc: depth, concentration, arrival
  // time), which skip the quiet land too, must be those of folding every cell. A third run checks
  // its health after every step, which folds every state by a pass of its own (settle_maxima)
  // instead of in the next step's CFL pass: the same files.
  const std::string deck = "[grid]\nnx = 160\nny = 48\ndx = 1.0\n[initial]\nproblem = \"dam_break\"\n"
                           "h_left = 2.0\nh_right = 0.0\n[pollutant]\nx = 70.0\ny = 24.0\nradius = 9.0\n"
                           "concentration = 1.0\n[time]\nend = 6.0\noutput_interval = 2.0\n"
                           "[output]\nformats = [\"asc\"]\ngauge_interval = 0.5\narrival_threshold = 0.05\n"
                           "[gauges.front]\nx = 100.0\ny = 24.0\n";
  write(dir / "deck.toml", deck);
  std::map<std::string, std::string> files[3];
  std::string summary[3];
  for (int k = 0; k < 3; ++k) {
    const std::string out = dir / (k == 0 ? "on" : k == 1 ? "off" : "alone");
    // (The run without skipping on other tiles: the fields depend on neither.)
    const Result r = shwa(dir, "run " + (dir / "deck.toml") + " --set output.dir=" + out +
                                   (k == 0   ? " --set numerics.skip_dry=true"
                                    : k == 1 ? " --set numerics.skip_dry=false --set numerics.tile=[16,4]"
                                             : " --set numerics.skip_dry=true --set numerics.health_interval=1"));
    INFO(r.err);
    REQUIRE(r.code == 0);
    for (const auto& e : fs::recursive_directory_iterator(out))
      if (e.is_regular_file() && (e.path().extension() == ".asc" || e.path().filename() == "gauges.csv"))
        files[k][fs::relative(e.path(), out).string()] = slurp(e.path().string());
    summary[k] = slurp(out + "/summary.json");
  }
  REQUIRE(files[0].size() >= 4);  // frames at 0, 2, 4, 6 s of each field, and the gauges
  REQUIRE(files[0].count("maxima/arrival.asc") == 1);
  CHECK(files[0] == files[1]);
  CHECK(files[0] == files[2]);
  CHECK(std::stod(json_number(summary[0], "dry_land_skipped")) > 0.1);
  CHECK(std::stod(json_number(summary[1], "dry_land_skipped")) == 0);
  // The summary names the tile the kernels used: the deck's, or the build's for [0, 0].
  auto tile = [](const std::string& json) {
    std::smatch m;
    return std::regex_search(json, m, std::regex("\"tile\": \\[\\s*(\\d+),\\s*(\\d+)\\s*\\]"))
               ? std::vector<int>{std::stoi(m[1]), std::stoi(m[2])}
               : std::vector<int>{};
  };
  CHECK(tile(summary[1]) == std::vector<int>{16, 4});
  const std::vector<int> built = tile(summary[0]);
  REQUIRE(built.size() == 2);
  CHECK((built[0] > 0 && built[1] > 0));
}

// Every regular file under `root`, relative to it, with its contents.
std::map<std::string, std::string> files_under(const std::string& root) {
  std::map<std::string, std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.is_regular_file()) files[fs::relative(e.path(), root).string()] = slurp(e.path().string());
  return files;
}

TEST_CASE("app: a run that starts over in an output directory of another run is refused unless --overwrite; "
          "a rerun of the same run replaces its files", "[app][rerun]") {
  TempDir dir;
  write(dir / "bathy.asc", raster(-2.0));
  write(dir / "deck.toml", raster_deck(dir, "[boundary.west]\ntype = \"stage\"\nvalue = 0.1\n") +
                               "formats = [\"asc\", \"vtk\"]\n");
  const std::string run = "run " + (dir / "deck.toml") + " --set time.output_interval=2.0";
  const std::string out = dir / "out";
  Result r = shwa(dir, run);
  INFO(r.err);
  REQUIRE(r.code == 0);
  REQUIRE(fs::exists(out + "/vtk/shwa_0005.vti"));
  REQUIRE(fs::exists(out + "/asc/h_0005.asc"));
  REQUIRE(fs::exists(out + "/shwa.run"));
  // Files of someone else, beside and among shwa's.
  const std::vector<std::string> foreign = {"notes.txt", "vtk/mine.vti", "asc/h_0001.asc.bak", "asc/readme",
                                            "shwa_0001.vti", "extra/h_0001.asc"};
  for (const std::string& f : foreign) {
    fs::create_directories(fs::path(out + "/" + f).parent_path());
    write(out + "/" + f, "mine");
  }
  auto foreign_kept = [&] {
    for (const std::string& f : foreign) {
      INFO(f);
      CHECK(slurp(out + "/" + f) == "mine");
    }
  };

  // The same run to an earlier end (time.end may change, as on a restart): its files replace the
  // earlier ones, and no later frame of the earlier run stays.
  r = shwa(dir, run + " --set time.end=4.0");
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK(fs::exists(out + "/vtk/shwa_0002.vti"));
  for (const char* f : {"vtk/shwa_0003.vti", "vtk/shwa_0005.vti", "asc/h_0003.asc", "asc/c_0005.asc"}) {
    INFO(f);
    CHECK_FALSE(fs::exists(out + "/" + f));
  }
  CHECK(slurp(out + "/shwa.pvd").find("shwa_0003") == std::string::npos);
  CHECK(json_number(slurp(out + "/summary.json"), "end_time") == "4");
  foreign_kept();

  // Another run (another deck value, another input file): refused with one line naming the
  // directory, the difference and the option; the directory is left as it was.
  const std::map<std::string, std::string> before = files_under(out);
  auto refused = [&](const std::string& args, const std::string& expect) {
    const Result bad = shwa(dir, args);
    INFO(args << ": " << bad.err);
    CHECK(bad.code == 1);
    CHECK(bad.err.rfind("shwa: error: " + out + ": the output directory ", 0) == 0);
    CHECK(std::count(bad.err.begin(), bad.err.end(), '\n') == 1);
    CHECK(bad.err.find(expect) != std::string::npos);
    CHECK(bad.err.find("choose another output.dir, or run with --overwrite to remove shwa's files there first") !=
          std::string::npos);
    CHECK(files_under(out) == before);
  };
  refused(run + " --set physics.manning=0.03",
          "holds the outputs of another run (physics.manning: \"0.03\" here, \"0\" in that run)");
  write(dir / "bathy.asc", raster(-2.5));
  refused(run, "holds the outputs of another run (the file of initial.bathymetry differs (crc32 ");
  // shwa check says what shwa run would find, and writes nothing.
  const Result check = shwa(dir, "check " + (dir / "deck.toml"));
  CHECK(check.code == 0);
  CHECK(check.out.find("# note: " + out + " holds the outputs of another run (the file of initial.bathymetry") !=
        std::string::npos);
  CHECK(files_under(out) == before);

  // --overwrite removes shwa's files, and only them, before the run.
  r = shwa(dir, run + " --set time.end=2.0 --overwrite");
  INFO(r.err);
  REQUIRE(r.code == 0);
  foreign_kept();
  std::vector<std::string> left;
  for (const auto& [f, text] : files_under(out))
    if (std::find(foreign.begin(), foreign.end(), f) == foreign.end()) left.push_back(f);
  std::vector<std::string> expect = {"asc/c_0000.asc", "asc/c_0001.asc", "asc/eta_0000.asc", "asc/eta_0001.asc",
                                     "asc/h_0000.asc", "asc/h_0001.asc", "asc/u_0000.asc", "asc/u_0001.asc",
                                     "asc/v_0000.asc", "asc/v_0001.asc", "deck.toml", "maxima/arrival.asc",
                                     "maxima/cmax.asc", "maxima/hmax.asc", "shwa.lock", "shwa.pvd", "shwa.run",
                                     "summary.json", "vtk/maxima.vti", "vtk/shwa_0000.vti", "vtk/shwa_0001.vti"};
  CHECK(left == expect);

  // shwa's files without a record of their run (an older shwa's, or the record deleted): refused,
  // then cleared by --overwrite.
  fs::remove(out + "/shwa.run");
  const std::map<std::string, std::string> unrecorded = files_under(out);
  const Result bad = shwa(dir, run);
  INFO(bad.err);
  CHECK(bad.code == 1);
  CHECK(bad.err.find(out + ": the output directory holds files shwa writes (asc/c_0000.asc, asc/c_0001.asc, "
                           "asc/eta_0000.asc, ...) without a record of the run that wrote them (shwa.run)") !=
        std::string::npos);
  CHECK(files_under(out) == unrecorded);
  r = shwa(dir, run + " --overwrite");
  INFO(r.err);
  CHECK(r.code == 0);
  foreign_kept();

  // --overwrite and --restart exclude each other: a bad command line.
  const Result both = shwa(dir, run + " --restart --overwrite");
  CHECK(both.code == 2);
  CHECK(both.err.find("--overwrite") != std::string::npos);
}

TEST_CASE("app: a restart refuses earlier outputs that are missing or cut short, naming the file and writing nothing",
          "[app][restart_outputs]") {
  TempDir dir;
  // Every format of this build, gauges, a checkpoint every second; stopped at t = 2 s.
  std::string formats = "\"vtk\", \"asc\"";
  if (SHWA_HAVE_NETCDF) formats += ", \"netcdf\"";
  if (SHWA_HAVE_PNG) formats += ", \"png\"";
  // The formats a build lacks are left out, and `shwa info` says so: checked, not assumed.
  const std::string info = shwa(dir, "info").out;
  const std::string built = info.substr(info.find("output formats: "), info.find('\n', info.find("output formats: ")) -
                                                                          info.find("output formats: "));
  CHECK((built.find("netcdf") != std::string::npos) == bool(SHWA_HAVE_NETCDF));
  CHECK((built.find("png") != std::string::npos) == bool(SHWA_HAVE_PNG));
  if (!SHWA_HAVE_NETCDF) WARN("this build has no NetCDF: the restart checks of shwa.nc are not tested here");
  if (!SHWA_HAVE_PNG) WARN("this build has no PNG: the restart checks of png frames are not tested here");
  write(dir / "deck.toml", std::string(kDamBreak).replace(std::string(kDamBreak).find("end = 2.0"), 9,
                                                          "end = 4.0\noutput_interval = 1.0\ncheckpoint_interval = 1.0") +
                               "[output]\ndir = \"" + (dir / "out") + "\"\nformats = [" + formats + "]\n"
                               "[gauges.g1]\nx = 30.0\ny = 10.0\n");
  const std::string out = dir / "out";
  const std::string run = "run " + (dir / "deck.toml");
  auto first_part = [&] {
    const Result r = shwa(dir, run + " --overwrite --set time.end=2.0");
    INFO(r.err);
    REQUIRE(r.code == 0);
  };
  auto cut_in_half = [](const std::string& path) {
    const std::string text = slurp(path);
    REQUIRE(text.size() > 2);
    write(path, text.substr(0, text.size() / 2));
  };
  struct Case {
    std::string file;  // relative to the output directory
    bool remove;       // else cut in half
    std::string expect;
  };
  std::vector<Case> cases = {
      {"gauges.csv", true, "gauges.csv: missing: the gauge samples up to t = 2 s are lost"},
      {"gauges.csv", false, "gauges.csv: holds "},
      {"shwa.pvd", true, "shwa.pvd: missing"},
      {"shwa.pvd", false, "shwa.pvd: cut short"},
      {"vtk/shwa_0001.vti", true, "vtk/shwa_0001.vti: missing"},
      {"vtk/shwa_0002.vti", false, "vtk/shwa_0002.vti: cut short"},
      {"asc/h_0001.asc", true, "asc/h_0001.asc: missing"},
      {"asc/c_0002.asc", false, "asc/c_0002.asc: cut short"},
  };
  if (SHWA_HAVE_NETCDF) {
    cases.push_back({"shwa.nc", true, "shwa.nc: missing: its records up to t = 2 s are lost"});
    cases.push_back({"shwa.nc", false, "shwa.nc: cannot resume: the file is cut short: its header lists 3 records"});
  }
  if (SHWA_HAVE_PNG) {
    cases.push_back({"png/depth_0001.png", true, "png/depth_0001.png: missing"});
    cases.push_back({"png/concentration_0002.png", false, "png/concentration_0002.png: cut short"});
  }
  for (const Case& c : cases) {
    INFO((c.remove ? "removed " : "cut in half ") << c.file);
    first_part();
    if (c.remove) REQUIRE(fs::remove(out + "/" + c.file));
    else cut_in_half(out + "/" + c.file);
    const std::map<std::string, std::string> before = files_under(out);
    const Result r = shwa(dir, run + " --restart");
    INFO(r.err);
    CHECK(r.code == 1);
    CHECK(r.err.rfind("shwa: error: " + out + "/" + c.expect, 0) == 0);
    CHECK(r.err.find("; a restart from " + out + "/checkpoints/checkpoint_") != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK(files_under(out) == before);
  }
  // A row of gauges.csv edited: named with its line.
  first_part();
  std::string rows = slurp(out + "/gauges.csv");
  // Line 5: after two comment lines, the column names and the row of t = 0.
  const std::size_t third = rows.find('\n', rows.find("\n0,") + 1);
  rows.replace(third + 1, rows.find(',', third + 1) - third, "0.5x,");
  write(out + "/gauges.csv", rows);
  Result r = shwa(dir, run + " --restart");
  INFO(r.err);
  CHECK(r.code == 1);
  CHECK(r.err.rfind("shwa: error: " + out + "/gauges.csv:5: cannot resume: not a row of gauge samples (no time)", 0) ==
        0);
  // Intact, the restart goes on to the end and ends as one run does.
  first_part();
  r = shwa(dir, run + " --restart");
  INFO(r.err);
  CHECK(r.code == 0);
  r = shwa(dir, run + " --set output.dir=" + (dir / "ref"));
  REQUIRE(r.code == 0);
  for (const char* f : {"gauges.csv", "asc/h_0004.asc", "shwa.pvd"}) {
    INFO(f);
    CHECK(slurp(out + "/" + f) == slurp(dir / (std::string("ref/") + f)));
  }
}
