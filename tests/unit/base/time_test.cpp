#include "gtv/base/time.h"

#include <gtest/gtest.h>

namespace gtv {

TEST(Time, FormatsDurationWithAdaptiveUnits) {
  EXPECT_EQ(format_duration(812), "812 ns");
  EXPECT_EQ(format_duration(3'400), "3.40 us");
  EXPECT_EQ(format_duration(71'712'345), "71.7 ms");
  EXPECT_EQ(format_duration(2'450'000'000), "2.45 s");
  EXPECT_EQ(format_duration(-5'000'000), "-5.00 ms");
}

TEST(Time, FormatsExactDurations) {
  EXPECT_EQ(format_duration_exact(71'712'345), "71.712345 ms");
  EXPECT_EQ(format_duration_exact(1'500), "1.500 us");
  EXPECT_EQ(format_duration_exact(999), "999 ns");
}

TEST(Time, UnixNowIsAfter2020) { EXPECT_GT(unix_now_ns(), 1'577'836'800LL * kNsPerS); }

}  // namespace gtv
