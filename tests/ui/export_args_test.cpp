#include <gtest/gtest.h>

#include "gtv/ui/export.h"

namespace gtv::ui {
namespace {

TEST(ExportArgs, TimesWithUnits) {
  EXPECT_EQ(*parse_time("12.5ms"), 12'500'000);
  EXPECT_EQ(*parse_time("300us"), 300'000);
  EXPECT_EQ(*parse_time("2s"), 2'000'000'000);
  EXPECT_EQ(*parse_time("1500ns"), 1'500);
  EXPECT_EQ(*parse_time("3"), 3'000'000);  // bare numbers are ms
  EXPECT_FALSE(parse_time("3h").ok());
  EXPECT_FALSE(parse_time("abc").ok());
}

TEST(ExportArgs, Ranges) {
  EXPECT_EQ(*parse_time_range("1ms:2.5ms"), (TimeWindow{1'000'000, 2'500'000}));
  EXPECT_FALSE(parse_time_range("2:1").ok());
  EXPECT_FALSE(parse_time_range("5").ok());
  EXPECT_EQ(parse_time_range("2:1").error().message, "range '2:1': the end must be after the start");
}

TEST(ExportArgs, Sizes) {
  EXPECT_EQ(*parse_size("1920x1080"), (std::pair{1920, 1080}));
  EXPECT_FALSE(parse_size("1920").ok());
  EXPECT_FALSE(parse_size("1920x").ok());
  EXPECT_FALSE(parse_size("8x8").ok());
}

}  // namespace
}  // namespace gtv::ui
