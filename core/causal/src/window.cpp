// The window a critical path is walked in, and where it lies in a replay.
#include <algorithm>
#include <limits>
#include <set>

#include "gtv/causal/critical_path.h"

namespace gtv::causal {
namespace {

constexpr TimeNs kMinTime = std::numeric_limits<TimeNs>::min();
constexpr TimeNs kMaxTime = std::numeric_limits<TimeNs>::max();

// A recorded time on a host lane, moved as the replay moved the node around it: inside a call, by the call's
// start; in the gap after a call, by the call's end; before the lane's first call, by that call's start. A gap the
// replay shortened (the host's own work in it taken out) holds the time no later than the next call's replayed
// start: a measurement of CPU work that ends in that gap ends sooner without that work. Recorded differences fit
// in an int64; moved onto a replay's times they may not, and saturate.
TimeNs moved_host_time(const HappensBefore& g, const Timeline& t, LaneIndex lane, TimeNs time_ns) {
  const HappensBefore::IdRange r = g.lane_nodes(lane);
  const NodeId n = g.node_at_or_before(lane, time_ns);
  if (n == kNoNode) {
    if (r.first == r.last) return time_ns;
    return saturating_sub(t.start_ns[r.first], g.recorded_start(r.first) - time_ns);
  }
  if (time_ns < g.recorded_end(n))
    return std::min(saturating_add(t.start_ns[n], time_ns - g.recorded_start(n)), t.end_ns[n]);
  const TimeNs moved = saturating_add(t.end_ns[n], time_ns - g.recorded_end(n));
  const NodeId next = n + 1;
  if (next >= r.last || g.node(next).chain_prev != n) return moved;
  const bool shortened = saturating_sub(t.start_ns[next], t.end_ns[n]) < g.recorded_start(next) - g.recorded_end(n);
  return shortened ? std::min(moved, std::max(t.start_ns[next], t.end_ns[n])) : moved;
}

}  // namespace

Window window_of(const HappensBefore& g) {
  const Trace& trace = g.trace();
  Window w;
  w.start_ns = trace.activity_start_ns();
  w.end_ns = trace.activity_end_ns();
  if (trace.measurements().empty()) return w;
  struct Launch {
    TimeNs start_ns;
    std::int64_t pid;
    NodeId work;
  };
  std::vector<Launch> launches;
  std::set<std::int64_t> launching_pids;
  for (const Flow& f : trace.flows()) {
    const NodeId n = g.node_of(f.to);
    const std::int64_t pid = trace.lane(f.from.lane).key.pid;
    launching_pids.insert(pid);
    if (n != kNoNode) launches.push_back({trace.event(f.from).start_ns, pid, n});
  }
  std::sort(launches.begin(), launches.end(), [](const Launch& a, const Launch& b) { return a.start_ns < b.start_ns; });
  std::vector<Launch> by_pid = launches;
  std::stable_sort(by_pid.begin(), by_pid.end(), [](const Launch& a, const Launch& b) { return a.pid < b.pid; });
  // Which launches some measurement spans, marked as ranges (+1 at a range's first, -1 past its last) and summed
  // once: a hundred thousand measurements each spanning ten thousand launches cost no more than their count.
  std::vector<std::int32_t> all_marks(launches.size() + 1, 0), own_marks(by_pid.size() + 1, 0);
  const auto mark = [](std::vector<std::int32_t>& marks, const std::vector<Launch>& list, std::size_t first,
                       std::size_t last, const Measurement& m) {
    const auto by_time = [](const Launch& l, TimeNs t) { return l.start_ns < t; };
    const auto end = list.begin() + std::ptrdiff_t(last);
    const auto lo = std::lower_bound(list.begin() + std::ptrdiff_t(first), end, m.host_start_ns, by_time);
    const auto hi = std::lower_bound(lo, end, m.host_end_ns, by_time);
    if (lo == hi) return;
    ++marks[std::size_t(lo - list.begin())];
    --marks[std::size_t(hi - list.begin())];
  };
  w.start_ns = kMaxTime;
  w.end_ns = kMinTime;
  for (const Measurement& m : trace.measurements()) {
    const auto lane = trace.find_lane(host_lane_key(m.pid, m.tid));
    w.measured.push_back({lane ? *lane : Window::kNoLane, m.host_start_ns, m.host_end_ns});
    w.start_ns = std::min(w.start_ns, m.host_start_ns);
    w.end_ns = std::max(w.end_ns, m.host_end_ns);
    // Another process's launches are not this stopwatch's work, unless its own process launched nothing.
    const bool own_pid_only = launching_pids.count(m.pid) > 0 && launching_pids.size() > 1;
    if (!own_pid_only) {
      mark(all_marks, launches, 0, launches.size(), m);
      continue;
    }
    const auto first = std::lower_bound(by_pid.begin(), by_pid.end(), m.pid,
                                        [](const Launch& l, std::int64_t pid) { return l.pid < pid; });
    const auto last =
        std::upper_bound(first, by_pid.end(), m.pid, [](std::int64_t pid, const Launch& l) { return pid < l.pid; });
    mark(own_marks, by_pid, std::size_t(first - by_pid.begin()), std::size_t(last - by_pid.begin()), m);
  }
  const auto take_marked = [&](const std::vector<std::int32_t>& marks, const std::vector<Launch>& list) {
    std::int64_t depth = 0;
    for (std::size_t i = 0; i < list.size(); ++i) {
      depth += marks[i];
      if (depth == 0) continue;
      w.work.push_back(list[i].work);
      w.end_ns = std::max(w.end_ns, g.recorded_end(list[i].work));
    }
  };
  take_marked(all_marks, launches);
  take_marked(own_marks, by_pid);
  std::sort(w.work.begin(), w.work.end());
  w.work.erase(std::unique(w.work.begin(), w.work.end()), w.work.end());
  return w;
}

WindowTimes window_in(const HappensBefore& g, const Timeline& t, const Window& w) {
  WindowTimes out{kMaxTime, kMinTime};
  if (w.measured.empty()) {
    // The whole trace: its first and last node moved, with what the trace holds beyond them kept.
    if (g.size() == 0) return {w.start_ns, w.end_ns};
    for (NodeId n = 0; n < g.size(); ++n) {
      out.start_ns = std::min(out.start_ns, t.start_ns[n]);
      out.end_ns = std::max(out.end_ns, t.end_ns[n]);
    }
    out.start_ns = saturating_sub(out.start_ns, g.recorded_nodes_start_ns() - w.start_ns);
    out.end_ns = saturating_add(out.end_ns, w.end_ns - g.recorded_nodes_end_ns());
    return out;
  }
  for (const Window::Measured& m : w.measured) {
    const bool has_lane = m.lane != Window::kNoLane;
    out.start_ns = std::min(out.start_ns, has_lane ? moved_host_time(g, t, m.lane, m.host_start_ns) : m.host_start_ns);
    out.end_ns = std::max(out.end_ns, has_lane ? moved_host_time(g, t, m.lane, m.host_end_ns) : m.host_end_ns);
  }
  for (const NodeId n : w.work) out.end_ns = std::max(out.end_ns, t.end_ns[n]);
  return out;
}

}  // namespace gtv::causal
