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
using shwa::io::HostArray;
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
  c.arrays["h"] = HostArray<double>{1, 2, 3, 4, 5, std::nan("")};
  c.arrays["c"] = HostArray<float>{0.5f, 1e-40f, -0.0f, 4, 5, 6};
  c.arrays["none"] = HostArray<double>{};
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
  CHECK(c.floats("c") == std::get<HostArray<float>>(sample().arrays["c"]));
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

TEST_CASE("checkpoint: a version 1 file (raw arrays, its CRC over the whole) is read", "[io][checkpoint]") {
  // Written by shwa before compressed arrays (the sample above).
  const Checkpoint c = read_checkpoint(shwa::io::test::data_file("checkpoint_v1.shck"));
  CHECK(c.step == sample().step);
  CHECK(c.time == 1.0 / 3);
  CHECK(c.metadata == sample().metadata);
  CHECK(c.floats("c") == std::get<HostArray<float>>(sample().arrays["c"]));
  CHECK(std::isnan(c.doubles("h")[5]));
  TempDir dir;
  std::string bad = slurp(shwa::io::test::data_file("checkpoint_v1.shck"));
  bad[25] = static_cast<char>(bad[25] ^ 4);  // nx
  spit(dir / "b.shck", bad);
  CHECK(error(dir / "b.shck") == dir / "b.shck" + ": corrupted checkpoint: checksum mismatch");
}

TEST_CASE("checkpoint: compressed arrays read back bit for bit; a forged block is refused", "[io][checkpoint]") {
  TempDir dir;
  Checkpoint c = sample();
  // 1.5 Mi doubles (12 MiB: 12 blocks) of land (zeros) and water, and 0.3 Mi floats (2 blocks,
  // the last short); a NaN and a signed zero among them.
  HostArray<double> h(1536 * 1024);
  for (std::size_t k = 0; k < h.size(); ++k) h[k] = k % 1000 < 600 ? 0.0 : 1.0 / double(k + 1);
  h[7] = std::nan("");
  h[8] = -0.0;
  HostArray<float> hc(300 * 1024);
  for (std::size_t k = 0; k < hc.size(); ++k) hc[k] = float(k % 17) * 0.25f;
  c.arrays["h"] = h;
  c.arrays["hc"] = hc;
  write_checkpoint(dir / "raw.shck", c);
  write_checkpoint(dir / "z1.shck", c, {true, {1, nullptr}});
  write_checkpoint(dir / "z3.shck", c, {true, {3, nullptr}});
  const std::string z = slurp(dir / "z1.shck");
  CHECK(z == slurp(dir / "z3.shck"));  // the threads change nothing
  CHECK(z.size() < slurp(dir / "raw.shck").size() / 2);
  for (const char* name : {"raw.shck", "z1.shck"}) {
    INFO(name);
    for (const int workers : {1, 4}) {
      const Checkpoint back = read_checkpoint(dir / name, {workers, nullptr});
      CHECK(back.step == c.step);
      CHECK(back.metadata == c.metadata);
      const auto& bh = back.doubles("h");
      REQUIRE(bh.size() == h.size());
      CHECK(std::memcmp(bh.data(), h.data(), h.size() * sizeof(double)) == 0);
      CHECK(back.floats("hc") == hc);
      CHECK(back.floats("c") == std::get<HostArray<float>>(sample().arrays["c"]));
      CHECK(back.doubles("none").empty());
    }
  }
  // Flipped bytes: each of the file's first 256 (its header, the first array's header and block
  // sizes) and of the 64 from "hc"'s header on, every 4099th (a prime: each falls at another
  // place in its block) and the checksum's: the checksum (or the header it guards) finds each.
  std::vector<std::size_t> flips;
  const std::size_t hc_header = z.find(std::string("\x02\x00\x00\x00hc", 6));
  REQUIRE(hc_header != std::string::npos);
  for (std::size_t k = 0; k < z.size(); ++k)
    if (k < 256 || (k >= hc_header && k < hc_header + 64) || k % 4099 == 0 || k + 4 >= z.size()) flips.push_back(k);
  for (const std::size_t k : flips) {
    std::string bad = z;
    bad[k] = static_cast<char>(bad[k] ^ 0x20);
    spit(dir / "b.shck", bad);
    INFO("byte " << k);
    CHECK(error(dir / "b.shck") != "no error");
  }
  // A block forged with its checksum made good: its compressed size one short, so that the
  // blocks no longer inflate to the array, is refused naming the array.
  const auto forged = [&](std::string bytes) {
    const std::uint32_t crc = shwa::io::crc32(bytes.data() + 20, bytes.size() - 24);
    std::memcpy(bytes.data() + bytes.size() - 4, &crc, 4);
    spit(dir / "f.shck", bytes);
    return error(dir / "f.shck");
  };
  // The "hc" array: its name, width 4, count, encoding 1, then the block count and sizes.
  const std::size_t at = z.find(std::string("\x02\x00\x00\x00hc", 6));
  REQUIRE(at != std::string::npos);
  const std::size_t sizes = at + 6 + 1 + 8 + 1 + 8;
  std::string bad = z;
  std::uint64_t first = 0;
  std::memcpy(&first, bad.data() + sizes, 8);
  --first;
  std::memcpy(bad.data() + sizes, &first, 8);
  CHECK_THAT(forged(bad), Catch::Contains("array \"hc\""));
  // A count no block could hold is refused before anything is allocated.
  bad = z;
  const std::uint64_t huge = std::uint64_t(1) << 60;
  std::memcpy(bad.data() + at + 6 + 1, &huge, 8);
  CHECK_THAT(forged(bad), Catch::EndsWith("corrupted checkpoint: array \"hc\" has a bad header"));
}
