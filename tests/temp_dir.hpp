#pragma once
// A temporary folder for the tests: made fresh under the working directory, removed with its
// contents when it goes out of scope. Each test executable names its folders with a prefix of its
// own, so a folder left behind by a killed run says which tests made it.

#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

// Outside namespace shwa: test_app.cpp has a function named shwa, which a namespace of that name
// would make ambiguous.
namespace shwa_test {

class TempDir {
 public:
  // The folder <working directory>/<prefix>-XXXXXX, the X's made unique by mkdtemp.
  explicit TempDir(const std::string& prefix) {
    std::string tmpl = (std::filesystem::current_path() / (prefix + "-XXXXXX")).string();
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  // A copy would remove the folder a second time.
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  std::string operator/(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }
  // The names of the files in the folder, sorted.
  std::vector<std::string> files() const {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(path_)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

 private:
  std::filesystem::path path_;
};

}  // namespace shwa_test
