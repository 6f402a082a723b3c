#pragma once
// The exception types of the I/O library. Every message is one line: "FILE:LINE: KEY: message",
// with the parts that do not apply left out, so the driver can print what() and exit non-zero.

#include <stdexcept>
#include <string>

namespace shwa::io {

// Base of all I/O errors, for callers that handle reading and writing alike.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Bad user input: a deck, a raster, a time series or a checkpoint that cannot be used.
class InputError : public Error {
 public:
  using Error::Error;
};

// An output that cannot be written (missing or read-only directory, full disk).
class OutputError : public Error {
 public:
  using Error::Error;
};

}  // namespace shwa::io
