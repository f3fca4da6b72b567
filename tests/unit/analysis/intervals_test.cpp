#include "gtv/analysis/intervals.h"

#include <gtest/gtest.h>

namespace gtv::analysis {

TEST(Intervals, MergesOverlappingTouchingAndDropsEmpty) {
  const std::vector<Interval> m = merged({{10, 20}, {0, 5}, {5, 8}, {15, 30}, {40, 40}, {50, 60}, {55, 58}});
  EXPECT_EQ(m, (std::vector<Interval>{{0, 8}, {10, 30}, {50, 60}}));
  EXPECT_EQ(total_length_ns(m), 8 + 20 + 10);
}

TEST(Intervals, EmptyInputGivesEmptyUnion) {
  EXPECT_TRUE(merged({}).empty());
  EXPECT_EQ(total_length_ns({}), 0);
  EXPECT_EQ(utilization({}, 0, 0), 0.0);
}

TEST(Intervals, UnionOfTwoMergedLists) {
  const std::vector<Interval> a{{0, 10}, {20, 30}};
  const std::vector<Interval> b{{5, 12}, {30, 35}, {40, 45}};
  EXPECT_EQ(union_of(a, b), (std::vector<Interval>{{0, 12}, {20, 35}, {40, 45}}));
  EXPECT_EQ(union_of(a, {}), a);
}

TEST(Intervals, IntersectionOfTwoMergedLists) {
  const std::vector<Interval> a = {{0, 10}, {20, 30}, {40, 50}};
  const std::vector<Interval> b = {{5, 25}, {29, 41}, {60, 70}};
  EXPECT_EQ(intersection_length_ns(a, b), 5 + 5 + 1 + 1);  // [5,10) [20,25) [29,30) [40,41)
  EXPECT_EQ(intersection_length_ns(b, a), 12);
  EXPECT_EQ(intersection_length_ns(a, {}), 0);
  const std::vector<Interval> before = {{0, 10}}, after = {{10, 20}};
  EXPECT_EQ(intersection_length_ns(before, after), 0);  // touching is not overlapping
}

TEST(Intervals, LengthWithinWindowClipsBothEnds) {
  const std::vector<Interval> m{{0, 10}, {20, 30}, {40, 50}};
  EXPECT_EQ(length_within_ns(m, 5, 45), 5 + 10 + 5);
  EXPECT_EQ(length_within_ns(m, 10, 20), 0);
  EXPECT_EQ(length_within_ns(m, 100, 200), 0);
  EXPECT_DOUBLE_EQ(utilization(m, 0, 60), 30.0 / 60.0);
  EXPECT_DOUBLE_EQ(utilization(m, 25, 25), 0.0);  // empty window: no division by zero
}

TEST(Intervals, IntersectionAndDifferenceAsLists) {
  const std::vector<Interval> a{{0, 10}, {20, 30}, {40, 50}};
  const std::vector<Interval> b{{5, 25}, {45, 60}};
  EXPECT_EQ(intersection_of(a, b), (std::vector<Interval>{{5, 10}, {20, 25}, {45, 50}}));
  EXPECT_EQ(difference_of(a, b), (std::vector<Interval>{{0, 5}, {25, 30}, {40, 45}}));
  EXPECT_EQ(total_length_ns(intersection_of(a, b)), intersection_length_ns(a, b));
  EXPECT_EQ(difference_of(a, std::span<const Interval>{}), a);
  const std::vector<Interval> all{{0, 100}};
  EXPECT_TRUE(difference_of(b, all).empty());
  const std::vector<Interval> holes{{10, 20}, {30, 40}};
  EXPECT_EQ(difference_of(all, holes), (std::vector<Interval>{{0, 10}, {20, 30}, {40, 100}}));
}

}  // namespace gtv::analysis
