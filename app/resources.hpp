// shwa/app/resources.hpp — the memory a run needs, estimated from its configuration before any
// of its state is allocated, and the memory the machine has for it.
//
// The estimate counts what a run allocates in proportion to its grid, per rank, at the peak of
// each phase (app/simulation.cpp):
//   - the initial state of the rank's block on the host (4 doubles a cell and one a pollutant, one
//     more with a Manning raster), which it builds and keeps for the run (config.hpp), and while it is built the
//     rasters read (the values of each, whole grid, and the text of the one being read);
//   - on the device, the block's padded fields: two sets of the conserved variables (h, qx, qy,
//     one hc a pollutant), the
//     bathymetry (and g n^2 with a Manning raster, with the field it comes from at set-up), the
//     QuietMap, the diagnostics' 2 packed copies and the maxima maps (hmax, each pollutant's
//     cmax and arrival) of the owned cells, the
//     gauge buffer and the halo buffers;
//   - on the root rank, the gathered bathymetry kept for the outputs; at an output the block's
//     fields on the host and their derived fields, on the root of several ranks those of the
//     whole grid too (5 each) with a gather's buffer, kept from the first output on, and the
//     writers' own copies, all at once (ESRI ASCII a raster, PNG two fields and the image, VTK
//     its piece compressed); at a checkpoint the whole-grid arrays in the run's precision with a
//     gather's buffers; on a restart the checkpoint read whole and its arrays;
//   - where the device's memory is not the host's, the host mirrors of the padded fields set at
//     set-up, and on the device a buffer of a field's owned cells (outputs, checkpoints, a
//     restart).
// Program code, libraries and the runtime are a fixed allowance. Where the build's device memory
// is host memory (Serial, OpenMP) the two add up against the host's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace shwa::app {

/// What the estimate depends on: the run's configuration before its state is built.
struct MemoryModel {
  std::int64_t nx = 1, ny = 1;  // the whole grid
  int halo_width = 1;           // ghost layers
  int px = 1, py = 1;           // blocks along x and y: the largest block is estimated
  bool root = true;             // the rank that gathers whole fields for outputs and checkpoints
  int real_bytes = 8;           // the run's precision
  bool device_is_host = true;   // the device's memory is the host's (Serial, OpenMP)
  int rasters = 0;              // rasters the initial state reads (ESRI ASCII, read whole)
  std::uint64_t largest_raster_bytes = 0;
  bool manning_field = false;   // a Manning raster: a sixth initial field, g n^2 on the device
  int tracers = 1;              // pollutants: one conserved field, maxima maps and output field each
  bool maxima = true;           // output.maxima: 3 more arrays in checkpoints
  bool frames = false;          // output formats: the run keeps an output's buffers between outputs
  bool asc = false, png = false;  // writers on the root: the ASC text of a round of bands, the PNG's copies
  bool vtk_zlib = false;        // the VTK writer holds each array of its piece compressed until written
  int writer_threads = 1;       // the threads compressing (VTK, checkpoints, PNG; 2.5 MiB each busy one) or formatting (ASC)
  int output_bytes = 8;         // output.precision: 4 (single) or 8 bytes a value in VTK and NetCDF
  bool checkpoint_zlib = false;  // the root holds one checkpoint array compressed until written
  int png_scale = 1;
  int gauges = 0;
  bool restart = false;         // reads a checkpoint of the whole grid
};

struct MemoryEstimate {
  std::uint64_t host = 0;    // bytes of host memory at the peak, the fixed allowance included
  std::uint64_t device = 0;  // bytes of device memory (0 where the device's memory is the host's)
};

/// Bytes of the program itself (code, libraries, runtimes) that the estimates add.
inline constexpr std::uint64_t kProgramAllowance = std::uint64_t(96) << 20;
/// Bytes a device run needs besides its Views (kernel scratch, reduction buffers, the runtime).
inline constexpr std::uint64_t kDeviceAllowance = std::uint64_t(64) << 20;

/// The estimate for one rank of the model: where the device's memory is the host's, its Views
/// are in `host` and `device` is 0.
MemoryEstimate estimate_memory(const MemoryModel& m);

/// What the machine has for the run.
struct MemoryAvailable {
  std::optional<std::uint64_t> host;    // bytes the node can still give (see available_memory)
  std::string host_source;              // where the figure comes from, for messages
  std::optional<std::uint64_t> device;  // bytes free on this rank's GPU (GPU builds)
  std::string device_source;
};

/// The host's MemAvailable (/proc/meminfo; sysconf's available pages where there is none), less
/// where a cgroup (a container, a batch job) limits the process further, to that limit less its
/// usage; the free memory of the GPU this rank uses (cudaMemGetInfo, hipMemGetInfo) in GPU builds,
/// which needs Kokkos initialized.
MemoryAvailable available_memory();

/// How the ranks share the node of this rank: its host memory serves them all.
struct NodeShare {
  int ranks = 1;       // ranks on this node
  bool root = true;    // rank 0 is one of them
};

/// "1.50 GiB": bytes for messages.
std::string format_bytes(std::uint64_t bytes);

/// Why a run whose estimate is `root` for rank 0 and `other` for each other rank does not fit,
/// or nothing: the host memory the ranks of this node need together against `avail.host`, the
/// device memory of this rank against `avail.device`. The sentence names `grid` (its size), the
/// figures and where the available one comes from. A figure that is not known is not checked.
std::optional<std::string> memory_shortfall(const std::string& grid, const MemoryEstimate& root,
                                            const MemoryEstimate& other, const NodeShare& node, bool this_is_root,
                                            const MemoryAvailable& avail);

}  // namespace shwa::app
