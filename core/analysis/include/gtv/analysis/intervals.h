#pragma once
// Interval arithmetic on half-open [start_ns, end_ns) spans: the building block of busy time, overlap and
// concurrency. Everything is a sorted sweep, so a million intervals cost one sort at most.
#include <cstddef>
#include <span>
#include <vector>

#include "gtv/base/time.h"

namespace gtv::analysis {

struct Interval {
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  [[nodiscard]] TimeNs length_ns() const { return end_ns > start_ns ? end_ns - start_ns : 0; }
  friend bool operator==(const Interval&, const Interval&) = default;
};

// Sorts and merges in place; touching intervals ([0,5) and [5,9)) merge. Zero-length intervals are dropped
// because they cover no time.
void merge_in_place(std::vector<Interval>& intervals);
// The union of intervals, sorted and disjoint.
[[nodiscard]] std::vector<Interval> merged(std::vector<Interval> intervals);
// Merges two already merged (sorted, disjoint) lists.
[[nodiscard]] std::vector<Interval> union_of(std::span<const Interval> a, std::span<const Interval> b);

// Sum of lengths of sorted, disjoint intervals.
[[nodiscard]] TimeNs total_length_ns(std::span<const Interval> merged_intervals);
// Length of the time two sorted, disjoint lists both cover.
[[nodiscard]] TimeNs intersection_length_ns(std::span<const Interval> a, std::span<const Interval> b);
// The time two sorted, disjoint lists both cover, and the time a covers without b, as sorted, disjoint lists.
[[nodiscard]] std::vector<Interval> intersection_of(std::span<const Interval> a, std::span<const Interval> b);
[[nodiscard]] std::vector<Interval> difference_of(std::span<const Interval> a, std::span<const Interval> b);
// Length of the part of sorted, disjoint intervals that lies inside [window_start_ns, window_end_ns).
[[nodiscard]] TimeNs length_within_ns(std::span<const Interval> merged_intervals, TimeNs window_start_ns,
                                      TimeNs window_end_ns);
// busy / window length, 0 for an empty window.
[[nodiscard]] double utilization(std::span<const Interval> merged_intervals, TimeNs window_start_ns,
                                 TimeNs window_end_ns);

// Items [first, last) of a list.
struct IndexRange {
  std::size_t first = 0;
  std::size_t last = 0;
};
// What the items of one range cover: the length of their union, their earliest start and latest end (zero-length
// items count for the ends, not the union); all 0 for an empty range.
struct RangeCover {
  TimeNs union_ns = 0;
  TimeNs first_start_ns = 0;
  TimeNs last_end_ns = 0;
};
// The cover of each range of `items`, answered together in (items + ranges) x log(items) however much the ranges
// overlap (a million measurements each spanning a million launches).
[[nodiscard]] std::vector<RangeCover> cover_of_ranges(std::span<const Interval> items,
                                                      std::span<const IndexRange> ranges);

// a / b with 0 for b == 0: every ratio in a report goes through this so a degenerate trace never divides by 0.
[[nodiscard]] inline double safe_ratio(double a, double b) { return b == 0 ? 0.0 : a / b; }

}  // namespace gtv::analysis
