#include "gtv/analysis/intervals.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>

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

// Measurements over launches: [0, 2) covers [0, 10) and [5, 12) (union 12, first start 0, last end 12); [1, 4)
// covers [5, 12), [20, 20) (empty, but its end counts) and [30, 35); [3, 3) covers nothing.
TEST(Intervals, CoverOfRangesByHand) {
  const std::vector<Interval> items{{0, 10}, {5, 12}, {20, 20}, {30, 35}};
  const std::vector<IndexRange> ranges{{0, 2}, {1, 4}, {3, 3}, {0, 4}};
  const std::vector<RangeCover> c = cover_of_ranges(items, ranges);
  ASSERT_EQ(c.size(), 4U);
  EXPECT_EQ(c[0].union_ns, 12);
  EXPECT_EQ(c[0].first_start_ns, 0);
  EXPECT_EQ(c[0].last_end_ns, 12);
  EXPECT_EQ(c[1].union_ns, 7 + 5);
  EXPECT_EQ(c[1].first_start_ns, 5);
  EXPECT_EQ(c[1].last_end_ns, 35);
  EXPECT_EQ(c[2].union_ns, 0);
  EXPECT_EQ(c[3].union_ns, 12 + 5);
}

// Against merging each range's items, on overlapping, nested, touching and empty intervals and ranges of every
// length, given in no particular order.
TEST(Intervals, CoverOfRangesAgreesWithMergingEachRange) {
  std::uint64_t state = 12345;
  const auto next = [&](std::uint64_t bound) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (state >> 33) % bound;
  };
  for (int round = 0; round < 20; ++round) {
    std::vector<Interval> items;
    const std::size_t n = 1 + next(60);
    for (std::size_t i = 0; i < n; ++i) {
      const auto start = TimeNs(next(200)) - 50;
      items.push_back({start, start + TimeNs(next(5) == 0 ? 0 : next(40))});
    }
    std::vector<IndexRange> ranges;
    for (int r = 0; r < 80; ++r) {
      const std::size_t a = next(n + 1), b = next(n + 1);
      ranges.push_back({std::min(a, b), std::max(a, b)});
    }
    const std::vector<RangeCover> got = cover_of_ranges(items, ranges);
    for (std::size_t r = 0; r < ranges.size(); ++r) {
      const std::vector<Interval> part(items.begin() + std::ptrdiff_t(ranges[r].first),
                                       items.begin() + std::ptrdiff_t(ranges[r].last));
      EXPECT_EQ(got[r].union_ns, total_length_ns(merged(part))) << "round " << round << " range " << r;
      if (part.empty()) continue;
      TimeNs first = part[0].start_ns, last = part[0].end_ns;
      for (const Interval& iv : part) {
        first = std::min(first, iv.start_ns);
        last = std::max(last, iv.end_ns);
      }
      EXPECT_EQ(got[r].first_start_ns, first) << "round " << round << " range " << r;
      EXPECT_EQ(got[r].last_end_ns, last) << "round " << round << " range " << r;
    }
  }
}

}  // namespace gtv::analysis
