// The app's side of the agreement on errors (app/ranks.hpp): what kind of error an exception is,
// and the error every rank throws for the kind, rank and message they agreed on. The agreement
// itself (comm::World::first_error) is tested at 1, 2 and 4 ranks in tests/comm/test_world.cpp.
#include "ranks.hpp"

#include "simulation.hpp"
#include "io/error.hpp"

#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>

using namespace shwa;
using namespace shwa::app;

namespace {

template <class E>
std::exception_ptr thrown(const E& e) {
  try {
    throw e;
  } catch (...) {
    return std::current_exception();
  }
}

/// The class and message of what throw_agreed_error throws.
std::pair<std::string, std::string> agreed(ErrorKind kind, int rank, const std::string& message) {
  try {
    throw_agreed_error(kind, rank, message);
  } catch (const BlowUp& e) {
    return {"BlowUp", e.what()};
  } catch (const io::OutputError& e) {
    return {"OutputError", e.what()};
  } catch (const io::InputError& e) {
    return {"InputError", e.what()};
  } catch (...) {
    return {"other", ""};
  }
  return {"nothing", ""};
}

}  // namespace

TEST_CASE("ranks: an exception's kind and message for the agreement", "[ranks]") {
  using P = std::pair<ErrorKind, std::string>;
  CHECK(classify_error(nullptr) == P{ErrorKind::None, ""});
  CHECK(classify_error(thrown(BlowUp("NaN at step 7"))) == P{ErrorKind::BlowUp, "NaN at step 7"});
  CHECK(classify_error(thrown(io::OutputError("out: cannot write"))) == P{ErrorKind::Output, "out: cannot write"});
  CHECK(classify_error(thrown(io::InputError("deck.toml:3: bad"))) == P{ErrorKind::Input, "deck.toml:3: bad"});
  CHECK(classify_error(thrown(std::runtime_error("MPI_Bcast failed"))) == P{ErrorKind::Input, "MPI_Bcast failed"});
  CHECK(classify_error(thrown(42)) == P{ErrorKind::Input, "unknown error"});
}

TEST_CASE("ranks: the agreed error keeps its class; a rank other than 0 is named", "[ranks]") {
  using P = std::pair<std::string, std::string>;
  CHECK(agreed(ErrorKind::BlowUp, 0, "NaN") == P{"BlowUp", "NaN"});
  CHECK(agreed(ErrorKind::Output, 0, "out") == P{"OutputError", "out"});
  CHECK(agreed(ErrorKind::Input, 0, "deck") == P{"InputError", "deck"});
  CHECK(agreed(ErrorKind::BlowUp, 3, "NaN") == P{"BlowUp", "rank 3: NaN"});
  CHECK(agreed(ErrorKind::Output, 1, "out") == P{"OutputError", "rank 1: out"});
  CHECK(agreed(ErrorKind::Input, 2, "") == P{"InputError", "rank 2: "});
  // A kind the app does not know is an input error.
  CHECK(agreed(ErrorKind(17), 0, "x") == P{"InputError", "x"});
}
