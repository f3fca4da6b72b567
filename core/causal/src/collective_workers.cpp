// The threads that serve collectives: PyTorch's process groups run each collective on a worker thread (Gloo's
// worker threads, whose "gloo:all_reduce" ranges hold the collective's host side) after the thread that called the
// collective (a "c10d::allreduce_" op; in DDP the autograd engine thread, from its gradient hooks) enqueued it. The
// worker waits for that enqueue, and a caller that makes no call until the collective's last call returned was
// waiting for it (DDP's reducer waits for its all-reduces before backward() returns).
#include <algorithm>
#include <limits>
#include <map>
#include <string_view>

#include "graph_assembly.h"
#include "gtv/model/collectives.h"

namespace gtv::causal {
namespace {

// The call of a collective in the thread that enqueues it: PyTorch's c10d ops ("c10d::allreduce_").
bool is_collective_call(std::string_view name) { return name.substr(0, 6) == "c10d::"; }

bool is_api_or_record(EventKind kind) {
  return kind == EventKind::Runtime || kind == EventKind::Driver || kind == EventKind::Sync ||
         kind == EventKind::Overhead || kind == EventKind::Instant;
}

}  // namespace

bool GraphAssembly::serves_collectives(LaneIndex l) const {
  const Lane& lane = trace_.lane(l);
  if (lane.is_gpu() || lane.by_depth.empty()) return false;
  bool any = false;
  for (const std::uint32_t i : lane.by_depth[0]) {
    const Event& e = lane.events[i];
    if (is_collective_range_event(e)) {
      any = true;
      continue;
    }
    if (!is_api_or_record(e.kind)) return false;  // ops of its own at the top level: a thread with other work
  }
  return any;
}

bool GraphAssembly::is_collective_range_event(const Event& e) const {
  return (e.kind == EventKind::Annotation || e.kind == EventKind::CpuOp) && is_collective_range_name(trace_.name(e));
}

// Each collective range of a serving thread: its first call waits for the enqueuing thread's last call at or before
// the end of the latest c10d op of the process that started before the range (the delay passes to the worker where
// the range begins); that thread's first call after the range's last call waits for it when the thread made no
// call in between.
void GraphAssembly::add_collective_workers() {
  struct Enqueue {
    TimeNs start_ns, end_ns;
    LaneIndex lane;
  };
  std::map<std::int64_t, std::vector<Enqueue>> enqueues;  // per process, in start order
  std::vector<LaneIndex> workers;
  for (LaneIndex l = 0; l < trace_.lanes().size(); ++l)
    if (serves_collectives(l)) workers.push_back(l);
  if (workers.empty()) return;
  for (LaneIndex l = 0; l < trace_.lanes().size(); ++l) {
    const Lane& lane = trace_.lane(l);
    if (lane.is_gpu()) continue;
    for (const Event& e : lane.events)
      if (e.kind == EventKind::CpuOp && is_collective_call(trace_.name(e)))
        enqueues[lane.key.pid].push_back({e.start_ns, e.end_ns(), l});
  }
  for (auto& [pid, list] : enqueues)
    std::sort(list.begin(), list.end(), [](const Enqueue& a, const Enqueue& b) { return a.start_ns < b.start_ns; });
  for (const LaneIndex w : workers) {
    const Lane& lane = trace_.lane(w);
    const auto found = enqueues.find(lane.key.pid);
    if (found == enqueues.end()) continue;
    const std::vector<Enqueue>& list = found->second;
    const HappensBefore::IdRange nodes = g_.lane_nodes(w);
    TimeNs previous_end = std::numeric_limits<TimeNs>::min();
    for (const std::uint32_t i : lane.by_depth[0]) {
      const Event& range = lane.events[i];
      if (!is_collective_range_event(range)) continue;
      // The range's calls.
      NodeId first = g_.node_at_or_before(w, range.start_ns);
      first = first == kNoNode ? nodes.first : first + (g_.recorded_start(first) < range.start_ns ? 1 : 0);
      if (first >= nodes.last || g_.recorded_start(first) >= range.end_ns()) continue;
      NodeId last = g_.node_at_or_before(w, range.end_ns() - 1);
      // The enqueue: the latest c10d op of another thread that started before the range.
      auto it = std::upper_bound(list.begin(), list.end(), range.start_ns,
                                 [](TimeNs t, const Enqueue& e) { return t < e.start_ns; });
      while (it != list.begin() && std::prev(it)->lane == w) --it;
      if (it == list.begin()) continue;
      const Enqueue& enqueue = *std::prev(it);
      const NodeId m = g_.node_at_or_before(enqueue.lane, enqueue.end_ns);
      if (m == kNoNode || g_.recorded_end(m) > g_.recorded_start(first)) continue;
      const HappensBefore::IdRange from = g_.lane_nodes(enqueue.lane);
      const NodeId after_m = m + 1 < from.last ? m + 1 : kNoNode;
      g_.edges_.push_back({m, first, EdgeKind::Handoff, true});
      add_split(m, first, range.start_ns, after_m, first);
      if (const NodeId prev = g_.nodes_[first].chain_prev; prev != kNoNode)
        add_gap_wait(first, std::max(previous_end, g_.recorded_end(prev)), range.start_ns);
      previous_end = std::max(range.end_ns(), g_.recorded_end(last));
      // The caller's wait for the collective: its first call after the range's last call, with none in between.
      const NodeId next = g_.node_at_or_before(enqueue.lane, g_.recorded_end(last));
      const NodeId wake = next == kNoNode ? from.first : next + 1;
      if (wake >= from.last || wake <= m) continue;
      const NodeId before = g_.nodes_[wake].chain_prev;
      if (before == kNoNode || g_.recorded_end(before) > g_.recorded_end(last) ||
          g_.recorded_start(wake) < g_.recorded_end(last))
        continue;
      const TimeNs activity_end = std::min(previous_end, g_.recorded_start(wake));
      const NodeId after_last = last + 1 < nodes.last ? last + 1 : kNoNode;
      g_.edges_.push_back({last, wake, EdgeKind::Handoff, true});
      add_split(last, wake, activity_end, after_last, wake);
      add_gap_wait(wake, std::max(range.start_ns, g_.recorded_end(before)), activity_end);
    }
  }
}

}  // namespace gtv::causal
