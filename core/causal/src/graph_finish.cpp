// The last steps of building the graph: collectives across ranks, then the parts of host time clipped to where a
// removal can take them from, and the sparse tables sorted.
#include <algorithm>
#include <array>
#include <limits>
#include <tuple>
#include <utility>

#include "graph_assembly.h"
#include "gtv/model/collectives.h"

namespace gtv::causal {
namespace {

// Ranks whose collective kernels would each be joined to every other rank's arrival: beyond this, only the latest
// arrivals are (removing a straggler makes the next-latest rank the one the others wait for).
constexpr std::size_t kPeersPerCollective = 4;

// Total length of the union of [start, end) spans (sorted in place).
TimeNs union_length(std::vector<std::pair<TimeNs, TimeNs>>& spans) {
  std::sort(spans.begin(), spans.end());
  TimeNs total = 0, open_start = 0, open_end = 0;
  bool open = false;
  for (const auto& [s, e] : spans) {
    if (e <= s) continue;
    if (open && s <= open_end) {
      open_end = std::max(open_end, e);
      continue;
    }
    if (open) total += open_end - open_start;
    open = true, open_start = s, open_end = e;
  }
  return open ? total + open_end - open_start : total;
}

// Length of `spans` outside `taken` (both unions of spans).
TimeNs length_outside(std::vector<std::pair<TimeNs, TimeNs>> spans,
                      const std::vector<std::pair<TimeNs, TimeNs>>& taken) {
  std::vector<std::pair<TimeNs, TimeNs>> both = std::move(spans);
  both.insert(both.end(), taken.begin(), taken.end());
  auto taken_copy = taken;
  return union_length(both) - union_length(taken_copy);
}

}  // namespace

// In a run merged from ranks, the matched all-reduce (all-gather, reduce-scatter, barrier, all-to-all) of every rank
// is one collective: each rank's kernel ends its own transfer time after the last rank's kernel started. A
// broadcast's (scatter's) non-root kernels end their transfer time after the root's started; the root waits for
// nobody. (A reduce's root waits for the others, but which rank it was only its end hints at: not joined.)
void GraphAssembly::add_collectives() {
  const auto& ranks = trace_.metadata().ranks;
  if (ranks.size() < 2) return;
  const std::vector<std::vector<Collective>> per_rank = collectives_by_rank(trace_);
  std::vector<std::string> names;
  names.reserve(ranks.size());
  for (const RankInfo& r : ranks) names.push_back("rank " + std::to_string(r.rank));
  const CollectiveMatch match = match_collectives(per_rank, names);
  std::vector<NodeId> kernels;
  std::vector<EventRef> ranges;
  for (const MatchedCollective& m : match.matched) {
    if (!ends_together(m.kind) && !root_sends(m.kind)) continue;
    ranges.clear();
    for (std::size_t r = 0; r < m.index.size(); ++r)
      if (const Collective& c = per_rank[r][m.index[r]]; !c.on_gpu) ranges.push_back(c.ref);
    if (!ranges.empty()) {
      if (ends_together(m.kind) && ranges.size() == m.index.size()) join_host_ranges(ranges);
      continue;
    }
    kernels.clear();
    for (std::size_t r = 0; r < m.index.size(); ++r) {
      const Collective& c = per_rank[r][m.index[r]];
      const NodeId n = c.on_gpu ? g_.node_of(c.ref) : kNoNode;
      if (n != kNoNode) kernels.push_back(n);
    }
    if (kernels.size() < 2) continue;
    if (root_sends(m.kind))
      join_to_root(kernels);
    else
      join_to_last(kernels);
  }
}

void GraphAssembly::join_to_last(std::vector<NodeId>& kernels) {
  std::sort(kernels.begin(), kernels.end(),
            [&](NodeId a, NodeId b) { return g_.recorded_start(a) > g_.recorded_start(b); });  // latest first
  const TimeNs last_arrival = g_.recorded_start(kernels.front());
  const bool consistent =
      std::all_of(kernels.begin(), kernels.end(), [&](NodeId n) { return g_.recorded_end(n) >= last_arrival; });
  if (!consistent) {
    ++g_.anomalies_.collective_clock;
    return;
  }
  for (const NodeId n : kernels) {
    std::size_t peers = 0;
    for (const NodeId peer : kernels) {
      if (peer == n || peers == kPeersPerCollective) continue;
      ++peers;
      const bool binding = peer == kernels.front() && g_.recorded_start(peer) > g_.recorded_start(n);
      g_.edges_.push_back({peer, n, EdgeKind::Collective, binding});
    }
    if (g_.recorded_start(n) < last_arrival) g_.nodes_[n].end_bound = true;
    set_own_time(n, g_.recorded_end(n) - std::max(last_arrival, g_.recorded_start(n)));
  }
}

// A collective run on host threads (Gloo's "gloo:all_reduce" on a worker thread): a rank arrives with the first
// call inside its range (the worker syncs the GPU stream that produced the tensor), then records nothing while it
// waits for the other ranks and transfers; its first call after the last rank's arrival (the copy of the result
// back to the GPU) waits for every rank's arrival. The time from a rank's previous call to the last arrival is its
// wait for that rank, no gap of its own; what follows until that call is the transfer.
void GraphAssembly::join_host_ranges(const std::vector<EventRef>& ranges) {
  auto first_from = [this](LaneIndex lane, TimeNs t, TimeNs before) {
    const HappensBefore::IdRange r = g_.lane_nodes(lane);
    NodeId n = g_.node_at_or_before(lane, t);
    n = n == kNoNode ? r.first : n + (g_.recorded_start(n) < t ? 1 : 0);
    return n < r.last && g_.recorded_start(n) < before ? n : kNoNode;
  };
  std::vector<NodeId> arrivals;
  for (const EventRef& ref : ranges) {
    const Event& range = trace_.event(ref);
    const NodeId arrival = first_from(ref.lane, range.start_ns, range.end_ns());
    // A range with one call or none: whether that call is the arrival or the end is unknown.
    if (arrival == kNoNode || first_from(ref.lane, g_.recorded_start(arrival) + 1, range.end_ns()) == kNoNode) return;
    arrivals.push_back(arrival);
  }
  const TimeNs last_arrival =
      g_.recorded_start(*std::max_element(arrivals.begin(), arrivals.end(), [&](NodeId a, NodeId b) {
        return g_.recorded_start(a) < g_.recorded_start(b);
      }));
  if (std::any_of(ranges.begin(), ranges.end(),
                  [&](const EventRef& ref) { return trace_.event(ref).end_ns() <= last_arrival; })) {
    ++g_.anomalies_.collective_clock;
    return;
  }
  std::vector<NodeId> latest_first = arrivals;
  std::sort(latest_first.begin(), latest_first.end(),
            [&](NodeId a, NodeId b) { return g_.recorded_start(a) > g_.recorded_start(b); });
  for (std::size_t r = 0; r < ranges.size(); ++r) {
    const Event& range = trace_.event(ranges[r]);
    const NodeId end = first_from(ranges[r].lane, last_arrival + 1, range.end_ns());
    if (end == kNoNode) continue;
    g_.edges_.push_back({arrivals[r], end, EdgeKind::Collective, false, true});
    std::size_t peers = 0;
    for (const NodeId peer : latest_first) {
      if (peer == arrivals[r] || peers == kPeersPerCollective) continue;
      ++peers;
      const bool binding = g_.recorded_start(peer) == last_arrival && last_arrival > g_.recorded_start(arrivals[r]);
      g_.edges_.push_back({peer, end, EdgeKind::Collective, binding, true});
    }
    if (const NodeId prev = g_.nodes_[end].chain_prev; prev != kNoNode)
      add_gap_wait(end, g_.recorded_end(prev), last_arrival);
  }
}

// The root is the kernel that ended first: it only sends.
void GraphAssembly::join_to_root(std::vector<NodeId>& kernels) {
  const NodeId root = *std::min_element(kernels.begin(), kernels.end(),
                                        [&](NodeId a, NodeId b) { return g_.recorded_end(a) < g_.recorded_end(b); });
  const TimeNs root_arrival = g_.recorded_start(root);
  const bool consistent =
      std::all_of(kernels.begin(), kernels.end(), [&](NodeId n) { return g_.recorded_end(n) >= root_arrival; });
  if (!consistent) {
    ++g_.anomalies_.collective_clock;
    return;
  }
  for (const NodeId n : kernels) {
    if (n == root) continue;
    const bool binding = root_arrival > g_.recorded_start(n);
    g_.edges_.push_back({root, n, EdgeKind::Collective, binding});
    if (binding) g_.nodes_[n].end_bound = true;
    set_own_time(n, g_.recorded_end(n) - std::max(root_arrival, g_.recorded_start(n)));
  }
}

// Parts inside a call count only within its own time (a CUPTI buffer request while a sync waited for the GPU cost
// nothing); parts in a gap only within the gap, outside the time the thread waited for another thread's handoff
// (that time is no gap of its own). Where loading and tracer records overlap, the time is loading.
void GraphAssembly::finish_parts() {
  std::sort(spans_.begin(), spans_.end(),
            [](const Span& a, const Span& b) { return std::tie(a.node, a.in_gap) < std::tie(b.node, b.in_gap); });
  std::sort(split_pieces_.begin(), split_pieces_.end(),
            [](const SplitPiece& a, const SplitPiece& b) { return a.node < b.node; });
  auto wait_of = [this](NodeId node) -> const GapWait* {
    auto it = std::lower_bound(gap_waits_.begin(), gap_waits_.end(), node,
                               [](const GapWait& w, NodeId n) { return w.node < n; });
    return it != gap_waits_.end() && it->node == node ? &*it : nullptr;
  };
  std::array<std::vector<std::pair<TimeNs, TimeNs>>, kPartKindCount> by_kind;
  for (std::size_t i = 0; i < spans_.size();) {
    const NodeId node = spans_[i].node;
    const bool in_gap = spans_[i].in_gap;
    TimeNs lo = 0, hi = 0;
    if (in_gap) {
      lo = g_.recorded_end(g_.nodes_[node].chain_prev), hi = g_.recorded_start(node);
    } else {
      hi = g_.recorded_end(node), lo = hi - g_.own_ns(node);
    }
    for (auto& v : by_kind) v.clear();
    const GapWait* wait = in_gap ? wait_of(node) : nullptr;
    for (; i < spans_.size() && spans_[i].node == node && spans_[i].in_gap == in_gap; ++i) {
      const Span& s = spans_[i];
      const TimeNs a = std::max(s.start_ns, lo), b = std::min(s.end_ns, hi);
      if (in_gap && s.kind == PartKind::Unrecorded) count_in_split_pieces(node, a, b);
      auto& into = by_kind[static_cast<std::size_t>(s.kind)];
      if (wait == nullptr) {
        if (a < b) into.emplace_back(a, b);
        continue;
      }
      if (a < std::min(b, wait->start_ns)) into.emplace_back(a, std::min(b, wait->start_ns));
      if (std::max(a, wait->end_ns) < b) into.emplace_back(std::max(a, wait->end_ns), b);
    }
    auto& loading = by_kind[static_cast<std::size_t>(PartKind::LazyLoading)];
    auto& tracing = by_kind[static_cast<std::size_t>(PartKind::TracingOverhead)];
    const TimeNs tracing_ns = length_outside(tracing, loading);
    const TimeNs loading_ns = union_length(loading);
    auto& unrecorded = by_kind[static_cast<std::size_t>(PartKind::Unrecorded)];
    TimeNs offset_ns = 0;
    if (!unrecorded.empty()) {
      const TimeNs first = std::min_element(unrecorded.begin(), unrecorded.end())->first;
      offset_ns = first - lo - (wait && wait->end_ns <= first ? wait->end_ns - wait->start_ns : 0);
    }
    const TimeNs unrecorded_ns = union_length(unrecorded);
    if (loading_ns > 0) g_.parts_.push_back({node, PartKind::LazyLoading, in_gap, loading_ns});
    if (tracing_ns > 0) g_.parts_.push_back({node, PartKind::TracingOverhead, in_gap, tracing_ns});
    if (unrecorded_ns > 0) g_.parts_.push_back({node, PartKind::Unrecorded, in_gap, unrecorded_ns, offset_ns});
  }
  spans_.clear();
  spans_.shrink_to_fit();
}

// A handoff piece lying in this gap takes the unrecorded time [start_ns, end_ns) has in it.
void GraphAssembly::count_in_split_pieces(NodeId node, TimeNs start_ns, TimeNs end_ns) {
  auto it = std::lower_bound(split_pieces_.begin(), split_pieces_.end(), node,
                             [](const SplitPiece& p, NodeId n) { return p.node < n; });
  for (; it != split_pieces_.end() && it->node == node; ++it) {
    const TimeNs overlap = std::min(end_ns, it->end_ns) - std::max(start_ns, it->start_ns);
    if (overlap <= 0) continue;
    HappensBefore::HandoffSplit& split = g_.handoff_splits_[it->split];
    (it->to_side ? split.to_unrecorded_ns : split.from_unrecorded_ns) += overlap;
  }
}

void GraphAssembly::finish() {
  std::sort(g_.own_times_.begin(), g_.own_times_.end(),
            [](const HappensBefore::OwnTime& a, const HappensBefore::OwnTime& b) { return a.node < b.node; });
  for (const HappensBefore::OwnTime& o : g_.own_times_) g_.nodes_[o.node].has_own_time = true;
  // A call may wait in its gap for several threads at once (the main thread joining the threads it started): the
  // union of those waits.
  std::sort(gap_waits_.begin(), gap_waits_.end(), [](const GapWait& a, const GapWait& b) {
    return std::tie(a.node, a.start_ns, a.end_ns) < std::tie(b.node, b.start_ns, b.end_ns);
  });
  for (std::size_t i = 0; i < gap_waits_.size();) {
    const NodeId node = gap_waits_[i].node;
    TimeNs total = 0, until = std::numeric_limits<TimeNs>::min();
    for (; i < gap_waits_.size() && gap_waits_[i].node == node; ++i) {
      const GapWait& w = gap_waits_[i];
      total += std::max<TimeNs>(0, w.end_ns - std::max(w.start_ns, until));
      until = std::max(until, w.end_ns);
    }
    g_.gap_waits_.push_back({node, total});
    g_.nodes_[node].has_gap_wait = true;
  }
  finish_parts();  // before the splits are sorted: it counts their unrecorded time by index
  std::sort(g_.handoff_splits_.begin(), g_.handoff_splits_.end(),
            [](const HappensBefore::HandoffSplit& a, const HappensBefore::HandoffSplit& b) {
              return std::pair{a.to, a.from} < std::pair{b.to, b.from};
            });  // after the own times: parts inside a call are clipped to them
  std::stable_sort(g_.edges_.begin(), g_.edges_.end(), [](const Edge& a, const Edge& b) { return a.to < b.to; });
  for (const Edge& e : g_.edges_) g_.nodes_[e.to].has_edges = true;
  for (const Part& p : g_.parts_) g_.nodes_[p.node].has_parts = true;
  g_.nodes_.shrink_to_fit();
  g_.edges_.shrink_to_fit();
  g_.parts_.shrink_to_fit();
  g_.own_times_.shrink_to_fit();
  g_.gap_waits_.shrink_to_fit();
  g_.handoff_splits_.shrink_to_fit();
  split_pieces_ = {};
}

}  // namespace gtv::causal
