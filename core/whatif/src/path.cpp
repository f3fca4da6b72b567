// The critical path of a plan's replay, walked back from the window's end along the input that set each time.
#include <algorithm>
#include <map>

#include "plan.h"

namespace gtv::whatif {
namespace {

using causal::Input;
using causal::kNoNode;

std::string own_name(const Plan& p, NodeId n) {
  const causal::SegmentKind kind = causal::own_segment_kind(p.g(), n);
  std::string name(causal::to_string(kind));
  if (causal::on_gpu(kind)) return "GPU " + std::to_string(p.stream[n].device) + " " + name;
  return name;
}

std::string input_name(const Plan& p, NodeId n, const PlanInput& in) {
  switch (in.from) {
    case Input::From::Chain:
      return p.is_gpu(n) ? std::string(causal::to_string(causal::SegmentKind::StreamGap))
                         : std::string(causal::to_string(causal::SegmentKind::HostOwnWork));
    case Input::From::Launch:
      return std::string(causal::to_string(causal::SegmentKind::LaunchLatency));
    case Input::From::Edge:
      if (in.edge == causal::EdgeKind::Handoff) return std::string(causal::to_string(causal::SegmentKind::HostOwnWork));
      return in.edge == causal::EdgeKind::EventWait ? std::string(causal::to_string(causal::SegmentKind::EventWait))
                                                    : std::string(causal::to_string(causal::SegmentKind::SyncWake));
    default:
      return std::string(causal::to_string(causal::SegmentKind::NotRecorded));
  }
}

TimeNs time_of(const causal::Timeline& t, NodeId n, bool end) { return end ? t.end_ns[n] : t.start_ns[n]; }

}  // namespace

std::vector<PathTime> plan_path(const Plan& p, const causal::Timeline& t, const causal::Window& w) {
  const causal::HappensBefore& g = p.g();
  const causal::WindowTimes times = causal::window_in(g, t, w);
  std::map<std::string, TimeNs> by_kind;
  auto add = [&](const std::string& what, TimeNs from, TimeNs to) {
    from = std::max(from, times.start_ns);
    to = std::min(to, times.end_ns);
    if (to > from) by_kind[what] += to - from;
  };
  // The point that ends the window: the latest end among the measured work and the measuring threads' last calls.
  NodeId node = kNoNode;
  TimeNs best = std::numeric_limits<TimeNs>::min();
  for (const NodeId n : w.work)
    if (t.end_ns[n] > best) best = t.end_ns[n], node = n;
  for (const causal::Window::Measured& m : w.measured) {
    if (m.lane == causal::Window::kNoLane) continue;
    const NodeId n = g.node_at_or_before(m.lane, m.host_end_ns);
    if (n != kNoNode && t.end_ns[n] > best) best = t.end_ns[n], node = n;
  }
  if (w.measured.empty())
    for (NodeId n = 0; n < g.size(); ++n)
      if (t.end_ns[n] > best) best = t.end_ns[n], node = n;
  if (node == kNoNode) return {};
  add(std::string(causal::to_string(causal::SegmentKind::HostOwnWork)), best, times.end_ns);
  bool end = true;
  for (std::size_t steps = 0; node != kNoNode && steps < 4 * g.size() + 4; ++steps) {
    const TimeNs v = time_of(t, node, end);
    if (v <= times.start_ns) break;
    const PlanInput* binding = nullptr;
    TimeNs binding_at = std::numeric_limits<TimeNs>::min();
    for (const PlanInput& in : end ? p.end_in[node] : p.start_in[node]) {
      if (in.from == Input::From::Root) continue;
      const TimeNs at = time_of(t, in.source, in.source_end);
      if (saturating_add(at, in.delay_ns) == v && at > binding_at) binding = &in, binding_at = at;
    }
    if (end) {
      // An edge that set the end later than the node's own time would have: follow it, else the own time.
      if (binding != nullptr && v > t.start_ns[node] && binding_at >= t.start_ns[node]) {
        add(input_name(p, node, *binding), binding_at, v);
        node = binding->source;
        end = binding->source_end;
        continue;
      }
      add(own_name(p, node), t.start_ns[node], v);
      end = false;
      continue;
    }
    if (binding == nullptr) {
      add(std::string(causal::to_string(causal::SegmentKind::NotRecorded)), times.start_ns, v);
      break;
    }
    add(input_name(p, node, *binding), binding_at, v);
    node = binding->source;
    end = binding->source_end;
  }
  std::vector<PathTime> out;
  out.reserve(by_kind.size());
  for (auto& [what, ns] : by_kind) out.push_back({what, ns});
  std::sort(out.begin(), out.end(), [](const PathTime& a, const PathTime& b) { return a.ns > b.ns; });
  return out;
}

}  // namespace gtv::whatif
