#include "gtv/causal/happens_before.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <utility>

#include "graph_assembly.h"

namespace gtv::causal {

std::string_view to_string(EdgeKind kind) {
  static constexpr std::array<std::string_view, kEdgeKindCount> kNames{"program order",     "launch",
                                                                       "stream order",      "event wait",
                                                                       "synchronize",       "implicit synchronization",
                                                                       "launch queue full", "lazy-loading drain",
                                                                       "collective",        "thread handoff"};
  return kNames[static_cast<std::size_t>(kind)];
}

std::string_view to_string(PartKind kind) {
  static constexpr std::array<std::string_view, kPartKindCount> kNames{"lazy module loading", "tracing overhead",
                                                                       "not recorded"};
  return kNames[static_cast<std::size_t>(kind)];
}

std::vector<std::string> Anomalies::lines() const {
  std::vector<std::string> out;
  auto add = [&](std::size_t n, const char* what) {
    if (n > 0) out.push_back(std::to_string(n) + " " + what);
  };
  add(launch_after_work,
      "GPU work item(s) recorded as starting before their launch call: that launch was not taken "
      "as a dependency");
  add(overlapping_on_stream,
      "GPU work item(s) started before the previous work of their stream ended (programmatic dependent "
      "launch lets a kernel start while the one before it finishes): a replay lets each start no earlier "
      "before it than recorded");
  add(wait_after_end, "wait link(s) whose waited-for work ended after the waiter: left out");
  add(flows_without_node, "launch flow(s) joining events that are not calls or GPU work: left out");
  add(collective_clock,
      "collective(s) whose kernels ended before the last rank arrived (clocks not aligned?): "
      "not taken as dependencies");
  return out;
}

namespace {
std::atomic<std::size_t> g_builds{0};
}  // namespace

std::size_t graph_builds() { return g_builds.load(std::memory_order_relaxed); }

HappensBefore HappensBefore::build(const Trace& trace) {
  g_builds.fetch_add(1, std::memory_order_relaxed);
  HappensBefore g;
  GraphAssembly(trace, g).run();
  for (NodeId n = 0; n < g.size(); ++n) {
    g.nodes_start_ns_ = std::min(g.nodes_start_ns_, g.recorded_start(n));
    g.nodes_end_ns_ = std::max(g.nodes_end_ns_, g.recorded_end(n));
  }
  return g;
}

std::span<const Edge> HappensBefore::edges_into(NodeId id) const {
  if (!nodes_[id].has_edges) return {};
  auto lo = std::lower_bound(edges_.begin(), edges_.end(), id, [](const Edge& e, NodeId n) { return e.to < n; });
  auto hi = std::upper_bound(lo, edges_.end(), id, [](NodeId n, const Edge& e) { return n < e.to; });
  return {lo, hi};
}

std::span<const Part> HappensBefore::parts_of(NodeId id) const {
  if (!nodes_[id].has_parts) return {};
  auto lo = std::lower_bound(parts_.begin(), parts_.end(), id, [](const Part& p, NodeId n) { return p.node < n; });
  auto hi = std::upper_bound(lo, parts_.end(), id, [](NodeId n, const Part& p) { return n < p.node; });
  return {lo, hi};
}

TimeNs HappensBefore::own_ns(NodeId id) const {
  if (!nodes_[id].has_own_time) return event(id).duration_ns;
  auto it =
      std::lower_bound(own_times_.begin(), own_times_.end(), id, [](const OwnTime& o, NodeId n) { return o.node < n; });
  if (it != own_times_.end() && it->node == id) return it->ns;
  return event(id).duration_ns;
}

TimeNs HappensBefore::gap_wait_ns(NodeId id) const {
  if (!nodes_[id].has_gap_wait) return 0;
  auto it =
      std::lower_bound(gap_waits_.begin(), gap_waits_.end(), id, [](const OwnTime& o, NodeId n) { return o.node < n; });
  return it != gap_waits_.end() && it->node == id ? it->ns : 0;
}

HappensBefore::HandoffSplit HappensBefore::handoff_split(NodeId from, NodeId to) const {
  auto it = std::lower_bound(handoff_splits_.begin(), handoff_splits_.end(), std::pair{to, from},
                             [](const HandoffSplit& h, std::pair<NodeId, NodeId> k) {
                               return std::pair{h.to, h.from} < k;
                             });
  if (it != handoff_splits_.end() && it->to == to && it->from == from) return *it;
  return {from, to, recorded_end(from), 0, 0};
}

NodeId HappensBefore::node_of(EventRef ref) const {
  if (ref.lane + 1 >= lane_first_node_.size()) return kNoNode;
  const auto first = nodes_.begin() + lane_first_node_[ref.lane];
  auto last = nodes_.begin() + lane_first_node_[ref.lane + 1];
  // A lane's nodes are some of its events in order, so the k-th node is event k or a later one: the event's node is
  // at most ref.index nodes in, and exactly there on a lane whose every event is a node (a GPU stream).
  if (ref.index < static_cast<std::uint64_t>(last - first)) {
    const auto at = first + static_cast<std::ptrdiff_t>(ref.index);
    if (at->ref.index == ref.index) return static_cast<NodeId>(at - nodes_.begin());
    last = at + 1;
  }
  auto it = std::lower_bound(first, last, ref.index, [](const Node& n, std::uint32_t i) { return n.ref.index < i; });
  return it != last && it->ref.index == ref.index ? static_cast<NodeId>(it - nodes_.begin()) : kNoNode;
}

HappensBefore::IdRange HappensBefore::lane_nodes(LaneIndex lane) const {
  if (lane + 1 >= lane_first_node_.size()) return {};
  return {lane_first_node_[lane], lane_first_node_[lane + 1]};
}

NodeId HappensBefore::node_at_or_before(LaneIndex lane, TimeNs time_ns) const {
  if (lane + 1 >= lane_first_node_.size()) return kNoNode;
  const NodeId first = lane_first_node_[lane], last = lane_first_node_[lane + 1];
  NodeId lo = first, hi = last;  // first node starting after time_ns
  while (lo < hi) {
    const NodeId mid = lo + (hi - lo) / 2;
    if (recorded_start(mid) <= time_ns)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo == first ? kNoNode : lo - 1;
}

NodeId HappensBefore::copy_wait_continued_by(NodeId sync) const {
  const NodeId before = nodes_[sync].chain_prev;
  if (before == kNoNode || nodes_[sync].kind != NodeKind::HostCall || !nodes_[before].stages_own_copy) return kNoNode;
  for (const Edge& e : edges_into(sync))
    if (e.kind == EdgeKind::Sync && nodes_[e.from].kind == NodeKind::Copy && nodes_[e.from].launch == before)
      return e.from;
  return kNoNode;
}

std::size_t HappensBefore::memory_bytes() const {
  return nodes_.capacity() * sizeof(Node) + lane_first_node_.capacity() * sizeof(NodeId) +
         edges_.capacity() * sizeof(Edge) + parts_.capacity() * sizeof(Part) +
         (own_times_.capacity() + gap_waits_.capacity()) * sizeof(OwnTime) +
         handoff_splits_.capacity() * sizeof(HandoffSplit);
}

}  // namespace gtv::causal
