#pragma once
// Files that appear complete or not at all. The data goes to a temporary file in the target's
// directory, which commit() renames over the target (rename is atomic within a file system), so
// a reader, or a run killed mid-write, never sees a half-written output. (A kill can leave the
// temporary file, "NAME.tmp.PID.N", behind; it is never mistaken for the output, and the next
// run in the same output directory removes it: app/output_lock.hpp.)

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace shwa::io {

class AtomicFile {
 public:
  // Creates the temporary file; throws OutputError "PATH: cannot write: REASON".
  explicit AtomicFile(std::string path);
  // Removes the temporary file unless commit() succeeded.
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(const void* data, std::size_t bytes);
  void write(std::string_view text) { write(text.data(), text.size()); }
  // Writes over bytes written before, at `offset` from the start (a size known only at the end);
  // later writes go on at the end.
  void write_at(std::uint64_t offset, const void* data, std::size_t bytes);

  // Closes the temporary file and renames it to the target. With durable = true the data and
  // the directory entry are also fsync'ed first, so the file survives a power loss (checkpoints).
  void commit(bool durable = false);

  const std::string& path() const { return path_; }

 private:
  [[noreturn]] void fail(const char* what);

  std::string path_;
  std::string tmp_path_;
  std::FILE* file_ = nullptr;
  bool committed_ = false;
};

// Writes `contents` to `path` through an AtomicFile.
void write_file_atomically(const std::string& path, std::string_view contents, bool durable = false);

}  // namespace shwa::io
