#include "gtv/causal/critical_path.h"

#include <algorithm>
#include <array>
#include <limits>

#include "call_names.h"
#include "gtv/model/collectives.h"

namespace gtv::causal {
namespace {

constexpr TimeNs kMinTime = std::numeric_limits<TimeNs>::min();

SegmentKind part_segment(PartKind kind) {
  switch (kind) {
    case PartKind::LazyLoading:
      return SegmentKind::LazyLoading;
    case PartKind::TracingOverhead:
      return SegmentKind::TracingOverhead;
    case PartKind::Unrecorded:
      break;
  }
  return SegmentKind::NotRecorded;
}

}  // namespace

SegmentKind own_segment_kind(const HappensBefore& g, NodeId id) {
  const Node& n = g.node(id);
  const Event& e = g.event(id);
  switch (n.kind) {
    case NodeKind::Kernel:
      return n.communication ? SegmentKind::Communication : SegmentKind::Kernel;
    case NodeKind::Copy:
      return SegmentKind::Copy;
    case NodeKind::Memset:
      return SegmentKind::Memset;
    case NodeKind::HostCall:
      break;
  }
  const std::string_view name = g.trace().name(e);
  if (n.end_bound || e.kind == EventKind::Sync) return SegmentKind::HostSyncCall;
  const detail::CallWait wait = detail::call_wait(name);
  if (wait == detail::CallWait::Explicit || wait == detail::CallWait::Implicit) return SegmentKind::HostSyncCall;
  if (detail::is_launch_call(name) || wait == detail::CallWait::AsyncCopy) return SegmentKind::HostLaunch;
  return SegmentKind::HostCall;
}

namespace {

class Walker {
 public:
  Walker(const HappensBefore& g, const Timeline& t, const Removal& removal, CriticalPath& out)
      : g_(g), t_(t), removal_(removal), out_(out) {}

  // Walks back from (node, end_point) whose time is `at`, emitting segments down to the window's start.
  void walk(NodeId node, bool end_point) {
    const std::size_t limit = 4 * g_.size() + 16;
    for (std::size_t steps = 0; node != kNoNode; ++steps) {
      if (steps == limit) {
        out_.truncated = true;
        return;
      }
      // A launch's work may start before the call returns: walking to the call's end then goes later in time,
      // and what the walk emits from there is cut at the earliest time it has reached.
      const TimeNs at = end_point ? t_.end_ns[node] : t_.start_ns[node];
      ceiling_ = std::min(ceiling_, at);
      if (ceiling_ <= out_.window.start_ns) return;
      inputs_of(g_, node, end_point, removal_, inputs_);
      const Input* best = binding_input(at);
      if (!best || best->from == Input::From::Root) {
        // Before a thread's first call it did its own work from its first recorded event on, and before that
        // nothing was recorded; GPU work with no input recorded (no launch) has no known cause.
        if (g_.node(node).kind == NodeKind::HostCall) {
          const std::vector<Event>& events = g_.trace().lane(g_.lane_of(node)).events;
          const TimeNs first = std::min(at, events.empty() ? at : events.front().start_ns);
          emit(first, at, SegmentKind::HostOwnWork, node);
          emit(out_.window.start_ns, first, SegmentKind::NotRecorded, node);
        } else {
          emit(out_.window.start_ns, at, SegmentKind::NotRecorded, node);
        }
        return;
      }
      const TimeNs from = source_time(*best);
      step(*best, node, from, at);
      // Crossing a wait into the GPU work it waited for: that work was reached through the call; back on a host
      // thread, no longer.
      if (best->from == Input::From::Edge && is_wait(g_.edges()[best->edge].kind)) via_ = node;
      node = best->source;
      end_point = best->source_end;
      if (g_.node(node).kind == NodeKind::HostCall) via_ = kNoNode;
    }
  }

  // The tail of a window that ends on a host thread after (or inside) its last call.
  void emit_tail(NodeId node, TimeNs from, TimeNs to, SegmentKind kind) { emit(from, to, kind, node); }

 private:
  [[nodiscard]] TimeNs source_time(const Input& in) const {
    return in.source_end ? t_.end_ns[in.source] : t_.start_ns[in.source];
  }

  // The input that set the time: the one whose source time plus delay equals it. On ties the node's own time wins,
  // then its stream or thread, then an edge, then its launch: the explanation closest to the node.
  const Input* binding_input(TimeNs at) const {
    static constexpr std::array<int, 5> kRank{4, 0, 1, 3, 2};  // by Input::From: Root, OwnStart, Chain, Launch, Edge
    const Input* best = nullptr;
    for (const Input& in : inputs_) {
      const TimeNs v = in.from == Input::From::Root ? in.delay_ns : saturating_add(source_time(in), in.delay_ns);
      if (v != at) continue;
      if (!best || kRank[static_cast<std::size_t>(in.from)] < kRank[static_cast<std::size_t>(best->from)]) best = &in;
    }
    return best;
  }

  void step(const Input& in, NodeId node, TimeNs from, TimeNs at) {
    if (in.from == Input::From::OwnStart) {
      emit_with_parts(node, false, from, at, own_segment_kind(g_, node));
    } else if (in.from == Input::From::Chain) {
      if (g_.node(node).kind == NodeKind::HostCall)
        emit_with_parts(node, true, from, at, SegmentKind::HostOwnWork);
      else
        emit(from, at, gpu_wait(node, SegmentKind::StreamGap), node);
    } else if (in.from == Input::From::Launch) {
      emit(from, at, gpu_wait(node, SegmentKind::LaunchLatency), node);
    } else {
      const Edge& e = g_.edges()[in.edge];
      if (e.kind == EdgeKind::Collective) {
        emit(from, at, SegmentKind::Communication, node);
      } else if (e.kind == EdgeKind::Handoff) {
        emit_handoff(e, node, from, at);
      } else if (e.kind == EdgeKind::EventWait) {
        emit(from, at, SegmentKind::EventWait, node);
      } else {
        emit_with_parts(node, false, from, at, SegmentKind::SyncWake);  // a drain's wake holds the load
      }
    }
  }

  // A handoff's delay: the source thread's time up to where the other thread's recorded activity begins (or ends),
  // its unrecorded part last; then the target thread's, its unrecorded part first (the walk goes backwards: the
  // later pieces come out first).
  void emit_handoff(const Edge& e, NodeId node, TimeNs from, TimeNs at) {
    const HappensBefore::HandoffSplit h = g_.handoff_split(e.from, node);
    const TimeNs split = std::clamp(from + (h.at_ns - g_.recorded_end(e.from)), from, at);
    const TimeNs woken = std::min(at, split + h.to_unrecorded_ns);
    emit(woken, at, SegmentKind::HostOwnWork, node);
    emit(split, woken, SegmentKind::NotRecorded, node);
    const TimeNs calling = std::max(from, split - h.from_unrecorded_ns);
    emit(calling, split, SegmentKind::NotRecorded, e.from);
    emit(from, calling, SegmentKind::HostOwnWork, e.from);
  }

  [[nodiscard]] SegmentKind gpu_wait(NodeId node, SegmentKind otherwise) const {
    return g_.node(node).held_by_other_streams ? SegmentKind::HeldByOtherStreams : otherwise;
  }

  // [from, at) of a node's own time (or of the gap before it), with the parts a cause spent there split off at the
  // end of it, as much as fits (the walk goes backwards: they come out first).
  void emit_with_parts(NodeId node, bool in_gap, TimeNs from, TimeNs at, SegmentKind rest) {
    TimeNs cursor = at;
    const bool removable = !removal_.applies_to || removal_.applies_to(node);
    const Part* placed = nullptr;  // unrecorded time keeps its recorded place in the gap
    for (const Part& p : g_.parts_of(node)) {
      if (p.in_gap != in_gap || (removable && (removal_.parts & bit(p.kind)))) continue;
      if (p.kind == PartKind::Unrecorded) {
        placed = &p;
        continue;
      }
      const TimeNs len = std::min(p.ns, cursor - from);
      if (len <= 0) break;
      emit(cursor - len, cursor, part_segment(p.kind), node);
      cursor -= len;
    }
    if (placed != nullptr) {
      const TimeNs a = std::clamp(from + placed->offset_ns, from, cursor), b = std::min(cursor, a + placed->ns);
      emit(b, cursor, rest, node);
      emit(a, b, part_segment(placed->kind), node);
      cursor = a;
    }
    emit(from, cursor, rest, node);
  }

  void emit(TimeNs from, TimeNs at, SegmentKind kind, NodeId node) {
    from = std::max(from, out_.window.start_ns);
    at = std::min({at, out_.window.end_ns, ceiling_});
    if (from >= at) return;
    const bool gpu = node != kNoNode && g_.node(node).kind != NodeKind::HostCall;
    out_.segments.push_back({from, at, kind, node, gpu ? via_ : kNoNode});
  }

  static bool is_wait(EdgeKind kind) {
    return kind == EdgeKind::Sync || kind == EdgeKind::ImplicitSync || kind == EdgeKind::QueueFull ||
           kind == EdgeKind::LazyLoadDrain;
  }

  const HappensBefore& g_;
  const Timeline& t_;
  const Removal& removal_;
  CriticalPath& out_;
  std::vector<Input> inputs_;
  NodeId via_ = kNoNode;
  TimeNs ceiling_ = std::numeric_limits<TimeNs>::max();
};

// The point the window ends at: the end of measured GPU work, or a measuring thread's time after (or inside) a call.
struct Sink {
  NodeId node = kNoNode;
  bool end_point = true;
  TimeNs tail_from = 0;  // a host tail: [tail_from, window end) before walking on from the point
  SegmentKind tail_kind = SegmentKind::HostOwnWork;
};

Sink find_sink(const HappensBefore& g, const Timeline& t, const Window& w, TimeNs end_ns) {
  Sink best;
  for (const NodeId n : w.work)
    if (t.end_ns[n] == end_ns) return {n, true, end_ns, SegmentKind::HostOwnWork};
  for (const Window::Measured& m : w.measured) {
    if (m.lane == Window::kNoLane) continue;
    const NodeId n = g.node_at_or_before(m.lane, m.host_end_ns);
    if (n == kNoNode) continue;
    if (m.host_end_ns < g.recorded_end(n)) {
      const TimeNs moved = std::min(t.start_ns[n] + (m.host_end_ns - g.recorded_start(n)), t.end_ns[n]);
      if (moved == end_ns) return {n, false, t.start_ns[n], own_segment_kind(g, n)};
    } else if (t.end_ns[n] + (m.host_end_ns - g.recorded_end(n)) == end_ns) {
      return {n, true, t.end_ns[n], SegmentKind::HostOwnWork};
    }
  }
  if (w.measured.empty()) {
    TimeNs last = kMinTime;
    for (NodeId n = 0; n < g.size(); ++n)
      if (t.end_ns[n] > last) {
        // What the trace holds after its last call or GPU work: a thread's own work, or nothing recorded.
        const bool host = g.node(n).kind == NodeKind::HostCall;
        last = t.end_ns[n], best = {n, true, t.end_ns[n], host ? SegmentKind::HostOwnWork : SegmentKind::NotRecorded};
      }
  }
  return best;
}

}  // namespace

std::string_view to_string(SegmentKind kind) { return entry_of(kSegmentKinds, kind).words; }

std::string_view segment_key(SegmentKind kind) { return entry_of(kSegmentKinds, kind).key; }

bool on_gpu(SegmentKind kind) {
  return kind == SegmentKind::Kernel || kind == SegmentKind::Copy || kind == SegmentKind::Memset ||
         kind == SegmentKind::Communication;
}

CriticalPath critical_path(const HappensBefore& g, const Timeline& t, const Window& w, const Removal& removal) {
  CriticalPath out;
  out.window = window_in(g, t, w);
  if (out.window.length_ns() == 0 || g.size() == 0) return out;
  const Sink sink = find_sink(g, t, w, out.window.end_ns);
  Walker walker(g, t, removal, out);
  if (sink.node == kNoNode) {
    walker.emit_tail(kNoNode, out.window.start_ns, out.window.end_ns, SegmentKind::NotRecorded);
  } else {
    walker.emit_tail(sink.node, sink.tail_from, out.window.end_ns, sink.tail_kind);
    walker.walk(sink.node, sink.end_point);
  }
  std::reverse(out.segments.begin(), out.segments.end());
  out.segments.shrink_to_fit();
  return out;
}

Effect effect_of(const HappensBefore& g, const Timeline& unchanged, const Window& w, const Removal& removal) {
  return {window_in(g, unchanged, w).length_ns(), window_in(g, replay(g, removal), w).length_ns()};
}

Effect effect_of(const ReplayPlan& plan, const Window& w, const Removal& removal) {
  const HappensBefore& g = plan.graph();
  return {window_in(g, plan.unchanged(), w).length_ns(), window_in(g, plan.replay(removal), w).length_ns()};
}

std::function<bool(NodeId)> inside(const HappensBefore& g, const Window& w) {
  return [&g, start = w.start_ns, end = w.end_ns](NodeId n) {
    const TimeNs t = g.recorded_start(n);
    return t >= start && t < end;
  };
}

}  // namespace gtv::causal
