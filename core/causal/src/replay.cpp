#include "gtv/causal/replay.h"

#include <algorithm>
#include <limits>
#include <span>

namespace gtv::causal {
namespace {

constexpr TimeNs kMinTime = std::numeric_limits<TimeNs>::min();

bool applies(const Removal& removal, NodeId node) { return !removal.applies_to || removal.applies_to(node); }

bool edge_removed(const Removal& removal, const Edge& e) {
  return (removal.edges & bit(e.kind)) != 0 && applies(removal, e.to);
}

TimeNs removed_parts_ns(const HappensBefore& g, NodeId node, bool in_gap, const Removal& removal) {
  if (removal.parts == 0 || !applies(removal, node)) return 0;
  TimeNs out = 0;
  for (const Part& p : g.parts_of(node))
    if (p.in_gap == in_gap && (removal.parts & bit(p.kind))) out += p.ns;
  return out;
}

}  // namespace

// Dropping a node's own time (or its gap) takes the time no part accounts for; the parts go only when their kind is
// removed, so removals of different causes take disjoint time.
TimeNs kept_time(const HappensBefore& g, NodeId node, bool in_gap, TimeNs total_ns, bool dropped,
                 const Removal& removal) {
  const std::span<const Part> parts = g.parts_of(node);
  TimeNs parts_ns = 0;
  for (const Part& p : parts)
    if (p.in_gap == in_gap) parts_ns += p.ns;
  const TimeNs removed_ns = parts.empty() ? 0 : removed_parts_ns(g, node, in_gap, removal);
  const TimeNs kept = dropped ? parts_ns - removed_ns : total_ns - removed_ns;
  return std::max<TimeNs>(0, kept);
}

TimeNs own_time_after(const HappensBefore& g, NodeId node, const Removal& removal) {
  const bool dropped = removal.drop_own_time && removal.drop_own_time(node);
  return kept_time(g, node, false, g.own_ns(node), dropped, removal);
}

TimeNs gap_after(const HappensBefore& g, NodeId node, const Removal& removal) {
  const NodeId prev = g.node(node).chain_prev;
  if (prev == kNoNode) return 0;
  const bool dropped = removal.drop_gap && removal.drop_gap(node);
  const TimeNs own_gap = std::max<TimeNs>(0, g.recorded_start(node) - g.recorded_end(prev) - g.gap_wait_ns(node));
  return kept_time(g, node, true, own_gap, dropped, removal);
}

namespace {

// Calls `take(input)` for each input of a point under a removal; the one definition of a point's inputs, which the
// searching replay lists and the ordered replay folds.
template <typename Take>
void for_each_input(const HappensBefore& g, NodeId id, bool end_point, const Removal& removal, Take&& take) {
  const Node& n = g.node(id);
  const std::span<const Edge> all = g.edges();
  if (end_point) {
    const TimeNs own = own_time_after(g, id, removal);
    take(Input{Input::From::OwnStart, id, false, own, 0});
    if (!n.has_edges) return;
    for (const Edge& e : g.edges_into(id)) {
      if (!e.to_end() || edge_removed(removal, e)) continue;
      TimeNs delay = 0;
      if (e.kind == EdgeKind::Collective)
        delay = g.own_ns(id);
      else if (e.binding)
        delay = g.recorded_end(id) - g.recorded_end(e.from);
      take(Input{Input::From::Edge, e.from, !e.from_start(), delay, std::uint32_t(&e - all.data())});
    }
    return;
  }
  const TimeNs start = g.recorded_start(id);
  bool any = false;
  if (n.kind == NodeKind::HostCall) {
    if (n.chain_prev != kNoNode) {
      take(Input{Input::From::Chain, n.chain_prev, true, gap_after(g, id, removal), 0});
      any = true;
    }
    // A thread handoff: the call waited for another thread's call, by the recorded delay. A host collective: the
    // call waited for every rank's arrival, by the transfer after the last one (as recorded, whatever is removed).
    if (n.has_edges) {
      TimeNs last_arrival = kMinTime;
      for (const Edge& e : g.edges_into(id))
        if (e.from_start() && !e.to_end()) last_arrival = std::max(last_arrival, g.recorded_start(e.from));
      for (const Edge& e : g.edges_into(id))
        if (!e.to_end() && !edge_removed(removal, e)) {
          const TimeNs delay = e.from_start() ? start - last_arrival : start - g.recorded_end(e.from);
          take(Input{Input::From::Edge, e.from, !e.from_start(), delay, std::uint32_t(&e - all.data())});
          any = true;
        }
    }
    if (!any) take(Input{Input::From::Root, kNoNode, true, start, 0});
    return;
  }
  if (n.chain_prev != kNoNode) {
    // Work that overlapped the work before it on its stream keeps that overlap (a negative delay); work that waited
    // for something else follows it, once queued behind it, by the stream's queued gap at most.
    const TimeNs gap = start - g.recorded_end(n.chain_prev);
    const TimeNs delay = n.start_binding == StartBinding::Chain ? gap : std::min(g.queued_gap_ns(), gap);
    take(Input{Input::From::Chain, n.chain_prev, true, delay, 0});
    any = true;
  }
  if (n.launch != kNoNode) {
    const TimeNs delay =
        n.start_binding == StartBinding::Launch ? start - g.recorded_handover(n.launch) : g.min_launch_latency_ns();
    take(Input{Input::From::Launch, n.launch, !g.node(n.launch).launches_from_start(), delay, 0});
    any = true;
  }
  if (n.has_edges)
    for (const Edge& e : g.edges_into(id)) {
      if (e.to_end() || edge_removed(removal, e)) continue;
      const TimeNs delay = e.binding ? start - g.recorded_end(e.from) : 0;
      take(Input{Input::From::Edge, e.from, true, delay, std::uint32_t(&e - all.data())});
      any = true;
    }
  if (!any) take(Input{Input::From::Root, kNoNode, true, start, 0});
}

// Points: 2 * node for its start, 2 * node + 1 for its end.
enum class State : std::uint8_t { Unvisited, Active, Done };

class Replayer {
 public:
  Replayer(const HappensBefore& g, const Removal& removal, std::vector<std::uint32_t>* order = nullptr)
      : g_(g), removal_(removal), order_(order) {
    t_.start_ns.assign(g.size(), 0);
    t_.end_ns.assign(g.size(), 0);
    state_.assign(2 * g.size(), State::Unvisited);
  }

  Timeline run() {
    for (std::uint64_t p = 0; p < state_.size(); ++p)
      if (state_[p] == State::Unvisited) visit(p);
    return std::move(t_);
  }

 private:
  struct Frame {
    std::uint64_t point;
    std::size_t first;  // its inputs: inputs_[first, end), end the next frame's first or inputs_.size()
    std::size_t next;   // the next input to look at
  };

  [[nodiscard]] static std::uint64_t point_of(const Input& in) {
    return 2 * std::uint64_t(in.source) + (in.source_end ? 1 : 0);
  }
  TimeNs& value(std::uint64_t p) { return (p & 1) ? t_.end_ns[p / 2] : t_.start_ns[p / 2]; }

  // Pushes a point with its inputs, which stay on the input stack while it is: a point returned to after each of
  // its inputs is computed (a synchronize that 10^5 links wait into) looks its inputs up once, not once per input.
  void push(std::uint64_t p) {
    state_[p] = State::Active;
    const std::size_t first = inputs_.size();
    for_each_input(g_, NodeId(p / 2), (p & 1) != 0, removal_, [this](const Input& in) { inputs_.push_back(in); });
    stack_.push_back({p, first, first});
  }

  // Depth first over the points an input waits for, with an explicit stack: a point is computed once all its
  // inputs are. An input whose source is still on the stack closes a cycle (corrupt links) and is skipped.
  void visit(std::uint64_t root) {
    push(root);
    while (!stack_.empty()) {
      const std::size_t top = stack_.size() - 1;
      bool descended = false;
      while (stack_[top].next < inputs_.size()) {
        const Input& in = inputs_[stack_[top].next++];
        if (in.from == Input::From::Root) continue;
        const std::uint64_t q = point_of(in);
        if (state_[q] != State::Unvisited) continue;
        push(q);
        descended = true;
        break;
      }
      if (descended) continue;
      const Frame f = stack_.back();
      compute(f.point, std::span<const Input>(inputs_).subspan(f.first));
      state_[f.point] = State::Done;
      if (order_ != nullptr) order_->push_back(static_cast<std::uint32_t>(f.point));
      inputs_.resize(f.first);
      stack_.pop_back();
    }
  }

  void compute(std::uint64_t p, std::span<const Input> inputs) {
    TimeNs v = kMinTime;
    for (const Input& in : inputs) {
      if (in.from == Input::From::Root) {
        v = std::max(v, in.delay_ns);
        continue;
      }
      const std::uint64_t q = point_of(in);
      if (state_[q] != State::Done) {
        ++t_.cycles_broken;
        continue;
      }
      v = std::max(v, saturating_add(value(q), in.delay_ns));
    }
    if (v == kMinTime) v = (p & 1) ? g_.recorded_end(NodeId(p / 2)) : g_.recorded_start(NodeId(p / 2));
    value(p) = v;
  }

  const HappensBefore& g_;
  const Removal& removal_;
  std::vector<std::uint32_t>* order_;  // records the points in the order they were computed
  Timeline t_;
  std::vector<State> state_;
  std::vector<Frame> stack_;
  std::vector<Input> inputs_;  // the inputs of the points on the stack, in stack order
};

}  // namespace

void inputs_of(const HappensBefore& g, NodeId id, bool end_point, const Removal& removal, std::vector<Input>& out) {
  out.clear();
  for_each_input(g, id, end_point, removal, [&out](const Input& in) { out.push_back(in); });
}

Timeline replay(const HappensBefore& graph, const Removal& removal) { return Replayer(graph, removal).run(); }

ReplayPlan::ReplayPlan(const HappensBefore& graph) : graph_(&graph) {
  const bool fits = 2 * std::uint64_t(graph.size()) <= std::numeric_limits<std::uint32_t>::max();
  if (fits) order_.reserve(2 * graph.size());
  unchanged_ = Replayer(graph, {}, fits ? &order_ : nullptr).run();
  if (unchanged_.cycles_broken > 0) order_ = {};
}

namespace {

// One point of an ordered replay: every source comes before the point in the order, so the maximum is the one the
// searching replay computes.
void replay_point(const HappensBefore& g, std::uint32_t p, const Removal& removal, Timeline& t) {
  const NodeId node = p / 2;
  const bool end_point = (p & 1) != 0;
  TimeNs v = kMinTime;
  for_each_input(g, node, end_point, removal, [&v, &t](const Input& in) {
    if (in.from == Input::From::Root) {
      v = std::max(v, in.delay_ns);
      return;
    }
    const TimeNs source = in.source_end ? t.end_ns[in.source] : t.start_ns[in.source];
    v = std::max(v, saturating_add(source, in.delay_ns));
  });
  if (v == kMinTime) v = end_point ? g.recorded_end(node) : g.recorded_start(node);
  (end_point ? t.end_ns : t.start_ns)[node] = v;
}

}  // namespace

Timeline ReplayPlan::replay(const Removal& removal) const {
  std::vector<Timeline> one = replay_all(std::span<const Removal>(&removal, 1));
  return std::move(one.front());
}

std::vector<Timeline> ReplayPlan::replay_all(std::span<const Removal> removals) const {
  const HappensBefore& g = *graph_;
  std::vector<Timeline> out(removals.size());
  if (order_.empty() && g.size() > 0) {
    for (std::size_t k = 0; k < removals.size(); ++k) out[k] = causal::replay(g, removals[k]);
    return out;
  }
  for (Timeline& t : out) {
    t.start_ns.resize(g.size());
    t.end_ns.resize(g.size());
  }
  // One pass over the order for all removals: a point's node, edges and recorded times are read from memory once
  // and stay in cache for the other removals.
  for (const std::uint32_t p : order_)
    for (std::size_t k = 0; k < removals.size(); ++k) replay_point(g, p, removals[k], out[k]);
  return out;
}

}  // namespace gtv::causal
