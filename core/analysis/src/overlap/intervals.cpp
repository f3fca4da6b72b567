#include "gtv/analysis/intervals.h"

#include <algorithm>

#include "gtv/base/sorted_runs.h"

namespace gtv::analysis {

void merge_in_place(std::vector<Interval>& intervals) {
  // The union below does not depend on the order of intervals that start together, so any order by start serves.
  sort_runs(intervals, [](const Interval& a, const Interval& b) { return a.start_ns < b.start_ns; });
  std::size_t out = 0;
  for (const Interval& iv : intervals) {
    if (iv.end_ns <= iv.start_ns) continue;
    if (out > 0 && iv.start_ns <= intervals[out - 1].end_ns) {
      intervals[out - 1].end_ns = std::max(intervals[out - 1].end_ns, iv.end_ns);
    } else {
      intervals[out++] = iv;
    }
  }
  intervals.resize(out);
}

std::vector<Interval> merged(std::vector<Interval> intervals) {
  merge_in_place(intervals);
  return intervals;
}

std::vector<Interval> union_of(std::span<const Interval> a, std::span<const Interval> b) {
  std::vector<Interval> out;
  out.reserve(a.size() + b.size());
  std::size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    const bool take_a = j == b.size() || (i < a.size() && a[i].start_ns <= b[j].start_ns);
    const Interval iv = take_a ? a[i++] : b[j++];
    if (!out.empty() && iv.start_ns <= out.back().end_ns)
      out.back().end_ns = std::max(out.back().end_ns, iv.end_ns);
    else
      out.push_back(iv);
  }
  return out;
}

TimeNs total_length_ns(std::span<const Interval> merged_intervals) {
  TimeNs total = 0;
  for (const Interval& iv : merged_intervals) total += iv.length_ns();
  return total;
}

TimeNs intersection_length_ns(std::span<const Interval> a, std::span<const Interval> b) {
  TimeNs total = 0;
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const TimeNs start = std::max(a[i].start_ns, b[j].start_ns);
    const TimeNs end = std::min(a[i].end_ns, b[j].end_ns);
    if (end > start) total += end - start;
    if (a[i].end_ns < b[j].end_ns)
      ++i;
    else
      ++j;
  }
  return total;
}

std::vector<Interval> intersection_of(std::span<const Interval> a, std::span<const Interval> b) {
  std::vector<Interval> out;
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const TimeNs start = std::max(a[i].start_ns, b[j].start_ns);
    const TimeNs end = std::min(a[i].end_ns, b[j].end_ns);
    if (end > start) out.push_back({start, end});
    if (a[i].end_ns < b[j].end_ns)
      ++i;
    else
      ++j;
  }
  return out;
}

std::vector<Interval> difference_of(std::span<const Interval> a, std::span<const Interval> b) {
  std::vector<Interval> out;
  std::size_t j = 0;
  for (const Interval& iv : a) {
    TimeNs cursor = iv.start_ns;
    while (j < b.size() && b[j].end_ns <= cursor) ++j;
    for (std::size_t k = j; k < b.size() && b[k].start_ns < iv.end_ns; ++k) {
      if (b[k].start_ns > cursor) out.push_back({cursor, b[k].start_ns});
      cursor = std::max(cursor, b[k].end_ns);
    }
    if (cursor < iv.end_ns) out.push_back({cursor, iv.end_ns});
  }
  return out;
}

TimeNs length_within_ns(std::span<const Interval> merged_intervals, TimeNs window_start_ns, TimeNs window_end_ns) {
  auto it = std::lower_bound(merged_intervals.begin(), merged_intervals.end(), window_start_ns,
                             [](const Interval& iv, TimeNs t) { return iv.end_ns <= t; });
  TimeNs total = 0;
  for (; it != merged_intervals.end() && it->start_ns < window_end_ns; ++it)
    total += std::max<TimeNs>(0, std::min(it->end_ns, window_end_ns) - std::max(it->start_ns, window_start_ns));
  return total;
}

double utilization(std::span<const Interval> merged_intervals, TimeNs window_start_ns, TimeNs window_end_ns) {
  return safe_ratio(static_cast<double>(length_within_ns(merged_intervals, window_start_ns, window_end_ns)),
                    static_cast<double>(window_end_ns) - static_cast<double>(window_start_ns));
}

}  // namespace gtv::analysis
