// shwa/app/resources.cpp — see resources.hpp.
#include "resources.hpp"

#include "io/png.hpp"
#include "io/png_format.hpp"
#include "io/raster.hpp"
#include "io/zlib_blocks.hpp"

#include <Kokkos_Core.hpp>

#if defined(KOKKOS_ENABLE_CUDA)
#include <cuda_runtime_api.h>
#elif defined(KOKKOS_ENABLE_HIP)
#include <hip/hip_runtime_api.h>
#endif

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace shwa::app {

namespace {

using U = std::uint64_t;

/// Gauge samples the device buffer holds (simulation.cpp's kGaugeRows).
constexpr U kGaugeRows = 256;

/// What each busy thread of a compressing writer holds: a block to convert, one to compress into
/// and zlib's state.
constexpr U kThreadBytes = U(5) << 19;
/// What each busy thread of the PNG writer holds for an image `width` pixels wide: as a
/// compressor, or, where a line of pixels is longer than 512 KiB, a piece of one line and the
/// line before (its dictionary), what it compresses to and zlib's state.
U png_thread_bytes(U width) { return std::max(kThreadBytes, 3 * (4 * width + 1) + (U(1) << 18)); }

/// The writer threads that work on `pieces` pieces at once: the run's, no more than the pieces.
U busy(const MemoryModel& m, U pieces) { return std::max<U>(1, std::min<U>(U(std::max(1, m.writer_threads)), pieces)); }

}  // namespace

MemoryEstimate estimate_memory(const MemoryModel& m) {
  const U D = sizeof(double), r = U(m.real_bytes), k = U(m.halo_width);
  const U N = U(m.nx) * U(m.ny);
  // The largest block: split_evenly gives the first blocks one cell more.
  const U bx = (U(m.nx) + U(m.px) - 1) / U(m.px), by = (U(m.ny) + U(m.py) - 1) / U(m.py);
  const U B = bx * by, P = (bx + 2 * k) * (by + 2 * k);
  const U man = m.manning_field ? 1 : 0;
  const U t = U(m.tracers), F = 3 + t;  // the conserved fields: h, qx, qy, one hc a tracer
  const U maps = m.maxima ? 1 + 2 * t : 0;  // hmax, each tracer's cmax and arrival

  // Device: the solver's two states (F fields each), H, g n^2 and the n it comes from; the
  // QuietMap (an int per 8 x 8 cells); diagnostics (2 packed copies) and the maxima maps of the
  // owned cells; the gauge buffer; the halo buffers (send and receive, F fields, k layers
  // around the block; on the host too where they are staged).
  U device = r * P * (2 * F + 1 + 2 * man) + 4 * ((by + 2 * k + 7) / 8) * ((bx + 2 * k + 7) / 8) +
             (2 + 1 + 2 * t) * r * B + kGaugeRows * F * U(m.gauges) * r;
  if (m.px * m.py > 1) device += 2 * F * r * k * (2 * (bx + by) + 4 * k);
  // Where the host cannot read the device, the owned cells of a field on their way to the host
  // (owned_to_host's stage, kept between outputs).
  if (!m.device_is_host) device += D * B;
  device += kDeviceAllowance;

  // Host, by phase: what lives through the run, plus each phase's own.
  const U init = D * B * (4 + t + man);  // the initial state of the rank's block: H, h, u, v, c
  const U mirror = m.device_is_host ? 0 : r * P;  // a host copy of one padded field (set-up)
  // Reading the rasters: the values of each stay (whole grid) while the next one's text is read,
  // and while the block's initial state is built from them.
  const U load = D * N * U(m.rasters) + std::max(U(m.largest_raster_bytes), init);
  const U run = init + (m.root ? D * N : 0);  // the root keeps the gathered bathymetry
  // Set-up: the Manning values of the padded block, the mirrors of the fields set, the gather
  // of the bathymetry.
  const U setup = run + D * P + mirror * (F + 1 + man) + D * B + (m.root ? D * N : 0);
  // An output (or the comparison with an exact solution at the end): the block's conserved
  // fields, its bottom and its 4 + t derived ones, on the root of several ranks the derived fields
  // of the whole grid (all kept for the next output where the run writes frames) and a gather's
  // buffer, and the writers' copies.
  U writer = 0;  // the formats write at once: their copies add up
  if (m.root && m.asc) writer += io::esri_ascii_text_bytes(m.nx, m.ny, m.writer_threads);  // the text of a round of bands
  // PNG: depth and concentration, the image's pixels (the map and its legend) and their
  // compressed pieces, and for each busy thread a piece of rows and what it compresses to.
  const io::PngSize image = io::png_image_size(m.nx, m.ny, m.png_scale);
  const U png_pixels = U(image.width) * U(image.height);
  if (m.root && m.png)
    writer += 2 * D * N + 8 * png_pixels +
              busy(m, io::png_format::rgba_pieces(std::uint32_t(std::min<U>(image.width, UINT32_MAX)),
                                                  std::uint32_t(std::min<U>(image.height, UINT32_MAX)))) *
                  png_thread_bytes(image.width);
  // With one block the block's fields are the whole grid's: nothing is gathered (Frame::whole).
  const bool several = m.px * m.py > 1;
  const U kept = (F + 1 + 4 + t) * D * B + (m.root && several ? (4 + t) * D * N : 0);
  // Each rank's VTK piece compressed: its arrays' bytes (the frame's 4 + t fields or the 1 + 2t
  // maxima maps) and what zlib may add (n/4096 + n/16384 + 13 a block, within the 1/4096 and the
  // MiB counted up to 16 GiB), plus what each busy thread holds.
  const U vtk_arrays = std::max(4 + t, 1 + 2 * t), vtk_raw = vtk_arrays * U(m.output_bytes) * B;
  const U vtk = m.vtk_zlib ? vtk_raw + vtk_raw / 4096 +
                                 busy(m, vtk_arrays * io::zlib_blocks(U(m.output_bytes) * B)) * kThreadBytes + (U(1) << 20)
                           : 0;
  const U frame = run + kept + vtk + (m.root ? (several ? D * N : 0) + writer : 0);
  // A checkpoint: the root holds the arrays of the whole grid in the run's precision, and for the
  // one being gathered its doubles and, with several blocks, the gather's buffer.
  const U arrays = F + maps;
  // With one block the block's doubles are the array (moved), or its copy in single precision.
  // Compressed, the root holds one array's blocks at a time (as large as zlib may make them, as
  // for VTK) while it writes.
  const U zipped = m.checkpoint_zlib ? r * N + r * N / 4096 + busy(m, io::zlib_blocks(r * N)) * kThreadBytes + (U(1) << 20) : 0;
  // The PNG writer keeps its depth, concentration and pixels from frame to frame.
  const U png_kept = m.frames && m.root && m.png ? 2 * D * N + 4 * png_pixels : 0;
  const U checkpoint = run + (m.frames ? kept : 0) + png_kept + D * B +
                       (m.root ? arrays * r * N + (several ? 2 * D * N : D * N) + zipped : 0);
  // A restart: the root reads the checkpoint file whole, then its arrays; each array, as doubles
  // (in single precision a converted copy), goes to the block's cells, with several blocks
  // through the scatter's buffer and each block's own doubles.
  const U restart =
      m.restart ? run + D * B + (m.root ? 2 * arrays * r * N + (r < D ? D * N : 0) + (several ? D * N : 0) : 0) : 0;
  U host = std::max({load, setup, frame, checkpoint, restart}) + kGaugeRows * F * U(m.gauges) * r + kProgramAllowance;
  if (m.device_is_host) return {host + device, 0};
  if (m.px * m.py > 1) host += 2 * F * r * k * (2 * (bx + by) + 4 * k);  // staged halo buffers
  return {host, device};
}

MemoryAvailable available_memory() {
  MemoryAvailable a;
  // The node's: MemAvailable, the kernel's estimate of what can be allocated without swapping.
  {
    std::ifstream in("/proc/meminfo");
    std::string key;
    U value = 0;
    std::string unit;
    while (in >> key >> value) {
      std::getline(in, unit);
      if (key == "MemAvailable:") {
        a.host = value * 1024;
        a.host_source = "MemAvailable in /proc/meminfo";
        break;
      }
    }
  }
  if (!a.host) {
    const long pages = sysconf(_SC_AVPHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    if (pages > 0 && size > 0) {
      a.host = U(pages) * U(size);
      a.host_source = "available pages (sysconf)";
    }
  }
  // A cgroup's limit (v2: memory.max and memory.current of the process's group; v1: the memory
  // controller's limit and usage) where it leaves less.
  auto read_u = [](const std::string& path) -> std::optional<U> {
    std::ifstream in(path);
    std::string s;
    if (!(in >> s) || s == "max") return std::nullopt;
    try {
      return U(std::stoull(s));
    } catch (...) {
      return std::nullopt;
    }
  };
  std::string group2, group1;
  {
    std::ifstream in("/proc/self/cgroup");
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("0::", 0) == 0) group2 = line.substr(3);
      const std::size_t c = line.find(":memory:");
      if (c != std::string::npos) group1 = line.substr(c + 8);
    }
  }
  std::optional<U> limit, usage;
  std::string where;
  if (!group2.empty()) {
    for (std::string g = group2; limit == std::nullopt; g = g.substr(0, g.rfind('/'))) {
      limit = read_u("/sys/fs/cgroup" + (g == "/" ? std::string() : g) + "/memory.max");
      if (limit) {
        usage = read_u("/sys/fs/cgroup" + (g == "/" ? std::string() : g) + "/memory.current");
        where = "the cgroup limit in /sys/fs/cgroup" + (g == "/" ? std::string() : g) + "/memory.max";
      }
      if (g.empty() || g == "/") break;
    }
  }
  if (!limit && !group1.empty()) {
    const std::string base = "/sys/fs/cgroup/memory" + (group1 == "/" ? std::string() : group1);
    limit = read_u(base + "/memory.limit_in_bytes");
    usage = read_u(base + "/memory.usage_in_bytes");
    where = "the cgroup limit in " + base + "/memory.limit_in_bytes";
    if (limit && *limit >= (U(1) << 60)) limit.reset();  // v1's "no limit"
  }
  if (limit) {
    const U left = *limit > usage.value_or(0) ? *limit - usage.value_or(0) : 0;
    if (!a.host || left < *a.host) {
      a.host = left;
      a.host_source = where + " less the group's usage";
    }
  }

#if defined(KOKKOS_ENABLE_CUDA)
  std::size_t free = 0, total = 0;
  if (cudaMemGetInfo(&free, &total) == cudaSuccess) {
    a.device = U(free);
    int dev = 0;
    cudaGetDevice(&dev);
    a.device_source = "free on GPU " + std::to_string(dev) + " (cudaMemGetInfo)";
  }
#elif defined(KOKKOS_ENABLE_HIP)
  std::size_t free = 0, total = 0;
  if (hipMemGetInfo(&free, &total) == hipSuccess) {
    a.device = U(free);
    int dev = 0;
    hipGetDevice(&dev);
    a.device_source = "free on GPU " + std::to_string(dev) + " (hipMemGetInfo)";
  }
#endif
  return a;
}

std::string format_bytes(U bytes) {
  char buf[32];
  const double x = double(bytes);
  if (x >= double(U(1) << 30)) std::snprintf(buf, sizeof buf, "%.2f GiB", x / double(U(1) << 30));
  else if (x >= double(U(1) << 20)) std::snprintf(buf, sizeof buf, "%.1f MiB", x / double(U(1) << 20));
  else std::snprintf(buf, sizeof buf, "%.0f KiB", x / 1024);
  return buf;
}

std::optional<std::string> memory_shortfall(const std::string& grid, const MemoryEstimate& root,
                                            const MemoryEstimate& other, const NodeShare& node, bool this_is_root,
                                            const MemoryAvailable& avail) {
  const std::string hint = " (a coarser grid, more nodes, or numerics.memory_check = false to try anyway)";
  if (avail.host) {
    const int others = std::max(0, node.ranks - (node.root ? 1 : 0));
    const U need = (node.root ? root.host : 0) + U(others) * other.host;
    if (need > *avail.host) {
      const std::string who =
          node.ranks == 1 ? std::string("on its rank")
                          : "for the " + std::to_string(node.ranks) + " ranks on this node (" +
                                (node.root ? format_bytes(root.host) + " for rank 0" +
                                                 (others > 0 ? ", " + format_bytes(other.host) + " for each other" : "")
                                           : format_bytes(other.host) + " each") +
                                ")";
      return grid + " needs about " + format_bytes(need) + " of host memory " + who + ", more than the " +
             format_bytes(*avail.host) + " available (" + avail.host_source + ")" + hint;
    }
  }
  const MemoryEstimate& mine = this_is_root ? root : other;
  if (avail.device && mine.device > *avail.device)
    return grid + " needs about " + format_bytes(mine.device) + " of device memory on each rank, more than the " +
           format_bytes(*avail.device) + " " + avail.device_source + hint;
  return std::nullopt;
}

}  // namespace shwa::app
