#include "output/write_layout.h"

#include <algorithm>
#include <map>
#include <set>

namespace gtv::io {
namespace {

// Synthetic tids for overlap and range tracks start here, far above real thread ids and stream numbers.
constexpr std::int64_t kSyntheticTidBase = 2'000'000'000;

class TidAllocator {
 public:
  explicit TidAllocator(const Trace& trace) {
    for (const Lane& lane : trace.lanes()) used_.insert({lane.key.pid, lane.key.tid});
  }
  std::int64_t next(std::int64_t pid) {
    std::int64_t& candidate = next_[pid];
    if (candidate == 0) candidate = kSyntheticTidBase;
    while (used_.count({pid, candidate}) != 0) ++candidate;
    used_.insert({pid, candidate});
    return candidate++;
  }

 private:
  std::set<std::pair<std::int64_t, std::int64_t>> used_;
  std::map<std::int64_t, std::int64_t> next_;
};

// Greedy: each event goes to the first track where it nests inside (or follows) what is open there.
void plan_lane(const Lane& lane, LaneLayout& out, TidAllocator& tids) {
  out.track.resize(lane.events.size());
  out.track_tids.assign(1, lane.key.tid);
  std::vector<std::vector<TimeNs>> open_ends(1);
  for (std::size_t i = 0; i < lane.events.size(); ++i) {
    const Event& e = lane.events[i];
    for (std::size_t t = 0;; ++t) {
      if (t == open_ends.size()) {
        open_ends.emplace_back();
        out.track_tids.push_back(tids.next(lane.key.pid));
      }
      std::vector<TimeNs>& ends = open_ends[t];
      while (!ends.empty() && ends.back() <= e.start_ns) ends.pop_back();
      if (ends.empty() || e.end_ns() <= ends.back()) {
        ends.push_back(e.end_ns());
        out.track[i] = static_cast<std::uint32_t>(t);
        break;
      }
    }
  }
}

}  // namespace

WriteLayout plan_layout(const Trace& trace) {
  WriteLayout layout;
  TidAllocator tids(trace);
  layout.lanes.resize(trace.lanes().size());
  for (std::size_t l = 0; l < trace.lanes().size(); ++l) plan_lane(trace.lanes()[l], layout.lanes[l], tids);
  // Ranges: per pid, rows of ranges that do not overlap at all.
  struct Row {
    std::int64_t tid;
    TimeNs end_ns;
  };
  std::map<std::int64_t, std::vector<Row>> rows;
  for (const Range& r : trace.ranges()) {
    std::vector<Row>& pid_rows = rows[r.pid];
    const TimeNs end = std::max(r.start_ns, r.end_ns);
    auto it = std::find_if(pid_rows.begin(), pid_rows.end(), [&](const Row& row) { return row.end_ns <= r.start_ns; });
    if (it == pid_rows.end()) {
      pid_rows.push_back({tids.next(r.pid), end});
      layout.range_tracks.push_back({r.pid, pid_rows.back().tid});
      it = pid_rows.end() - 1;
    }
    it->end_ns = end;
    layout.range_tids.push_back(it->tid);
  }
  return layout;
}

}  // namespace gtv::io
