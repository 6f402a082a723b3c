// shwa/app/output_lock.cpp — see output_lock.hpp.
#include "output_lock.hpp"

#include "io/error.hpp"
#include "io/text.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <utility>

namespace shwa::app {

namespace {

/// Locks the open lock file `fd` of `dir` (`operation`: LOCK_EX or LOCK_SH), or closes it and
/// throws: naming the process that holds the lock (its id is in the file), or why it could not be
/// locked.
void lock_or_throw(int fd, const std::string& dir, int operation) {
  if (::flock(fd, operation | LOCK_NB) == 0) return;
  const int err = errno;
  char buf[64] = {};
  const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  const std::string holder(buf, n > 0 ? std::size_t(n) : 0);
  ::close(fd);
  if (err != EWOULDBLOCK)
    throw io::OutputError(dir + "/" + OutputLock::kFile + ": cannot lock the output directory: " + std::strerror(err));
  const std::string pid(io::trim(holder));
  throw io::OutputError(dir + ": another shwa run" + (pid.empty() ? std::string() : " (process " + pid + ")") +
                        " is writing in this output directory; wait for it to end or choose another output.dir");
}

}  // namespace

void OutputLock::check_free(const std::string& dir) {
  const int fd = ::open((dir + "/" + kFile).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;  // no lock file: no run has written there
  // A shared lock conflicts with the holder's exclusive one, and needs no write access (NFS
  // emulates flock with fcntl locks, whose exclusive kind needs the file open for writing).
  lock_or_throw(fd, dir, LOCK_SH);
  ::close(fd);  // releases the lock
}

OutputLock::OutputLock(const std::string& dir) {
  const std::string path = dir + "/" + kFile;
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw io::OutputError(path + ": cannot open the output directory's lock file: " + std::strerror(errno));
  const int fd = std::exchange(fd_, -1);
  lock_or_throw(fd, dir, LOCK_EX);
  fd_ = fd;
  const std::string pid = std::to_string(::getpid()) + "\n";
  // The process id is a courtesy for the message above; failing to write it is no reason to stop.
  if (::ftruncate(fd_, 0) == 0) {
    [[maybe_unused]] const ssize_t written = ::pwrite(fd_, pid.data(), pid.size(), 0);
  }
}

OutputLock::~OutputLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the file releases the lock
}

OutputLock::OutputLock(OutputLock&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}

OutputLock& OutputLock::operator=(OutputLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

namespace {

/// Whether `name` is NAME.tmp.PID.N, as io::AtomicFile names its temporary files.
bool is_atomic_temporary(const std::string& name) {
  const auto digits = [](const std::string& s) {
    return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
  };
  const std::size_t last = name.rfind('.');
  if (last == std::string::npos || last == 0 || !digits(name.substr(last + 1))) return false;
  const std::size_t pid = name.rfind('.', last - 1);
  if (pid == std::string::npos || !digits(name.substr(pid + 1, last - pid - 1))) return false;
  return pid > 4 && name.compare(pid - 4, 4, ".tmp") == 0;
}

}  // namespace

int remove_stale_temporaries(const std::string& dir) {
  namespace fs = std::filesystem;
  int removed = 0;
  for (const char* sub : {"", "asc", "vtk", "png", "maxima", "checkpoints"}) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(fs::path(dir) / sub, ec)) {
      std::error_code ignored;
      if (e.is_regular_file(ignored) && is_atomic_temporary(e.path().filename().string()) &&
          fs::remove(e.path(), ignored))
        ++removed;
    }
  }
  return removed;
}

}  // namespace shwa::app
