// shwa/app/ranks.cpp — see ranks.hpp.
#include "ranks.hpp"

#include "simulation.hpp"

#include "io/error.hpp"

namespace shwa::app {

std::pair<ErrorKind, std::string> classify_error(std::exception_ptr e) {
  if (!e) return {ErrorKind::None, ""};
  try {
    std::rethrow_exception(e);
  } catch (const BlowUp& x) {
    return {ErrorKind::BlowUp, x.what()};
  } catch (const io::OutputError& x) {
    return {ErrorKind::Output, x.what()};
  } catch (const std::exception& x) {
    return {ErrorKind::Input, x.what()};
  } catch (...) {
    return {ErrorKind::Input, "unknown error"};
  }
}

void throw_agreed_error(ErrorKind kind, int rank, const std::string& message) {
  const std::string m = rank != 0 ? "rank " + std::to_string(rank) + ": " + message : message;
  if (kind == ErrorKind::BlowUp) throw BlowUp(m);
  if (kind == ErrorKind::Output) throw io::OutputError(m);
  throw io::InputError(m);
}

void agree_on_error(const World& world, std::exception_ptr e) {
#ifdef SHWA_WITH_MPI
  const auto [kind, message] = classify_error(e);
  if (const auto first = world.first_error(int(kind), message))
    throw_agreed_error(ErrorKind(first->kind), first->rank, first->message);
#else
  (void)world;
  if (e) std::rethrow_exception(e);
#endif
}

}  // namespace shwa::app
