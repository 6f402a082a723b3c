// shwa/comm/mpi_check.hpp — every MPI call of comm/ goes through SHWA_MPI_CHECK.
//
// The communicators comm/ creates return errors instead of aborting (MPI_ERRORS_RETURN), so a
// failed call becomes an MpiError naming the call and where it was made.
#pragma once

#include "types.hpp"

#include <mpi.h>

#include <stdexcept>
#include <string>
#include <type_traits>

namespace shwa::comm {

/// An MPI call returned an error.
class MpiError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace detail {

inline void check_mpi(int rc, const char* call, const char* file, int line) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS) len = 0;
  throw MpiError(std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " +
                 (len > 0 ? std::string(text, size_t(len)) : "error " + std::to_string(rc)));
}

}  // namespace detail

/// The MPI datatype of shwa::Real.
inline MPI_Datatype mpi_real() {
  return std::is_same<Real, double>::value ? MPI_DOUBLE : MPI_FLOAT;
}

}  // namespace shwa::comm

/// Calls an MPI function; throws shwa::comm::MpiError with the call and file:line when it fails.
#define SHWA_MPI_CHECK(call) ::shwa::comm::detail::check_mpi((call), #call, __FILE__, __LINE__)
