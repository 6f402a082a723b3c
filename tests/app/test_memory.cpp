// The memory estimate of a run (app/resources.hpp) against what runs allocate: this executable
// counts every byte the process holds through operator new (std::vector, std::string, ...) and
// through Kokkos (its allocation callbacks: the Views, host mirrors included), and follows the
// peak of their sum. A run of each kind is made in-process, as `shwa run` makes it (load_config,
// then run_simulation), and its peak, from before its deck is read to its end, must lie under the
// estimate for its configuration and not far below it. A run the machine cannot hold is refused
// before its initial state is built: the refusal allocates almost nothing.
#include "config.hpp"
#include "resources.hpp"
#include "simulation.hpp"

#include "io/deck.hpp"
#include "io/error.hpp"
#include "io/png.hpp"
#include "io/raster.hpp"

#include <Kokkos_Core.hpp>
#include <catch2/catch.hpp>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <new>
#include <sstream>
#include <unordered_map>

#include "../temp_dir.hpp"

namespace fs = std::filesystem;

// ---- counting ------------------------------------------------------------------------------

namespace {

std::atomic<long long> g_current{0}, g_peak{0};

void count(long long delta) {
  const long long now = g_current.fetch_add(delta) + delta;
  long long peak = g_peak.load();
  while (now > peak && !g_peak.compare_exchange_weak(peak, now)) {
  }
}

// Kokkos' allocations, by address (those made before the callbacks were set are not known, and
// their release is not counted).
std::mutex g_kokkos_mutex;
std::unordered_map<const void*, std::uint64_t>* g_kokkos = nullptr;

void on_allocate(const Kokkos_Profiling_SpaceHandle, const char*, const void* ptr, const std::uint64_t size) {
  {
    const std::lock_guard<std::mutex> lock(g_kokkos_mutex);
    (*g_kokkos)[ptr] = size;
  }
  count((long long)size);
}

void on_deallocate(const Kokkos_Profiling_SpaceHandle, const char*, const void* ptr, const std::uint64_t) {
  std::uint64_t size = 0;
  {
    const std::lock_guard<std::mutex> lock(g_kokkos_mutex);
    const auto it = g_kokkos->find(ptr);
    if (it == g_kokkos->end()) return;
    size = it->second;
    g_kokkos->erase(it);
  }
  count(-(long long)size);
}

void start_counting_kokkos() {
  if (g_kokkos) return;
  g_kokkos = new std::unordered_map<const void*, std::uint64_t>();
  Kokkos::Tools::Experimental::set_allocate_data_callback(on_allocate);
  Kokkos::Tools::Experimental::set_deallocate_data_callback(on_deallocate);
}

/// The peak of the bytes held while f runs, above what was held when it began.
template <class F>
long long peak_of(F&& f) {
  start_counting_kokkos();
  const long long base = g_current.load();
  g_peak.store(base);
  f();
  return g_peak.load() - base;
}

}  // namespace

// nvcc compiles this file for the device too, and there takes these replacements as __host__
// __device__ functions calling host ones; the device side, where nothing here allocates, keeps
// its own allocation functions.
#ifndef __CUDA_ARCH__
namespace {

// Each block from operator new carries its size in a header of one max_align_t.
constexpr std::size_t kHeader = alignof(std::max_align_t);

void* counted_alloc(std::size_t n) {
  void* p = std::malloc(n + kHeader);
  if (!p) throw std::bad_alloc();
  *static_cast<std::size_t*>(p) = n;
  count((long long)n);
  return static_cast<char*>(p) + kHeader;
}

void counted_free(void* q) {
  if (!q) return;
  void* p = static_cast<char*>(q) - kHeader;
  count(-(long long)*static_cast<std::size_t*>(p));
  std::free(p);
}

}  // namespace

void* operator new(std::size_t n) { return counted_alloc(n); }
void* operator new[](std::size_t n) { return counted_alloc(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  try {
    return counted_alloc(n);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  try {
    return counted_alloc(n);
  } catch (...) {
    return nullptr;
  }
}
void operator delete(void* p) noexcept { counted_free(p); }
void operator delete[](void* p) noexcept { counted_free(p); }
void operator delete(void* p, std::size_t) noexcept { counted_free(p); }
void operator delete[](void* p, std::size_t) noexcept { counted_free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { counted_free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { counted_free(p); }
#endif

// ---- the runs ------------------------------------------------------------------------------

namespace {

using namespace shwa;
using namespace shwa::app;

// The memory tests' temporary folders: memory-test-XXXXXX.
struct TempDir : shwa_test::TempDir {
  TempDir() : shwa_test::TempDir("memory-test") {}
};

void write(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

/// An nx x ny raster whose value at cell (i, j) is f(i, j).
template <class F>
void write_raster(const std::string& path, int nx, int ny, F&& f) {
  std::ostringstream s;
  s << "ncols " << nx << "\nnrows " << ny << "\nxllcorner 0\nyllcorner 0\ncellsize 10\n";
  for (int j = ny - 1; j >= 0; --j)
    for (int i = 0; i < nx; ++i) s << f(i, j) << (i + 1 < nx ? ' ' : '\n');
  write(path, s.str());
}

/// The formats this build writes, all of them.
std::string all_formats() {
  std::string f = "\"vtk\", \"asc\"";
#if SHWA_HAVE_NETCDF
  f += ", \"netcdf\"";
#endif
#if SHWA_HAVE_PNG
  f += ", \"png\"";
#endif
  return f;
}

struct Measured {
  long long peak = 0;
  MemoryEstimate estimate;
};

/// Loads `deck` and runs it as `shwa run` does, counting; the estimate of its configuration.
Measured run_counted(const std::string& deck, const std::vector<std::string>& rasters, bool restart) {
  Measured m;
  m.peak = peak_of([&] {
    io::Deck d = io::Deck::load(deck);
    LoadOptions lo;
    lo.check_memory = false;  // the estimate is compared below, not against this machine
    lo.restart = restart;
    const RunConfig cfg = load_config(d, deck, lo);
    m.estimate = estimate_run_memory(cfg, rasters, d.has("physics.manning_file"), 1, 1, true, restart);
    RunOptions opt;
    opt.restart = restart;
    std::FILE* quiet = std::fopen("/dev/null", "w");
    opt.progress = quiet;
    run_simulation(cfg, opt);
    std::fclose(quiet);
  });
  return m;
}

/// The estimate's part in proportion to the grid: less the fixed allowances.
long long in_proportion(const MemoryEstimate& e) {
  return (long long)(e.host + e.device) - (long long)kProgramAllowance - (long long)kDeviceAllowance;
}

void check_bounds(const Measured& m, const char* what) {
  const long long estimate = in_proportion(m.estimate);
  INFO(what << ": measured peak " << format_bytes(std::uint64_t(m.peak)) << ", estimate less the allowances "
            << format_bytes(std::uint64_t(estimate)));
  // Above what the run held at its peak (the allowance covers the program's small allocations),
  CHECK(m.peak <= estimate + (long long)kProgramAllowance / 8);
  // and within half again of it: an estimate that refuses runs the machine could hold is wrong too.
  CHECK(estimate <= m.peak + m.peak / 2);
}

}  // namespace

TEST_CASE("memory: the estimate bounds what a run allocates, and is not far above it", "[memory]") {
  TempDir dir;
  // A dam break of 320 000 cells with every format, gauges, maxima and a checkpoint: the peak
  // comes at an output or the checkpoint.
  const std::string out = dir / "out";
  auto dam = [&](const std::string& end) {
    return "[grid]\nnx = 800\nny = 400\ndx = 1.0\n[initial]\nproblem = \"dam_break\"\nh_left = 2.0\n"
           "h_right = 0.5\n[pollutant]\nx = 100.0\ny = 200.0\nradius = 50.0\nconcentration = 1.0\n"
           "[time]\nend = " + end + "\noutput_interval = 0.3\ncheckpoint_interval = 0.3\n[output]\ndir = \"" + out +
           "\"\nformats = [" + all_formats() + "]\n[gauges.a]\nx = 500.0\ny = 200.0\n[gauges.b]\nx = 100.0\ny = 100.0\n";
  };
  write(dir / "dam.toml", dam("0.6"));
  check_bounds(run_counted(dir / "dam.toml", {}, false), "dam break, every format");
  // The same run continued from its checkpoint to a later end: the checkpoint is read whole.
  write(dir / "dam.toml", dam("0.9"));
  check_bounds(run_counted(dir / "dam.toml", {}, true), "the dam break restarted");

  // An initial state from four rasters (bathymetry, depth, concentration, Manning): their text and
  // values are read before the state is built.
  const int nx = 600, ny = 400;
  write_raster(dir / "bathy.asc", nx, ny, [](int i, int j) { return -2.0 - 0.001 * i + 0.0005 * j; });
  write_raster(dir / "depth.asc", nx, ny, [](int i, int) { return i < 300 ? 2.5 : 1.0; });
  write_raster(dir / "conc.asc", nx, ny, [](int i, int j) { return (i + j) % 7 == 0 ? 0.25 : 0.0; });
  write_raster(dir / "n.asc", nx, ny, [](int i, int) { return 0.01 + 0.00001 * i; });
  write(dir / "files.toml", "[initial]\nbathymetry = \"bathy.asc\"\ndepth_file = \"depth.asc\"\n"
                            "concentration_file = \"conc.asc\"\n[physics]\nmanning_file = \"n.asc\"\n[time]\nend = 5.0\n"
                            "output_interval = 2.5\n[output]\ndir = \"" + (dir / "files") + "\"\nformats = [\"asc\"]\n");
  check_bounds(run_counted(dir / "files.toml", {dir / "bathy.asc", dir / "depth.asc", dir / "conc.asc", dir / "n.asc"},
                           false),
               "four rasters");
}

TEST_CASE("memory: blocks of a decomposition need their share; rank 0 the whole grid's outputs", "[memory]") {
  MemoryModel m;
  m.nx = 4000;
  m.ny = 3000;
  m.device_is_host = false;  // the parts apart
  m.frames = true;
  m.png = true;
  const MemoryEstimate one = estimate_memory(m);
  m.px = 2;
  m.py = 2;
  const MemoryEstimate root = estimate_memory(m);
  m.root = false;
  const MemoryEstimate other = estimate_memory(m);
  // A quarter of the block on each rank's device (its halos aside).
  const double quarter = double(one.device - kDeviceAllowance) / 4;
  CHECK(double(root.device - kDeviceAllowance) > quarter);
  CHECK(double(root.device - kDeviceAllowance) < 1.01 * quarter);
  CHECK(other.device == root.device);
  // Each rank builds the initial state of its block (5 doubles a cell), less than the whole grid's;
  // rank 0 also holds the whole grid's fields at an output.
  const double cells = 4000.0 * 3000.0;
  CHECK(double(other.host - kProgramAllowance) >= 5 * 8 * cells / 4);
  CHECK(double(other.host - kProgramAllowance) < 5 * 8 * cells);
  CHECK(double(root.host) > double(other.host) + 5 * 8 * cells);
  // Single precision halves the device's fields; the owned cells on their way to the host are
  // doubles in both (a quarter of the grid on each rank).
  m.real_bytes = 4;
  const std::uint64_t stage = 8 * 2000 * 1500;
  CHECK(estimate_memory(m).device - kDeviceAllowance - stage < (other.device - kDeviceAllowance - stage) / 2 + (1 << 20));
}

TEST_CASE("memory: the writers' threads count where the grid gives them work", "[memory]") {
  // The dam break above with every writer, on 2 and on 128 threads: a grid of 320 000 cells gives
  // the ASC writer 400 rows to share and the compressors a few blocks each (VTK's 5 arrays of
  // doubles 15: 13 threads' buffers more, 32.5 MiB), so the estimate grows by little; were every
  // thread counted with a band and buffers, by about 1.1 GiB.
  MemoryModel m;
  m.nx = 800;
  m.ny = 400;
  m.device_is_host = false;
  m.frames = m.asc = m.png = m.vtk_zlib = m.checkpoint_zlib = true;
  m.writer_threads = 2;
  const MemoryEstimate few = estimate_memory(m);
  m.writer_threads = 128;
  const MemoryEstimate many = estimate_memory(m);
  CHECK(many.device == few.device);
  CHECK(many.host >= few.host);
  CHECK(many.host - few.host < (std::uint64_t(48) << 20));
  // A 20000 x 20000 grid keeps all 128 busy in each of the ASC, VTK and PNG writers, which write an
  // output at once: at least 2.5 MiB more for each further thread of each writer. (With 8
  // pollutants and no maxima an output, with its 17 VTK arrays, is the estimate's largest phase,
  // above a checkpoint's.)
  m.nx = m.ny = 20000;
  m.tracers = 8;
  m.checkpoint_zlib = m.maxima = false;
  m.writer_threads = 2;
  const std::uint64_t large_few = estimate_memory(m).host;
  m.writer_threads = 128;
  CHECK(estimate_memory(m).host - large_few >= 3 * 126 * (std::uint64_t(5) << 19));
  // The ASC text of a round: every worker a band of whole rows, no more rows than the grid's and
  // one band's.
  for (const int w : {1, 2, 16, 128, 1000}) {
    INFO(w << " workers");
    const std::uint64_t row = 800 * 25;
    CHECK(io::esri_ascii_text_bytes(800, 400, w) <= (400 + (400 + std::uint64_t(w) - 1) / std::uint64_t(w)) * row);
    CHECK(io::esri_ascii_text_bytes(800, 400, w) >= std::min<std::uint64_t>(400, std::uint64_t(w)) * row);
  }
  // A narrow map is widened to its legend: the PNG writer's image is wider than its cells.
  const io::PngSize narrow = io::png_image_size(10, 100000, 1);
  CHECK(narrow.width > 100);
  CHECK(narrow.height > 100000);
  CHECK(io::png_image_size(4000, 3000, 2).width == 8000);
}

TEST_CASE("memory: a run the machine cannot hold is refused before its state is built, naming the figures",
          "[memory]") {
  TempDir dir;
  write(dir / "big.toml", "[grid]\nnx = 20000\nny = 20000\ndx = 1.0\n[initial]\nproblem = \"dam_break\"\n"
                          "h_left = 2.0\nh_right = 0.5\n[time]\nend = 1.0\n[output]\ndir = \"" + (dir / "out") +
                              "\"\nformats = [\"vtk\"]\n");
  LoadOptions lo;
  MemoryAvailable small;
  small.host = std::uint64_t(8) << 30;
  small.host_source = "a test's figure";
  small.device = std::uint64_t(8) << 30;
  small.device_source = "free on a test's GPU";
  lo.available = [&] { return small; };
  std::string error;
  const long long peak = peak_of([&] {
    io::Deck d = io::Deck::load(dir / "big.toml");
    try {
      load_config(d, dir / "big.toml", lo);
    } catch (const io::InputError& e) {
      error = e.what();
    }
  });
  INFO(error);
  CHECK(error.rfind((dir / "big.toml") + ":2: grid.nx: the 20000 x 20000 grid (400000000 cells) needs about ", 0) == 0);
  CHECK(error.find(" more than the 8.00 GiB available (a test's figure)") != std::string::npos);
  CHECK(error.find("numerics.memory_check = false") != std::string::npos);
  // The initial state alone would be 16 GB: nothing of the grid's size was allocated.
  CHECK(peak < (1 << 20));
  CHECK_FALSE(fs::exists(dir / "out"));

  // Several ranks on a node share its memory: four ranks of 5000 x 5000 blocks.
  MemoryEstimate root{std::uint64_t(3) << 30, 0}, other{std::uint64_t(2) << 30, 0};
  NodeShare node{4, true};
  const auto why = memory_shortfall("the grid", root, other, node, true, small);
  REQUIRE(why);
  CHECK(*why == "the grid needs about 9.00 GiB of host memory for the 4 ranks on this node (3.00 GiB for rank 0, "
                "2.00 GiB for each other), more than the 8.00 GiB available (a test's figure) (a coarser grid, more "
                "nodes, or numerics.memory_check = false to try anyway)");
  node.ranks = 3;
  CHECK_FALSE(memory_shortfall("the grid", root, other, node, true, small));
  // The device: each rank's against its GPU's free memory.
  MemoryEstimate gpu{std::uint64_t(1) << 30, std::uint64_t(9) << 30};
  const auto dev = memory_shortfall("the grid", gpu, gpu, NodeShare{}, true, small);
  REQUIRE(dev);
  CHECK(dev->find("needs about 9.00 GiB of device memory on each rank, more than the 8.00 GiB free on a test's GPU") !=
        std::string::npos);
  // numerics.memory_check = false lets it through the check (the state is then built: not here).
  write(dir / "small.toml", "[grid]\nnx = 200\nny = 100\ndx = 1.0\n[initial]\nproblem = \"dam_break\"\n"
                            "h_left = 2.0\nh_right = 0.5\n[time]\nend = 1.0\n[numerics]\nmemory_check = false\n"
                            "[output]\ndir = \"" + (dir / "out") + "\"\n");
  small.host = 1024;
  io::Deck d = io::Deck::load(dir / "small.toml");
  CHECK_NOTHROW(load_config(d, dir / "small.toml", lo));
}
