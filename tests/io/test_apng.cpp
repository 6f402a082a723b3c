// The animated PNG writer (io/apng.hpp), read back by the tests' own APNG reader
// (apng_reader.hpp: chunk order, CRCs, sequence numbers) and by libpng (the frames' pixels).
#include "io/apng.hpp"

#include <catch2/catch.hpp>

#include "apng_reader.hpp"
#include "io/error.hpp"
#include "io/png.hpp"
#include "io_test_util.hpp"
#include "png_decode.hpp"

using shwa::io::FieldRef;
using shwa::io::PngStyle;
using shwa::io::test::decode_png;
using shwa::io::test::Image;
using shwa::io::test::slurp;
using shwa::io::test::spit;
using shwa::io::test::TempDir;
using namespace apng_test;

namespace {

// A frame: an nx x ny field whose values depend on k, some cells NaN (transparent), with a legend.
void write_frame(const std::string& path, int nx, int ny, int k) {
  std::vector<double> v(std::size_t(nx) * std::size_t(ny));
  for (std::size_t c = 0; c < v.size(); ++c) v[c] = (c + std::size_t(k) * 7) % 5 == 0 ? NAN : double((c * 3 + std::size_t(k)) % 11);
  PngStyle style;
  style.vmax = 10;
  style.legend = true;
  style.legend_text.title = "depth (m)";
  style.legend_text.stamp = shwa::io::legend_time(600.0 * k);
  style.legend_text.stamp_room = 24;
  style.legend_text.cell_size = 50;
  shwa::io::write_png(path, nx, ny, FieldRef("h", v.data()), style);
}

}  // namespace

TEST_CASE("apng: the frames' image data in order, with consecutive sequence numbers and right CRCs", "[io][apng]") {
  TempDir dir;
  std::vector<std::string> frames;
  for (int k = 0; k < 4; ++k) {
    frames.push_back(dir / ("depth_000" + std::to_string(k) + ".png"));
    write_frame(frames.back(), 90, 40, k);
  }
  shwa::io::write_apng(dir / "anim.png", frames, {250, 1500});
  CHECK(dir.files() == std::vector<std::string>{"anim.png", "depth_0000.png", "depth_0001.png", "depth_0002.png",
                                                "depth_0003.png"});
  const Apng a = read_apng(as_bytes(slurp(dir / "anim.png")));
  INFO(Catch::Detail::stringify(a.problems));
  CHECK(a.problems.empty());
  CHECK(a.declared_frames == 4);
  CHECK(a.plays == 0);
  REQUIRE(a.frames.size() == 4);
  const Bytes first = as_bytes(slurp(frames[0]));
  // The canvas is the frames' size and format: the first frame's IHDR.
  CHECK(a.ihdr == png_chunks(first).at(0).second);
  for (std::size_t k = 0; k < 4; ++k) {
    INFO("frame " << k);
    const ApngFrame& f = a.frames[k];
    const Bytes png = as_bytes(slurp(frames[k]));
    CHECK(f.width == a.width);
    CHECK(f.height == a.height);
    CHECK(f.x == 0);
    CHECK(f.y == 0);
    CHECK(f.dispose == 0);
    CHECK(f.blend == 0);  // SOURCE: a frame's transparent pixels replace the one before's
    CHECK(f.delay_den == 1000);
    CHECK(f.delay_num == (k == 3 ? 1500u : 250u));
    // The frame's image data: the PNG frame's, compressed stream and pixels alike.
    bool ok_a = false, ok_b = false;
    const Bytes ours = inflate_all(f.data, ok_a), theirs = inflate_all(png_image_data(png), ok_b);
    CHECK(ok_a);
    CHECK(ok_b);
    CHECK(ours.size() == std::size_t(a.height) * (1 + std::size_t(a.width) * 4));
    CHECK(ours == theirs);
    const Image p = decode_png(frame_as_png(a, f)), q = decode_png(png);
    CHECK(p.rgba == q.rgba);
  }
  // The frames differ: the animation is not one frame repeated.
  CHECK(a.frames[0].data != a.frames[1].data);
  // Any PNG reader shows the first frame.
  CHECK(decode_png(as_bytes(slurp(dir / "anim.png"))).rgba == decode_png(as_bytes(slurp(frames[0]))).rgba);
  // The reader finds what a damaged file breaks.
  Bytes bad = as_bytes(slurp(dir / "anim.png"));
  bad[bad.size() / 2] ^= 0x10;
  CHECK_FALSE(read_apng(bad).problems.empty());
}

TEST_CASE("apng: frames of other sizes go onto a canvas of the largest, at its top-left corner", "[io][apng]") {
  TempDir dir;
  const std::vector<std::string> frames = {dir / "a.png", dir / "b.png", dir / "c.png"};
  write_frame(frames[0], 200, 30, 0);
  write_frame(frames[1], 240, 20, 1);  // wider, lower
  write_frame(frames[2], 200, 50, 2);  // higher
  shwa::io::write_apng(dir / "anim.png", frames);
  const Apng a = read_apng(as_bytes(slurp(dir / "anim.png")));
  INFO(Catch::Detail::stringify(a.problems));
  CHECK(a.problems.empty());
  REQUIRE(a.frames.size() == 3);
  std::vector<Image> in;
  for (const std::string& f : frames) in.push_back(decode_png(as_bytes(slurp(f))));
  CHECK(a.width == std::max({in[0].width, in[1].width, in[2].width}));
  CHECK(a.height == std::max({in[0].height, in[1].height, in[2].height}));
  for (std::size_t k = 0; k < 3; ++k) {
    INFO("frame " << k);
    CHECK(a.frames[k].width == a.width);
    CHECK(a.frames[k].height == a.height);
    const Image p = decode_png(frame_as_png(a, a.frames[k]));
    REQUIRE(p.width == a.width);
    long wrong = 0;
    for (unsigned y = 0; y < p.height; ++y)
      for (unsigned x = 0; x < p.width; ++x)
        for (unsigned c = 0; c < 4; ++c) {
          const std::uint8_t got = p.rgba[(std::size_t(y) * p.width + x) * 4 + c];
          const std::uint8_t want = x < in[k].width && y < in[k].height
                                        ? in[k].rgba[(std::size_t(y) * in[k].width + x) * 4 + c]
                                        : std::uint8_t(0);
          wrong += got != want;
        }
    CHECK(wrong == 0);
  }
}

TEST_CASE("apng: a frame that is not a whole PNG is refused, naming it, and nothing is written", "[io][apng]") {
  TempDir dir;
  const std::vector<std::string> frames = {dir / "f0.png", dir / "f1.png"};
  write_frame(frames[0], 30, 10, 0);
  write_frame(frames[1], 30, 10, 1);
  const std::string good = slurp(frames[1]);
  struct Case {
    std::string bytes, expect;
  };
  std::string flipped = good;
  flipped[flipped.size() / 2] = char(flipped[flipped.size() / 2] ^ 0x01);
  for (const Case& c : {Case{good.substr(0, good.size() / 2), "cut short"}, Case{flipped, "CRC mismatch"},
                        Case{"GIF89a", "not a PNG file"}}) {
    INFO(c.expect);
    spit(frames[1], c.bytes);
    try {
      shwa::io::write_apng(dir / "anim.png", frames);
      FAIL("accepted");
    } catch (const shwa::io::OutputError& e) {
      CHECK_THAT(e.what(), Catch::StartsWith(frames[1] + ": cannot make an animation of it: "));
      CHECK_THAT(e.what(), Catch::Contains(c.expect));
    }
    CHECK(dir.files() == std::vector<std::string>{"f0.png", "f1.png"});
  }
  CHECK_THROWS_AS(shwa::io::write_apng(dir / "anim.png", {}), std::invalid_argument);
}
