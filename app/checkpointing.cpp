// shwa/app/checkpointing.cpp — see checkpointing.hpp.
#include "checkpointing.hpp"

#include "io/error.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
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

}  // namespace

std::string save_checkpoint(const std::string& out_dir, const io::Checkpoint& c) {
  fs::create_directories(out_dir + "/checkpoints");
  char name[64];
  std::snprintf(name, sizeof name, "%s%010lld%s", kPrefix, static_cast<long long>(c.step), kSuffix);
  const std::string path = out_dir + "/checkpoints/" + name;
  io::write_checkpoint(path, c);
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
