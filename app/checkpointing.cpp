// shwa/app/checkpointing.cpp — see checkpointing.hpp.
#include "checkpointing.hpp"

#include "fields.hpp"
#include "outputs.hpp"

#include "io/error.hpp"
#include "io/text.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <variant>
#include <vector>

namespace shwa::app {

namespace fs = std::filesystem;

namespace {

const char* const kPrefix = "checkpoint_";
const char* const kSuffix = ".shck";

/// The checkpoint files of a run, oldest (lowest step) first. Zero-padded steps sort as text.
std::vector<fs::path> list(const std::string& out_dir) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(out_dir + "/checkpoints", ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind(kPrefix, 0) == 0 && name.size() > 5 && name.substr(name.size() - 5) == kSuffix)
      files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

const std::string kDeckPrefix = "deck.";
const std::string kInputPrefix = "input.";

/// "crc32 1a2b3c4d, 1234 bytes": the CRC-32 and size of a file's bytes, read in blocks. A file that
/// is not a regular one (a pipe, /dev/stdin) has been read once by the run and cannot be read
/// again: it is named so, and a restart cannot check it.
std::string file_digest(const std::string& path) {
  std::error_code ec;
  if (fs::exists(path, ec) && !fs::is_regular_file(path, ec)) return "not a regular file: not checked";
  std::ifstream in(path, std::ios::binary);
  if (!in) throw io::InputError(path + ": cannot read: " + std::strerror(errno));
  std::vector<char> block(std::size_t(1) << 20);
  std::uint32_t crc = 0;
  unsigned long long bytes = 0;
  while (in) {
    in.read(block.data(), std::streamsize(block.size()));
    const auto n = std::size_t(in.gcount());
    crc = io::crc32(block.data(), n, crc);
    bytes += n;
  }
  if (in.bad()) throw io::InputError(path + ": cannot read");
  char text[64];
  std::snprintf(text, sizeof text, "crc32 %08x, %llu bytes", unsigned(crc), bytes);
  return text;
}

/// The entries of `m` whose keys start with `prefix`, the prefix cut off.
std::map<std::string, std::string> with_prefix(const std::map<std::string, std::string>& m, const std::string& prefix) {
  std::map<std::string, std::string> out;
  for (auto it = m.lower_bound(prefix); it != m.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it)
    out[it->first.substr(prefix.size())] = it->second;
  return out;
}

}  // namespace

std::map<std::string, std::string> definition_metadata(const RunDefinition& d) {
  std::map<std::string, std::string> m;
  for (const auto& [key, value] : d.values) m[kDeckPrefix + key] = value;
  for (const auto& [key, path] : d.files) m[kInputPrefix + key] = file_digest(path);
  return m;
}

namespace {
/// Keys that shwa did not always have, each with the value that does what shwa did before it had
/// the key (output.precision: every VTK and NetCDF array was of doubles).
const std::map<std::string, std::string> kValueBeforeKey = {{"output.precision", "double"}};
}  // namespace

bool may_change_on_restart(const std::string& key) {
  static const std::set<std::string> keys = {
      "time.end",           "time.output_interval",    "time.output_times",  "time.checkpoint_interval",
      "output.dir",         "output.formats",          "output.fields",      "output.png_depth_max",
      "output.png_c_max",   "output.png_scale",        "output.png_animation", "output.progress_interval",
      "output.vtk_compression", "output.checkpoint_compression",
      "numerics.health_interval", "numerics.max_clipped_fraction", "numerics.tile", "numerics.rows",
      "numerics.cfl_rows",
      "numerics.skip_dry",  "numerics.max_steps",  "numerics.memory_check"};
  return keys.count(key) > 0 || key.rfind("parallel.", 0) == 0;
}

void check_restart(const io::Checkpoint& c, const std::string& path, const RunConfig& cfg,
                   const std::map<std::string, std::string>& definition) {
  auto refuse = [&](const std::string& why) { throw io::InputError(path + ": " + why); };
  if (!std::isfinite(c.time) || c.time < 0)
    refuse("impossible checkpoint: time " + io::format_double(c.time) + " (a checkpoint's time is finite and >= 0)");
  if (c.step < 0) refuse("impossible checkpoint: step " + std::to_string(c.step) + " (a step count is >= 0)");
  if ((c.step == 0) != (c.time == 0))
    refuse("impossible checkpoint: time " + io::format_double(c.time) + " after " + std::to_string(c.step) +
           " steps (every step advances the time)");
  if (c.nx != cfg.grid.nx || c.ny != cfg.grid.ny)
    refuse("the checkpoint's grid is " + std::to_string(c.nx) + " x " + std::to_string(c.ny) + ", the deck's " +
           std::to_string(cfg.grid.nx) + " x " + std::to_string(cfg.grid.ny));
  if (c.precision != 4 && c.precision != 8)
    refuse("impossible checkpoint: precision of " + std::to_string(c.precision) + " bytes");
  if (c.precision != int(sizeof(Real)))
    refuse(std::string("the checkpoint was written in ") + (c.precision == 4 ? "single" : "double") +
           " precision, this build runs in the other");
  // Every array (the state, the maxima) holds a value a cell: a file whose checksums hold may still
  // have been written wrong.
  const std::size_t cells = std::size_t(c.nx) * std::size_t(c.ny);
  for (const auto& [name, values] : c.arrays) {
    const std::size_t n = std::visit([](const auto& v) { return v.size(); }, values);
    if (n != cells)
      refuse("impossible checkpoint: its array '" + name + "' holds " + std::to_string(n) + " values, its grid " +
             std::to_string(cells) + " cells");
  }
  if (c.time > cfg.t_end) refuse("the checkpoint's time " + io::format_double(c.time) + " lies past time.end");

  const auto theirs = with_prefix(c.metadata, kDeckPrefix), ours = with_prefix(definition, kDeckPrefix);
  if (theirs.empty())
    refuse("the checkpoint does not record the deck of its run (written by an older shwa), so a restart "
           "cannot check that it continues the same run");
  const std::string hint = "; a restart continues the same run and may change only the keys inputs/README.md lists";
  std::set<std::string> keys;
  for (const auto& kv : theirs) keys.insert(kv.first);
  for (const auto& kv : ours) keys.insert(kv.first);
  const auto digests = with_prefix(c.metadata, kInputPrefix);
  for (const std::string& key : keys) {
    if (may_change_on_restart(key)) continue;
    // An input file compares by its contents, below: it may have moved.
    if (cfg.definition.files.count(key) && digests.count(key)) continue;
    const auto a = ours.find(key), b = theirs.find(key);
    const bool here = a != ours.end(), there = b != theirs.end();
    if (here && there && a->second == b->second) continue;
    // A key that the checkpoint's shwa did not have: the same run where this one has the value
    // that does what shwa did before the key existed.
    if (here && !there) {
      const auto before = kValueBeforeKey.find(key);
      if (before != kValueBeforeKey.end() && a->second == before->second) continue;
    }
    const auto w = cfg.definition.where.find(key);
    const std::string where = w == cfg.definition.where.end() || w->second.empty() || w->second == "default"
                                  ? cfg.deck_path
                                  : w->second;
    throw io::InputError(where + ": " + key + ": " + (here ? io::quote(a->second) : std::string("not set")) +
                         " here, " + (there ? io::quote(b->second) : std::string("not set")) +
                         " in the run that wrote " + path + hint);
  }
  for (const auto& [key, digest] : with_prefix(definition, kInputPrefix)) {
    const auto b = digests.find(key);
    if (b != digests.end() && b->second == digest) continue;
    const auto f = cfg.definition.files.find(key);
    const std::string file = f == cfg.definition.files.end() ? key : f->second;
    throw io::InputError(file + " (" + key + "): the file changed since " + path + " was written (" + digest +
                         " now, " + (b == digests.end() ? std::string("not read then") : b->second) +
                         "); a restart continues the same run and must read the same input files");
  }
  // Every array the restart reads back (the state, the maxima where the run keeps them), of this
  // build's precision: a checkpoint without one is refused here, on the root, where every rank
  // learns of it. Last, so that a run that changed what it keeps (output.maxima, the pollutants)
  // is told the key that changed.
  std::vector<std::string> needed;
  for (int k = 0; k < Conserved<Kokkos::DefaultHostExecutionSpace>::kFirstTracer + cfg.params.tracers; ++k)
    needed.push_back(Conserved<Kokkos::DefaultHostExecutionSpace>::name(k));
  if (cfg.out.maxima)
    for (const std::string& name : maxima_names(cfg.pollutants)) needed.push_back(name);
  for (const std::string& name : needed) {
    try {
      if (sizeof(Real) == sizeof(double))
        c.doubles(name);
      else
        c.floats(name);
    } catch (const io::InputError& e) {
      refuse(e.what());
    }
  }
}

std::string save_checkpoint(const std::string& out_dir, const io::Checkpoint& c, const io::CheckpointEncoding& encoding) {
  fs::create_directories(out_dir + "/checkpoints");
  char name[64];
  std::snprintf(name, sizeof name, "%s%010lld%s", kPrefix, static_cast<long long>(c.step), kSuffix);
  const std::string path = out_dir + "/checkpoints/" + name;
  io::write_checkpoint(path, c, encoding);
  std::vector<fs::path> files = list(out_dir);
  // Keep the newest two: the one just written and the one before it.
  for (std::size_t k = 0; k + 2 < files.size(); ++k) fs::remove(files[k]);
  return path;
}

std::string latest_checkpoint(const std::string& out_dir) {
  std::vector<fs::path> files = list(out_dir);
  if (files.empty())
    throw io::InputError(out_dir + "/checkpoints: no checkpoint to restart from (set time.checkpoint_interval "
                                   "and run without --restart first)");
  return files.back().string();
}

}  // namespace shwa::app
