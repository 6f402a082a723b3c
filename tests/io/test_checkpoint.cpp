#include "io/checkpoint.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include <zlib.h>

#include "io/error.hpp"
#include "io_test_util.hpp"

using shwa::io::Checkpoint;
using shwa::io::InputError;
using shwa::io::read_checkpoint;
using shwa::io::write_checkpoint;
using shwa::io::test::slurp;
using shwa::io::test::spit;
using shwa::io::test::TempDir;

namespace {

Checkpoint sample() {
  Checkpoint c;
  c.precision = 4;
  c.nx = 3;
  c.ny = 2;
  c.time = 1.0 / 3;
  c.step = 1234567890123;
  c.metadata = {{"deck", "estuary.toml"}, {"version", "0.1.0"}, {"empty", ""}};
  c.arrays["h"] = std::vector<double>{1, 2, 3, 4, 5, std::nan("")};
  c.arrays["c"] = std::vector<float>{0.5f, 1e-40f, -0.0f, 4, 5, 6};
  c.arrays["none"] = std::vector<double>{};
  return c;
}

std::string error(const std::string& path) {
  try {
    read_checkpoint(path);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("checkpoint: round trip", "[io][checkpoint]") {
  TempDir dir;
  write_checkpoint(dir / "a.ckpt", sample());
  CHECK(dir.files() == std::vector<std::string>{"a.ckpt"});
  const Checkpoint c = read_checkpoint(dir / "a.ckpt");
  CHECK(c.precision == 4);
  CHECK(c.nx == 3);
  CHECK(c.ny == 2);
  CHECK(c.time == 1.0 / 3);
  CHECK(c.step == 1234567890123);
  CHECK(c.metadata == sample().metadata);
  const auto& h = c.doubles("h");
  REQUIRE(h.size() == 6);
  CHECK(std::vector<double>(h.begin(), h.end() - 1) == std::vector<double>{1, 2, 3, 4, 5});
  CHECK(std::isnan(h[5]));
  CHECK(c.floats("c") == std::get<std::vector<float>>(sample().arrays["c"]));
  CHECK(std::signbit(c.floats("c")[2]));
  CHECK(c.doubles("none").empty());
  CHECK_THROWS_WITH(c.doubles("q"), "checkpoint has no array \"q\"");
  CHECK_THROWS_WITH(c.doubles("c"), "checkpoint array \"c\" is not of doubles");
  // Writing again replaces the file whole.
  Checkpoint d = sample();
  d.step = 7;
  write_checkpoint(dir / "a.ckpt", d);
  CHECK(read_checkpoint(dir / "a.ckpt").step == 7);
  CHECK(dir.files() == std::vector<std::string>{"a.ckpt"});
}

TEST_CASE("checkpoint: any flipped byte is detected", "[io][checkpoint]") {
  TempDir dir;
  write_checkpoint(dir / "a.ckpt", sample());
  const std::string good = slurp(dir / "a.ckpt");
  for (std::size_t k = 0; k < good.size(); ++k) {
    std::string bad = good;
    bad[k] = static_cast<char>(bad[k] ^ 0x10);
    spit(dir / "b.ckpt", bad);
    INFO("byte " << k);
    const std::string e = error(dir / "b.ckpt");
    CHECK_THAT(e, Catch::StartsWith(dir / "b.ckpt" + ": "));
    CHECK_THAT(e, Catch::Contains("checksum mismatch") || Catch::Contains("not a shwa checkpoint") ||
                      Catch::Contains("checkpoint format version") || Catch::Contains("corrupted checkpoint:") ||
                      Catch::Contains("truncated checkpoint"));
  }
  std::string bad = good;
  bad[good.size() / 2] = static_cast<char>(bad[good.size() / 2] ^ 1);
  spit(dir / "b.ckpt", bad);
  CHECK(error(dir / "b.ckpt") == dir / "b.ckpt" + ": corrupted checkpoint: checksum mismatch");
}

TEST_CASE("checkpoint: a truncated or foreign file is refused", "[io][checkpoint]") {
  TempDir dir;
  write_checkpoint(dir / "a.ckpt", sample());
  const std::string good = slurp(dir / "a.ckpt");
  for (const std::size_t keep : {good.size() - 1, good.size() / 2, std::size_t{21}}) {
    spit(dir / "t.ckpt", good.substr(0, keep));
    CHECK(error(dir / "t.ckpt") == dir / "t.ckpt" + ": truncated checkpoint: " + std::to_string(keep) +
                                       " bytes, expected " + std::to_string(good.size()));
  }
  spit(dir / "t.ckpt", good.substr(0, 5));
  CHECK(error(dir / "t.ckpt") == dir / "t.ckpt" + ": not a shwa checkpoint (too short)");
  spit(dir / "t.ckpt", good + "x");
  CHECK(error(dir / "t.ckpt") == dir / "t.ckpt" + ": corrupted checkpoint: " + std::to_string(good.size() + 1) +
                                     " bytes, expected " + std::to_string(good.size()));
  spit(dir / "t.ckpt", "ncols 3\nnrows 2\nxllcorner 0\n");
  CHECK(error(dir / "t.ckpt") == dir / "t.ckpt" + ": not a shwa checkpoint (bad magic)");
  CHECK(error(dir / "none.ckpt") == dir / "none.ckpt" + ": cannot read: No such file or directory");
  CHECK_THROWS_AS(write_checkpoint(dir / "missing/a.ckpt", sample()), shwa::io::OutputError);
}

TEST_CASE("checkpoint: the checksum is zlib's CRC-32", "[io][checkpoint]") {
  using shwa::io::crc32;
  CHECK(crc32("", 0) == 0u);
  CHECK(crc32("123456789", 9) == 0xCBF43926u);  // the CRC-32/ISO-HDLC check value
  CHECK(crc32("The quick brown fox jumps over the lazy dog", 43) == 0x414FA339u);
  // Every length around the 8-byte steps, split anywhere, gives the CRC of the whole.
  std::mt19937 rng(12345);
  std::vector<unsigned char> bytes(100003);
  for (auto& b : bytes) b = static_cast<unsigned char>(rng() & 0xFFu);
  for (const std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{8}, std::size_t{9}, std::size_t{17},
                              std::size_t{4096}, bytes.size()}) {
    INFO("length " << n);
    const std::uint32_t whole = crc32(bytes.data(), n);
    for (const std::size_t cut : {std::size_t{0}, std::size_t{1}, n / 3, n})
      CHECK(crc32(bytes.data() + cut, n - cut, crc32(bytes.data(), cut)) == whole);
    CHECK(whole == static_cast<std::uint32_t>(::crc32(0L, bytes.data(), static_cast<uInt>(n))));
  }
}
