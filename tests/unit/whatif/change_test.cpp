// Parsing changes and refusing conflicting ones.
#include "gtv/whatif/change.h"

#include <gtest/gtest.h>

namespace gtv::whatif {
namespace {

TEST(WhatifChange, ParsesEveryChangeAndWritesItBack) {
  for (const char* text : {"streams", "pinned", "graphs", "no-launch-blocking", "processes",
                           "no-sync=cudaDeviceSynchronize", "placement=0,1,0"}) {
    Expected<Change> c = parse_change(text);
    ASSERT_TRUE(c.ok()) << text;
    EXPECT_EQ(c->text(), text);
  }
  EXPECT_EQ(parse_change("placement=0,1,0")->placement, (std::vector<int>{0, 1, 0}));
  EXPECT_EQ(parse_change("no-sync=cudaStreamSynchronize")->name, "cudaStreamSynchronize");
}

TEST(WhatifChange, RefusesBadTextWithOneLine) {
  EXPECT_NE(parse_change("stream").error().message.find("unknown change 'stream'"), std::string::npos);
  EXPECT_FALSE(parse_change("placement=").ok());
  EXPECT_FALSE(parse_change("placement=0,,1").ok());
  EXPECT_FALSE(parse_change("placement=0,1,").ok());
  EXPECT_FALSE(parse_change("placement=a").ok());
  EXPECT_FALSE(parse_change("no-sync=").ok());
}

TEST(WhatifChange, TheSameChangeTwiceOrTwoPlacementsConflict) {
  const std::vector<Change> twice = {*parse_change("streams"), *parse_change("streams")};
  EXPECT_NE(check_compatible(twice).error().message.find("given twice"), std::string::npos);
  const std::vector<Change> placements = {*parse_change("placement=0,1"), *parse_change("placement=1,0")};
  EXPECT_NE(check_compatible(placements).error().message.find("conflict"), std::string::npos);
  const std::vector<Change> fine = {*parse_change("streams"), *parse_change("pinned"), *parse_change("no-sync=a"),
                                    *parse_change("no-sync=b")};
  EXPECT_TRUE(check_compatible(fine).ok());
}

}  // namespace
}  // namespace gtv::whatif
