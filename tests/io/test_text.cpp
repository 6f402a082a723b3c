#include "io/text.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <random>

#include "io/atomic_file.hpp"
#include "io/error.hpp"
#include "io_test_util.hpp"

using shwa::io::AtomicFile;
using shwa::io::format_double;
using shwa::io::parse_double;
using shwa::io::parse_int;
using shwa::io::test::slurp;
using shwa::io::test::spit;
using shwa::io::test::TempDir;

TEST_CASE("text: numbers must be whole", "[io][text]") {
  CHECK(parse_double("12") == 12.0);
  CHECK(parse_double("+1.5e3") == 1500.0);
  CHECK(parse_double("-.5") == -0.5);
  CHECK(std::isnan(*parse_double("nan")));
  CHECK(std::isinf(*parse_double("-inf")));
  for (const char* bad : {"12O", "", " 1", "1 ", "1,5", "0x10", "+", "++1", "1e", "1e999", "e5"}) {
    INFO(bad);
    CHECK_FALSE(parse_double(bad));
  }
  CHECK(parse_int("-42") == -42);
  CHECK(parse_int("+7") == 7);
  for (const char* bad : {"1.0", "12O", "", "99999999999999999999", "1e3"}) {
    INFO(bad);
    CHECK_FALSE(parse_int(bad));
  }
}

TEST_CASE("text: formatted doubles read back exactly", "[io][text]") {
  CHECK(format_double(0.1) == "0.1");
  CHECK(format_double(-0.0) == "-0");
  CHECK(format_double(1e21) == "1e+21");
  CHECK(format_double(1e-4) == "0.0001");
  CHECK(format_double(100000) == "100000");
  CHECK(format_double(1.0 / 3) == "0.3333333333333333");
  CHECK(format_double(1e-300) == "1e-300");
  CHECK(format_double(-2.5e15) == "-2.5e+15");
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<std::uint64_t> bits;
  for (int k = 0; k < 10000; ++k) {
    std::uint64_t b = bits(rng);
    double x = 0;
    std::memcpy(&x, &b, sizeof x);
    if (!std::isfinite(x)) continue;
    const auto back = parse_double(format_double(x));
    REQUIRE(back);
    CHECK(std::memcmp(&*back, &x, sizeof x) == 0);
  }
}

TEST_CASE("text: suggestions", "[io][text]") {
  CHECK(shwa::io::edit_distance("kitten", "sitting") == 3);
  CHECK(shwa::io::edit_distance("", "abc") == 3);
  CHECK(shwa::io::closest_match("cfll", {"cfl", "dx"}) == "cfl");
  CHECK(shwa::io::closest_match("nxx", {"nx", "ny"}) == "nx");
  CHECK(shwa::io::closest_match("dxx", {"dx", "dy"}) == "dx");
  CHECK(shwa::io::closest_match("dz", {"dx"}) == "");  // too short a word to guess
  CHECK(shwa::io::quote("a\"b\\\n\x01") == "\"a\\\"b\\\\\\n\\x01\"");
}

TEST_CASE("atomic file: the target changes only on commit", "[io][text]") {
  TempDir dir;
  const std::string path = dir / "f.txt";
  spit(path, "old");
  {
    AtomicFile f(path);
    f.write("new contents");
    CHECK(slurp(path) == "old");
    CHECK(dir.files().size() == 2);  // the target and the temporary file
  }
  CHECK(slurp(path) == "old");  // not committed: the temporary file is gone, the target intact
  CHECK(dir.files() == std::vector<std::string>{"f.txt"});
  shwa::io::write_file_atomically(path, "new", true);
  CHECK(slurp(path) == "new");
  CHECK(dir.files() == std::vector<std::string>{"f.txt"});
  spit(dir / "plain", "");
  CHECK_THROWS_MATCHES(AtomicFile(dir / "plain/f.txt"), shwa::io::OutputError,
                       Catch::Message(dir / "plain/f.txt" + ": cannot write: Not a directory"));
}
