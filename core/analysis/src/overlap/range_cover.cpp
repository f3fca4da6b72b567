// The union of the items of many index ranges, offline: the ranges sorted by their last item, the items added in
// order, and the time axis kept as disjoint segments each labelled with the latest item that covers it. A range
// [first, last) then covers exactly the segments whose label is at least `first`, so a Fenwick tree over the labels
// answers it. Each item adds at most three segments and removes what it covers, so the segments change
// O(items) times in all.
#include <algorithm>
#include <map>

#include "gtv/analysis/intervals.h"

namespace gtv::analysis {
namespace {

class Fenwick {
 public:
  explicit Fenwick(std::size_t n) : tree_(n + 1, 0) {}
  void add(std::size_t i, TimeNs v) {
    for (++i; i < tree_.size(); i += i & (~i + 1)) tree_[i] += v;
  }
  [[nodiscard]] TimeNs prefix(std::size_t n) const {  // the sum of [0, n)
    TimeNs s = 0;
    for (; n > 0; n -= n & (~n + 1)) s += tree_[n];
    return s;
  }

 private:
  std::vector<TimeNs> tree_;
};

class LatestCover {
 public:
  explicit LatestCover(std::size_t items) : lengths_(items) {}

  void add(const Interval& iv, std::size_t item) {
    if (iv.end_ns <= iv.start_ns) return;
    split_at(iv.start_ns);
    split_at(iv.end_ns);
    auto it = segments_.lower_bound(iv.start_ns);
    while (it != segments_.end() && it->first < iv.end_ns) {
      lengths_.add(it->second.item, -(it->second.end_ns - it->first));
      it = segments_.erase(it);
    }
    segments_.emplace_hint(it, iv.start_ns, Segment{iv.end_ns, item});
    lengths_.add(item, iv.end_ns - iv.start_ns);
  }

  // The time covered by items from `first` on (of those added).
  [[nodiscard]] TimeNs covered_from(std::size_t first, std::size_t added) const {
    return lengths_.prefix(added) - lengths_.prefix(first);
  }

 private:
  struct Segment {
    TimeNs end_ns;
    std::size_t item;
  };
  void split_at(TimeNs t) {
    auto it = segments_.upper_bound(t);
    if (it == segments_.begin()) return;
    --it;
    if (it->first < t && t < it->second.end_ns) {
      segments_.emplace_hint(std::next(it), t, Segment{it->second.end_ns, it->second.item});
      it->second.end_ns = t;
    }
  }

  std::map<TimeNs, Segment> segments_;  // by start
  Fenwick lengths_;                     // per item: the length of the segments it labels
};

}  // namespace

std::vector<RangeCover> cover_of_ranges(std::span<const Interval> items, std::span<const IndexRange> ranges) {
  std::vector<RangeCover> out(ranges.size());
  std::vector<std::size_t> order;
  for (std::size_t r = 0; r < ranges.size(); ++r)
    if (ranges[r].first < ranges[r].last && ranges[r].last <= items.size()) order.push_back(r);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return ranges[a].last < ranges[b].last; });
  LatestCover cover(items.size());
  // The items added so far whose start no later one undercuts (increasing starts), and whose end no later one
  // exceeds (decreasing ends): a range's earliest start is that of the first of them inside it.
  std::vector<std::size_t> min_start, max_end;
  std::size_t added = 0;
  for (const std::size_t r : order) {
    for (; added < ranges[r].last; ++added) {
      const Interval& iv = items[added];
      cover.add(iv, added);
      while (!min_start.empty() && items[min_start.back()].start_ns >= iv.start_ns) min_start.pop_back();
      min_start.push_back(added);
      while (!max_end.empty() && items[max_end.back()].end_ns <= iv.end_ns) max_end.pop_back();
      max_end.push_back(added);
    }
    const std::size_t first = ranges[r].first;
    RangeCover& c = out[r];
    c.union_ns = cover.covered_from(first, added);
    c.first_start_ns = items[*std::lower_bound(min_start.begin(), min_start.end(), first)].start_ns;
    c.last_end_ns = items[*std::lower_bound(max_end.begin(), max_end.end(), first)].end_ns;
  }
  return out;
}

}  // namespace gtv::analysis
