#pragma once
// The oracle's one tool for time: a sweep over the start and end of every span, with a counter per group. It merges
// nothing and sorts only the boundaries, so it shares no step with the analyses' interval arithmetic (sort, merge,
// intersect); any disagreement between the two is a bug in one of them.
#include <cstdint>
#include <vector>

#include "gtv/base/time.h"

namespace gtv::oracle {

struct Span {
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  int group = 0;  // what the span belongs to: a GPU, a stream, a kind of work
};

// One stretch of time between two consecutive boundaries, with how many spans of each group cover it.
struct Piece {
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  const std::vector<int>* count = nullptr;  // spans covering the piece, per group
  int groups_active = 0;                    // groups with at least one span covering the piece
};

class Coverage {
 public:
  Coverage(const std::vector<Span>& spans, int group_count);

  // Every piece inside [window_start_ns, window_end_ns) that at least one span covers, clipped to the window.
  template <typename Fn>
  void for_each_piece(TimeNs window_start_ns, TimeNs window_end_ns, Fn&& fn) const {
    std::vector<int> count(static_cast<std::size_t>(group_count_), 0);
    int active = 0;
    for (std::size_t i = 0; i < edges_.size();) {
      const TimeNs t = edges_[i].time_ns;
      for (; i < edges_.size() && edges_[i].time_ns == t; ++i) {
        int& c = count[static_cast<std::size_t>(edges_[i].group)];
        if (c == 0) ++active;
        c += edges_[i].delta;
        if (c == 0) --active;
      }
      if (i == edges_.size() || active == 0) continue;
      const TimeNs start = t > window_start_ns ? t : window_start_ns;
      const TimeNs end = edges_[i].time_ns < window_end_ns ? edges_[i].time_ns : window_end_ns;
      if (end > start) fn(Piece{start, end, &count, active});
    }
  }

  // Time inside the window that at least `min_groups` groups cover.
  [[nodiscard]] TimeNs time_with_groups(int min_groups, TimeNs window_start_ns, TimeNs window_end_ns) const;
  // Time inside the window that group g covers.
  [[nodiscard]] TimeNs time_of_group(int group, TimeNs window_start_ns, TimeNs window_end_ns) const;

 private:
  struct Edge {
    TimeNs time_ns = 0;
    int group = 0;
    int delta = 0;
  };
  std::vector<Edge> edges_;
  int group_count_ = 0;
};

}  // namespace gtv::oracle
