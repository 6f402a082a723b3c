// shwa/app/output_lock.hpp — one run at a time in an output directory.
//
// A run holds an exclusive flock(2) on OUTPUT_DIR/shwa.lock from before it writes its first file
// until it ends; a second run into the same directory finds the lock taken and is refused,
// naming the process that holds it (its id is written in the file). The kernel drops the lock
// when the process ends, however it ends, so the file a killed run leaves behind blocks nothing.
#pragma once

#include <string>

namespace shwa::app {

class OutputLock {
 public:
  OutputLock() = default;
  /// Takes the lock of `dir` (which must exist), creating the lock file if needed. Throws
  /// io::OutputError naming `dir` if another process holds it or the file cannot be opened.
  explicit OutputLock(const std::string& dir);
  ~OutputLock();
  OutputLock(OutputLock&& other) noexcept;
  OutputLock& operator=(OutputLock&& other) noexcept;
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;
  /// Throws the error the constructor would where another process holds the lock of `dir`;
  /// creates and writes nothing.
  static void check_free(const std::string& dir);

  /// The lock file's name in the output directory.
  static constexpr const char* kFile = "shwa.lock";

 private:
  int fd_ = -1;
};

/// Removes what runs killed while writing left in `dir` and its output folders (asc, vtk, png,
/// maxima, checkpoints): the temporary files NAME.tmp.PID.N of atomic writes (io/atomic_file.hpp),
/// checkpoints' among them as large as the checkpoints. Only for a run that holds the lock of
/// `dir`: no other run is writing there. Returns how many files it removed.
int remove_stale_temporaries(const std::string& dir);

}  // namespace shwa::app
