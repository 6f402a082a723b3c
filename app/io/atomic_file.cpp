#include "io/atomic_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "io/error.hpp"

namespace shwa::io {

namespace {

std::string parent_dir(const std::string& path) {
  const std::string dir = std::filesystem::path(path).parent_path().string();
  return dir.empty() ? "." : dir;
}

}  // namespace

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
  // A name no other writer uses: the process id and a per-process counter. O_EXCL makes a
  // collision with a stale file from a killed run an error we retry past instead of a clobber.
  static std::atomic<unsigned> counter{0};
  int fd = -1;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    tmp_path_ = path_ + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
    // Mode 0666 minus the umask: the permissions any newly created file would get.
    fd = ::open(tmp_path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0) throw OutputError(path_ + ": cannot write: " + std::strerror(errno));
  file_ = ::fdopen(fd, "wb");
  if (!file_) {
    const int err = errno;
    ::close(fd);
    ::unlink(tmp_path_.c_str());
    throw OutputError(path_ + ": cannot write: " + std::strerror(err));
  }
}

AtomicFile::~AtomicFile() {
  if (file_) std::fclose(file_);
  if (!committed_) ::unlink(tmp_path_.c_str());
}

void AtomicFile::fail(const char* what) {
  const int err = errno;
  if (file_) std::fclose(file_);
  file_ = nullptr;
  throw OutputError(path_ + ": " + what + ": " + std::strerror(err));
}

void AtomicFile::write(const void* data, std::size_t bytes) {
  if (bytes != 0 && std::fwrite(data, 1, bytes, file_) != bytes) fail("write failed");
}

void AtomicFile::write_at(std::uint64_t offset, const void* data, std::size_t bytes) {
  if (std::fflush(file_) != 0) fail("write failed");  // what is buffered reaches the file first
  if (::fseeko(file_, off_t(offset), SEEK_SET) != 0) fail("seek failed");
  write(data, bytes);
  if (::fseeko(file_, 0, SEEK_END) != 0) fail("seek failed");
}

void AtomicFile::commit(bool durable) {
  if (std::fflush(file_) != 0) fail("write failed");
  if (durable && ::fsync(::fileno(file_)) != 0) fail("fsync failed");
  const int rc = std::fclose(file_);
  file_ = nullptr;
  if (rc != 0) fail("write failed");
  if (::rename(tmp_path_.c_str(), path_.c_str()) != 0) fail("cannot rename the temporary file");
  committed_ = true;
  if (durable) {
    // The rename itself is only durable once the directory is on disk. Best effort: some file
    // systems refuse to fsync a directory, and the data is already safe under the new name.
    const int dir = ::open(parent_dir(path_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) {
      ::fsync(dir);
      ::close(dir);
    }
  }
}

void write_file_atomically(const std::string& path, std::string_view contents, bool durable) {
  AtomicFile f(path);
  f.write(contents);
  f.commit(durable);
}

}  // namespace shwa::io
