// When a run writes: the multiples of its intervals (DecimalMultiples) and the checkpoints,
// gauge samples and frames that OutputSchedule takes at them (app/time_loop.hpp).
#include "config.hpp"
#include "time_loop.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using shwa::app::DecimalMultiples;
using shwa::app::OutputSchedule;
using shwa::app::RunConfig;

TEST_CASE("schedule: a decimal interval's multiples are the decimals", "[app][schedule]") {
  const DecimalMultiples tenth(0.1);
  CHECK(tenth(3) == 0.3);  // 3 x 0.1 is 0.30000000000000004
  CHECK(tenth(7) == 0.7);
  CHECK(3 * 0.1 != 0.3);
  for (long long k = 0; k <= 100000; ++k) REQUIRE(tenth(k) == double(k) / 10);
  CHECK(DecimalMultiples(0.0025)(35) == 0.0875);
  CHECK(DecimalMultiples(30.0)(7) == 210.0);
  // Not a decimal of at most 7 digits: k x interval.
  const double third = 1.0 / 3;
  CHECK(DecimalMultiples(third)(3) == 3 * third);
  // Beyond 2^53 / a the decimal form is not exact: k x interval there, still increasing.
  const DecimalMultiples big(0.1234567);
  const long long edge = (1LL << 53) / 1234567;
  CHECK(big(edge) == double(edge * 1234567) / 1e7);
  CHECK(big(edge + 1) == double(edge + 1) * 0.1234567);
  CHECK(big(edge + 1) > big(edge));
}

TEST_CASE("schedule: the first multiple after a time", "[app][schedule]") {
  const DecimalMultiples tenth(0.1);
  CHECK(tenth.first_after(0) == 1);
  CHECK(tenth.first_after(0.3) == 4);  // 0.3 is the third multiple, not before it
  CHECK(tenth.first_after(std::nextafter(0.3, 0.0)) == 3);
  CHECK(tenth.first_after(0.30000000000000004) == 4);
  CHECK(tenth.next_after(0.2) == 0.3);
  CHECK(tenth.next_after(0.25) == 0.3);
  // A time of 1e15 intervals or more: (floor(t / interval) + 1) x interval.
  const DecimalMultiples tiny(1e-9);
  CHECK(tiny.next_after(1e7) == (std::floor(1e7 / 1e-9) + 1) * 1e-9);
}

TEST_CASE("schedule: a checkpoint interval of 0.1 takes the steps that end at 0.1, 0.2, 0.3 ...",
          "[app][schedule]") {
  RunConfig cfg;
  cfg.checkpoint_interval = 0.1;
  cfg.out.times = {0.0, 0.1, 0.2, 0.3, 0.4};
  OutputSchedule s(cfg, 0.0);
  for (int k = 1; k <= 4; ++k) {
    const double t = s.next_output();
    REQUIRE(t == double(k) / 10);
    CHECK_FALSE(s.checkpoint_due(std::nextafter(t, 0.0)));
    CHECK(s.checkpoint_due(t));  // the step that lands on the output time reaches the multiple
    s.checkpoint_written(t);
    s.output_written();
  }
  // Resumed at 0.3 (its checkpoint's time), the next is due at 0.4, as without the restart.
  OutputSchedule resumed(cfg, 0.3);
  CHECK_FALSE(resumed.checkpoint_due(0.3));
  CHECK(resumed.checkpoint_due(0.4));
}
