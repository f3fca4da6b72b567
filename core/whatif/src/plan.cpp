#include "plan.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <utility>

namespace gtv::whatif {
namespace {

using causal::Input;
using causal::kNoNode;
using causal::NodeKind;

constexpr TimeNs kMinTime = std::numeric_limits<TimeNs>::min();

PlanInput copy_input(const causal::HappensBefore& g, const Input& in) {
  PlanInput out{in.from, in.source, in.source_end, in.delay_ns, causal::EdgeKind::ProgramOrder};
  if (in.from == Input::From::Edge) out.edge = g.edges()[in.edge].kind;
  return out;
}

enum class State : std::uint8_t { Unvisited, Active, Done };

// Depth first over the points an input waits for (start: 2n, end: 2n + 1), as causal::replay does.
class PlanReplayer {
 public:
  PlanReplayer(const Plan& plan, const std::vector<double>& scale) : p_(plan), scale_(scale) {
    t_.start_ns.assign(plan.size(), 0);
    t_.end_ns.assign(plan.size(), 0);
    state_.assign(2 * plan.size(), State::Unvisited);
  }

  causal::Timeline run() {
    for (std::uint64_t q = 0; q < state_.size(); ++q)
      if (state_[q] == State::Unvisited) visit(q);
    return std::move(t_);
  }

 private:
  [[nodiscard]] const std::vector<PlanInput>& inputs(std::uint64_t q) const {
    return (q & 1) ? p_.end_in[q / 2] : p_.start_in[q / 2];
  }
  TimeNs& value(std::uint64_t q) { return (q & 1) ? t_.end_ns[q / 2] : t_.start_ns[q / 2]; }
  static std::uint64_t point_of(const PlanInput& in) { return 2 * std::uint64_t(in.source) + (in.source_end ? 1 : 0); }

  void visit(std::uint64_t root) {
    stack_.push_back({root, 0});
    state_[root] = State::Active;
    while (!stack_.empty()) {
      Frame& f = stack_.back();
      const std::vector<PlanInput>& ins = inputs(f.point);
      // The end point also waits for its own start.
      const std::size_t count = ins.size() + ((f.point & 1) ? 1 : 0);
      bool descended = false;
      for (; f.next < count; ++f.next) {
        std::uint64_t q = 0;
        if (f.next == ins.size()) {
          q = f.point - 1;
        } else {
          if (ins[f.next].from == Input::From::Root) continue;
          q = point_of(ins[f.next]);
        }
        if (state_[q] != State::Unvisited) continue;
        state_[q] = State::Active;
        stack_.push_back({q, 0});
        descended = true;
        break;
      }
      if (descended) continue;
      const std::uint64_t point = f.point;
      compute(point);
      state_[point] = State::Done;
      stack_.pop_back();
    }
  }

  void compute(std::uint64_t q) {
    TimeNs v = kMinTime;
    const NodeId n = NodeId(q / 2);
    if (q & 1) {
      const double s = scale_.empty() ? 1.0 : scale_[n];
      const TimeNs own = s == 1.0 ? p_.own_ns[n] : TimeNs(double(p_.own_ns[n]) * s);
      if (state_[q - 1] == State::Done) v = t_.start_ns[n] + own;
    }
    for (const PlanInput& in : inputs(q)) {
      if (in.from == Input::From::Root) {
        v = std::max(v, in.delay_ns);
        continue;
      }
      const std::uint64_t src = point_of(in);
      if (state_[src] != State::Done) {
        ++t_.cycles_broken;
        continue;
      }
      v = std::max(v, saturating_add(value(src), in.delay_ns));
    }
    if (v == kMinTime) v = (q & 1) ? p_.g().recorded_end(n) : p_.g().recorded_start(n);
    value(q) = v;
  }

  const Plan& p_;
  const std::vector<double>& scale_;
  causal::Timeline t_;
  std::vector<State> state_;
  struct Frame {
    std::uint64_t point;
    std::size_t next;
  };
  std::vector<Frame> stack_;
};

}  // namespace

void Plan::assume(std::string sentence) {
  if (std::find(assumptions.begin(), assumptions.end(), sentence) == assumptions.end())
    assumptions.push_back(std::move(sentence));
}

Plan make_plan(const causal::HappensBefore& g) {
  Plan p;
  p.graph = &g;
  const std::size_t n = g.size();
  p.start_in.resize(n);
  p.end_in.resize(n);
  p.own_ns.resize(n);
  p.stream.assign(n, StreamKey{});
  p.sm_share.assign(n, 1.0F);
  std::vector<Input> ins;
  const causal::Removal none;
  for (NodeId id = 0; id < n; ++id) {
    causal::inputs_of(g, id, false, none, ins);
    p.start_in[id].reserve(ins.size());
    for (const Input& in : ins) p.start_in[id].push_back(copy_input(g, in));
    causal::inputs_of(g, id, true, none, ins);
    for (const Input& in : ins) {
      if (in.from == Input::From::OwnStart) {
        p.own_ns[id] = in.delay_ns;
        continue;
      }
      p.end_in[id].push_back(copy_input(g, in));
    }
    if (g.node(id).kind != NodeKind::HostCall) {
      const Lane& lane = g.trace().lanes()[g.lane_of(id)];
      p.stream[id] = {lane.device(), lane.stream()};
    }
  }
  return p;
}

causal::Timeline replay_plan(const Plan& plan, const std::vector<double>& own_scale) {
  return PlanReplayer(plan, own_scale).run();
}

namespace {

// Per GPU node: how much longer it runs beside the other work of its GPU. While the kernels running together ask
// for more than the whole GPU (the sum of their shares of its multiprocessors, the demand), each progresses at
// 1 / demand of its solo rate (fluid sharing).
std::vector<double> sharing_slowdown(const Plan& p, const causal::Timeline& t, bool all_fill) {
  std::vector<double> out(p.size(), 1.0);
  std::map<std::int64_t, std::vector<NodeId>> by_device;
  for (NodeId n = 0; n < p.size(); ++n)
    if (p.g().node(n).kind == NodeKind::Kernel && t.end_ns[n] > t.start_ns[n])
      by_device[p.stream[n].device].push_back(n);
  struct Step {
    TimeNs at;
    double delta;
    std::uint32_t item;  // the kernel's place in `nodes`, times 2, plus 1 at its end
  };
  std::vector<Step> steps;
  std::vector<std::uint32_t> step_of;  // per item: the step function's piece it starts (or ends)
  std::vector<TimeNs> at;
  std::vector<double> demand;
  for (auto& [device, nodes] : by_device) {
    (void)device;
    steps.clear();
    steps.reserve(2 * nodes.size());
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      const NodeId n = nodes[i];
      const double share = all_fill ? 1.0 : double(p.sm_share[n]);
      steps.push_back({t.start_ns[n], share, std::uint32_t(2 * i)});
      steps.push_back({t.end_ns[n], -share, std::uint32_t(2 * i + 1)});
    }
    std::sort(steps.begin(), steps.end(), [](const Step& a, const Step& b) { return a.at < b.at; });
    // The demand as a step function: times and the demand after each; every kernel's start and end is a time of it.
    at.clear();
    demand.clear();
    step_of.assign(steps.size(), 0);
    double d = 0;
    for (std::size_t i = 0; i < steps.size(); ++i) {
      d += steps[i].delta;
      step_of[steps[i].item] = std::uint32_t(at.size());
      if (i + 1 < steps.size() && steps[i + 1].at == steps[i].at) continue;
      at.push_back(steps[i].at);
      demand.push_back(std::max(0.0, d));
    }
    // The solo-rate progress a kernel running from the first time to each time would make: the integral of 1 /
    // demand (at least 1). A kernel's progress is the value at its end less the value at its start.
    std::vector<double> progress_at(at.size(), 0.0);
    for (std::size_t i = 1; i < at.size(); ++i)
      progress_at[i] = progress_at[i - 1] + double(at[i] - at[i - 1]) / std::max(1.0, demand[i - 1]);
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      const NodeId n = nodes[i];
      const double progress = progress_at[step_of[2 * i + 1]] - progress_at[step_of[2 * i]];
      // Progress at 1 / demand of the solo rate: the own time stretches by run time over progress.
      out[n] = progress > 0 ? std::max(1.0, double(t.end_ns[n] - t.start_ns[n]) / progress) : 1.0;
    }
  }
  return out;
}

}  // namespace

std::size_t to_solo_own_times(Plan& plan) {
  if (std::exchange(plan.solo_own_times, true)) return 0;
  // The recording as it ran: recorded times on the recorded streams.
  const causal::HappensBefore& g = plan.g();
  causal::Timeline recorded;
  recorded.start_ns.resize(g.size());
  recorded.end_ns.resize(g.size());
  Plan as_recorded;
  as_recorded.graph = plan.graph;
  as_recorded.stream.resize(g.size());
  as_recorded.sm_share = plan.sm_share;
  for (NodeId n = 0; n < g.size(); ++n) {
    recorded.start_ns[n] = g.recorded_start(n);
    recorded.end_ns[n] = g.recorded_end(n);
    if (plan.is_gpu(n)) as_recorded.stream[n].device = g.trace().lanes()[g.lane_of(n)].device();
  }
  as_recorded.own_ns.resize(g.size());
  const std::vector<double> slowdown = sharing_slowdown(as_recorded, recorded, false);
  std::size_t count = 0;
  for (NodeId n = 0; n < g.size(); ++n) {
    if (slowdown[n] <= 1.0) continue;
    plan.own_ns[n] = TimeNs(double(plan.own_ns[n]) / slowdown[n]);
    ++count;
  }
  return count;
}

bool same_schedule(const Plan& a, const Plan& b) {
  return a.contention == b.contention && a.solo_own_times == b.solo_own_times && a.own_ns == b.own_ns &&
         a.stream == b.stream && a.sm_share == b.sm_share && a.start_in == b.start_in && a.end_in == b.end_in;
}

causal::Timeline replay_with_contention(const Plan& plan, bool all_fill, const causal::Window* window) {
  causal::Timeline t = replay_plan(plan);
  if (!plan.contention) return t;
  // A fixed point of "own time x slowdown of the overlap that own time produces", reached by damped steps: the
  // slowdown of a kernel depends on what runs beside it, which depends on every kernel's slowdown. Single kernels
  // may keep swinging between steps; what is predicted is the window's length, so the steps stop once it has held
  // within kSettled for kSettledSteps steps in a row.
  std::vector<double> scale(plan.size(), 1.0);
  constexpr int kSteps = 24;
  constexpr double kSettled = 1e-5;
  constexpr int kSettledSteps = 3;
  TimeNs length = window ? causal::window_in(plan.g(), t, *window).length_ns() : 0;
  int settled = 0;
  for (int step = 0; step < kSteps && settled < kSettledSteps; ++step) {
    const std::vector<double> seen = sharing_slowdown(plan, t, all_fill);
    // The slowdown seen is the own time's stretch that this timeline implies, approached half-way each step.
    for (NodeId n = 0; n < plan.size(); ++n) scale[n] = 0.5 * scale[n] + 0.5 * seen[n];
    t = replay_plan(plan, scale);
    if (!window) continue;
    const TimeNs next = causal::window_in(plan.g(), t, *window).length_ns();
    const bool held = std::abs(double(next - length)) <= kSettled * double(std::max<TimeNs>(1, length));
    settled = held ? settled + 1 : 0;
    length = next;
  }
  return t;
}

TimeNs saturated_gpu_ns(const Plan& plan, const causal::Window& window) {
  if (!plan.contention) return 0;
  std::map<std::int64_t, double> by_device;
  for (const NodeId n : window.work)
    if (plan.g().node(n).kind == NodeKind::Kernel)
      by_device[plan.stream[n].device] += double(plan.own_ns[n]) * double(plan.sm_share[n]);
  double most = 0;
  for (const auto& [device, ns] : by_device) most = std::max(most, ns);
  return TimeNs(most);
}

int model_of_range(const std::string& name) {
  constexpr std::string_view kPrefix = "model ";
  if (name.rfind(kPrefix, 0) != 0) return -1;
  int value = 0;
  std::size_t i = kPrefix.size();
  if (i >= name.size() || name[i] < '0' || name[i] > '9') return -1;
  for (; i < name.size() && name[i] >= '0' && name[i] <= '9'; ++i) value = value * 10 + (name[i] - '0');
  return value;
}

std::vector<int> forward_range_of_host_nodes(const causal::HappensBefore& g) {
  const Trace& trace = g.trace();
  std::vector<int> out(g.size(), -1);
  std::map<std::pair<std::int64_t, std::int64_t>, std::vector<int>> by_thread;
  for (std::size_t i = 0; i < trace.ranges().size(); ++i) {
    const Range& r = trace.ranges()[i];
    if (r.kind == RangeKind::Forward) by_thread[{r.pid, r.tid}].push_back(int(i));
  }
  for (auto& [key, ranges] : by_thread) {
    std::sort(ranges.begin(), ranges.end(),
              [&](int a, int b) { return trace.ranges()[a].start_ns < trace.ranges()[b].start_ns; });
    const auto lane = trace.find_lane(host_lane_key(key.first, key.second));
    if (!lane) continue;
    const causal::HappensBefore::IdRange ids = g.lane_nodes(*lane);
    std::size_t r = 0;
    for (NodeId n = ids.first; n < ids.last; ++n) {
      const TimeNs s = g.recorded_start(n);
      while (r < ranges.size() && trace.ranges()[ranges[r]].end_ns <= s) ++r;
      if (r < ranges.size() && trace.ranges()[ranges[r]].start_ns <= s) out[n] = ranges[r];
    }
  }
  return out;
}

}  // namespace gtv::whatif
