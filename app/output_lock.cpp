// shwa/app/output_lock.cpp — see output_lock.hpp.
#include "output_lock.hpp"

#include "io/error.hpp"
#include "io/text.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

namespace shwa::app {

OutputLock::OutputLock(const std::string& dir) {
  const std::string path = dir + "/" + kFile;
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw io::OutputError(path + ": cannot open the output directory's lock file: " + std::strerror(errno));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    // The holder wrote its process id into the file.
    char buf[64] = {};
    const ssize_t n = ::pread(fd_, buf, sizeof buf - 1, 0);
    const std::string holder(buf, n > 0 ? std::size_t(n) : 0);
    ::close(fd_);
    fd_ = -1;
    if (err != EWOULDBLOCK)
      throw io::OutputError(path + ": cannot lock the output directory: " + std::strerror(err));
    const std::string pid(io::trim(holder));
    throw io::OutputError(dir + ": another shwa run" + (pid.empty() ? std::string() : " (process " + pid + ")") +
                          " is writing in this output directory; wait for it to end or choose another output.dir");
  }
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

}  // namespace shwa::app
