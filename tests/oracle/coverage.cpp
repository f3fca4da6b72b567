#include "coverage.h"

#include <algorithm>

namespace gtv::oracle {

Coverage::Coverage(const std::vector<Span>& spans, int group_count) : group_count_(group_count) {
  edges_.reserve(2 * spans.size());
  for (const Span& s : spans) {
    if (s.end_ns <= s.start_ns) continue;  // covers no time
    edges_.push_back({s.start_ns, s.group, +1});
    edges_.push_back({s.end_ns, s.group, -1});
  }
  std::sort(edges_.begin(), edges_.end(), [](const Edge& a, const Edge& b) { return a.time_ns < b.time_ns; });
}

TimeNs Coverage::time_with_groups(int min_groups, TimeNs window_start_ns, TimeNs window_end_ns) const {
  TimeNs total = 0;
  for_each_piece(window_start_ns, window_end_ns, [&](const Piece& p) {
    if (p.groups_active >= min_groups) total += p.end_ns - p.start_ns;
  });
  return total;
}

TimeNs Coverage::time_of_group(int group, TimeNs window_start_ns, TimeNs window_end_ns) const {
  TimeNs total = 0;
  for_each_piece(window_start_ns, window_end_ns, [&](const Piece& p) {
    if ((*p.count)[static_cast<std::size_t>(group)] > 0) total += p.end_ns - p.start_ns;
  });
  return total;
}

}  // namespace gtv::oracle
