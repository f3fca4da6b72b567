#include "plan.h"

#include <algorithm>
#include <array>
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

// The plan's replay as a straight-line program. The order in which causal::replay's depth-first walk computes
// the points (start: 2n, end: 2n + 1), and which inputs it skips because they close a cycle, depend only on the
// inputs, not on the times; so the walk is made once and every replay, with any scale of the own times, is one
// pass over the steps in that order, each the latest of its inputs.
class ReplayProgram {
 public:
  explicit ReplayProgram(const Plan& plan) : p_(plan) {
    const std::size_t points = 2 * plan.size();
    step_of_.assign(points, 0);
    state_.assign(points, State::Unvisited);
    point_.reserve(points);
    first_.reserve(points + 1);
    for (std::uint64_t q = 0; q < points; ++q)
      if (state_[q] == State::Unvisited) visit(q);
    first_.push_back(std::uint32_t(src_.size()));
    state_ = {};
    step_of_ = {};
    stack_ = {};
  }

  [[nodiscard]] causal::Timeline run(const std::vector<double>& scale) const {
    causal::Timeline t;
    std::vector<TimeNs> value;
    run(scale, value, t);
    return t;
  }

  // The same into `t`, with `value` (one time per step) as scratch: a caller replaying many times keeps both.
  void run(const std::vector<double>& scale, std::vector<TimeNs>& value, causal::Timeline& t) const {
    value.resize(point_.size());
    for (std::size_t s = 0; s < point_.size(); ++s) {
      TimeNs v = kMinTime;
      std::uint32_t i = first_[s];
      const std::uint32_t last = first_[s + 1];
      if (own_[s] != 0) {
        // The end point's own time after its start: the input's delay is the own time, scaled.
        const NodeId n = NodeId(point_[s] / 2);
        const double k = scale.empty() ? 1.0 : scale[n];
        const TimeNs own = k == 1.0 ? delay_[i] : clamped_ns(double(delay_[i]) * k);
        v = saturating_add(value[src_[i]], own);
        ++i;
      }
      for (; i < last; ++i) {
        const std::uint32_t src = src_[i];
        v = std::max(v, src == kRoot ? delay_[i] : saturating_add(value[src], delay_[i]));
      }
      value[s] = v;
    }
    t.start_ns.resize(p_.size());
    t.end_ns.resize(p_.size());
    for (std::size_t s = 0; s < point_.size(); ++s) {
      const std::uint32_t q = point_[s];
      ((q & 1) ? t.end_ns : t.start_ns)[q / 2] = value[s];
    }
    t.cycles_broken = cycles_broken_;
  }

 private:
  static constexpr std::uint32_t kRoot = std::numeric_limits<std::uint32_t>::max();

  [[nodiscard]] const std::vector<PlanInput>& inputs(std::uint64_t q) const {
    return (q & 1) ? p_.end_in[q / 2] : p_.start_in[q / 2];
  }
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
      add_step(point);
      state_[point] = State::Done;
      stack_.pop_back();
    }
  }

  // The step that computes point q, from the inputs already computed; an input whose source is not (it closes a
  // cycle) is left out and counted.
  void add_step(std::uint64_t q) {
    const NodeId n = NodeId(q / 2);
    step_of_[q] = std::uint32_t(point_.size());
    point_.push_back(std::uint32_t(q));
    first_.push_back(std::uint32_t(src_.size()));
    const bool own = (q & 1) && state_[q - 1] == State::Done;
    own_.push_back(own ? 1 : 0);
    if (own) {
      src_.push_back(step_of_[q - 1]);
      delay_.push_back(p_.own_ns[n]);
    }
    for (const PlanInput& in : inputs(q)) {
      if (in.from == Input::From::Root) {
        src_.push_back(kRoot);
        delay_.push_back(in.delay_ns);
        continue;
      }
      const std::uint64_t src = point_of(in);
      if (state_[src] != State::Done) {
        ++cycles_broken_;
        continue;
      }
      src_.push_back(step_of_[src]);
      delay_.push_back(in.delay_ns);
    }
    // Nothing holds the point: it stays where the recording has it.
    if (src_.size() == first_.back()) {
      src_.push_back(kRoot);
      delay_.push_back((q & 1) ? p_.g().recorded_end(n) : p_.g().recorded_start(n));
    }
  }

  const Plan& p_;
  std::vector<std::uint32_t> point_;  // per step: the point it computes
  std::vector<std::uint32_t> first_;  // per step, and one past the last: its first input
  std::vector<std::uint8_t> own_;     // per step: 1 when its first input is the end's own time after its start
  std::vector<std::uint32_t> src_;    // per input: the step that computes its source, or kRoot
  std::vector<TimeNs> delay_;         // per input: added to the source's time (kRoot: the time itself)
  std::size_t cycles_broken_ = 0;
  // While the program is made:
  std::vector<std::uint32_t> step_of_;  // per point
  std::vector<State> state_;            // per point
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
  return ReplayProgram(plan).run(own_scale);
}

namespace {

// Per GPU node: how much longer it runs beside the other work of its GPU. While the kernels running together ask
// for more than the whole GPU (the sum of their shares of its multiprocessors, the demand), each progresses at
// 1 / demand of its solo rate (fluid sharing). Made once per plan and asked once per timeline: the kernels stay
// grouped by GPU and stream, and a stream's kernels run one after another, so its starts and ends come already
// in time order and a GPU's are a merge of its streams' (a stream whose are not is sorted, and kept in the new
// order for the next timeline).
class SharingModel {
 public:
  SharingModel(const Plan& p, bool all_fill) : p_(p), all_fill_(all_fill) {
    std::map<std::pair<std::int64_t, std::int64_t>, std::vector<NodeId>> by_stream;
    for (NodeId n = 0; n < p.size(); ++n)
      if (p.g().node(n).kind == NodeKind::Kernel) by_stream[{p.stream[n].device, p.stream[n].stream}].push_back(n);
    for (auto& [key, nodes] : by_stream) {
      if (devices_.empty() || devices_.back().device != key.first) devices_.push_back({key.first, {}, {0}});
      Device& d = devices_.back();
      d.nodes.insert(d.nodes.end(), nodes.begin(), nodes.end());
      d.stream_end.push_back(std::uint32_t(d.nodes.size()));
    }
  }

  [[nodiscard]] std::vector<double> slowdown(const causal::Timeline& t) {
    std::vector<double> out(p_.size(), 1.0);
    for (Device& d : devices_) device_slowdown(d, t, [&](NodeId n, double seen) { out[n] = seen; });
    return out;
  }
  // One damped step towards the fixed point: each kernel's scale moves half-way to the slowdown `t` implies. Other
  // nodes' scales are left alone (their slowdown is 1).
  void damp(const causal::Timeline& t, std::vector<double>& scale) {
    for (Device& d : devices_)
      device_slowdown(d, t, [&](NodeId n, double seen) { scale[n] = 0.5 * scale[n] + 0.5 * seen; });
  }

 private:
  struct Step {
    TimeNs at;
    std::uint32_t item;  // the kernel's place in its device's `nodes`, times 2, plus 1 at its end
  };
  struct Device {
    std::int64_t device;
    std::vector<NodeId> nodes;              // grouped by stream, each stream's in the order they run
    std::vector<std::uint32_t> stream_end;  // where each stream's nodes start; the last: nodes.size()
  };
  static bool earlier(const Step& a, const Step& b) { return a.at < b.at; }

  // The steps of one stream's kernels (those that run for some time), in time order.
  void stream_steps(Device& d, std::size_t s, const causal::Timeline& t) {
    const auto first = d.nodes.begin() + d.stream_end[s];
    const auto last = d.nodes.begin() + d.stream_end[s + 1];
    const auto add = [&] {
      for (auto it = first; it != last; ++it) {
        const NodeId n = *it;
        if (t.end_ns[n] <= t.start_ns[n]) continue;
        const auto item = std::uint32_t(2 * (it - d.nodes.begin()));
        steps_.push_back({t.start_ns[n], item});
        steps_.push_back({t.end_ns[n], item + 1});
      }
    };
    const auto from = std::ptrdiff_t(steps_.size());
    add();
    if (std::is_sorted(steps_.begin() + from, steps_.end(), earlier)) return;
    std::stable_sort(first, last, [&](NodeId a, NodeId b) { return t.start_ns[a] < t.start_ns[b]; });
    steps_.resize(std::size_t(from));
    add();
    // Still out of order only where the stream's kernels overlap.
    if (!std::is_sorted(steps_.begin() + from, steps_.end(), earlier))
      std::stable_sort(steps_.begin() + from, steps_.end(), earlier);
  }

  // Calls set(kernel, slowdown) for every kernel of the device.
  template <typename Set>
  void device_slowdown(Device& d, const causal::Timeline& t, Set set) {
    steps_.clear();
    runs_.assign(1, 0);
    for (std::size_t s = 0; s + 1 < d.stream_end.size(); ++s) {
      stream_steps(d, s, t);
      runs_.push_back(steps_.size());
    }
    merge_runs();
    // The demand as a step function: times and the demand after each; every kernel's start and end is a time of it.
    at_.clear();
    demand_.clear();
    step_of_.assign(2 * d.nodes.size(), 0);
    double demand = 0;
    for (std::size_t i = 0; i < steps_.size(); ++i) {
      const std::uint32_t item = steps_[i].item;
      const double share = all_fill_ ? 1.0 : double(p_.sm_share[d.nodes[item / 2]]);
      demand += (item & 1) ? -share : share;
      step_of_[item] = std::uint32_t(at_.size());
      if (i + 1 < steps_.size() && steps_[i + 1].at == steps_[i].at) continue;
      at_.push_back(steps_[i].at);
      demand_.push_back(std::max(0.0, demand));
    }
    // The solo-rate progress a kernel running from the first time to each time would make: the integral of 1 /
    // demand (at least 1). A kernel's progress is the value at its end less the value at its start.
    progress_at_.assign(at_.size(), 0.0);
    for (std::size_t i = 1; i < at_.size(); ++i)
      progress_at_[i] = progress_at_[i - 1] + double(at_[i] - at_[i - 1]) / std::max(1.0, demand_[i - 1]);
    for (std::size_t i = 0; i < d.nodes.size(); ++i) {
      const NodeId n = d.nodes[i];
      if (t.end_ns[n] <= t.start_ns[n]) {
        set(n, 1.0);
        continue;
      }
      const double progress = progress_at_[step_of_[2 * i + 1]] - progress_at_[step_of_[2 * i]];
      // Progress at 1 / demand of the solo rate: the own time stretches by run time over progress.
      set(n, progress > 0 ? std::max(1.0, double(t.end_ns[n] - t.start_ns[n]) / progress) : 1.0);
    }
  }

  // steps_ holds sorted runs (bounds in runs_): merged pairwise into one sorted sequence, ties in run order.
  void merge_runs() {
    while (runs_.size() > 2) {
      merged_.resize(steps_.size());
      std::vector<std::size_t> next{0};
      for (std::size_t r = 0; r + 1 < runs_.size(); r += 2) {
        const auto a = steps_.begin() + std::ptrdiff_t(runs_[r]);
        const auto b = steps_.begin() + std::ptrdiff_t(runs_[r + 1]);
        const std::size_t end = r + 2 < runs_.size() ? runs_[r + 2] : runs_[r + 1];
        std::merge(a, b, b, steps_.begin() + std::ptrdiff_t(end), merged_.begin() + std::ptrdiff_t(runs_[r]), earlier);
        next.push_back(end);
      }
      steps_.swap(merged_);
      runs_.swap(next);
    }
  }

  const Plan& p_;
  bool all_fill_;
  std::vector<Device> devices_;
  // Reused from one device and one timeline to the next:
  std::vector<Step> steps_, merged_;
  std::vector<std::size_t> runs_;
  std::vector<std::uint32_t> step_of_;  // per item: the step function's piece it starts (or ends)
  std::vector<TimeNs> at_;
  std::vector<double> demand_, progress_at_;
};

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
    if (!plan.is_gpu(n)) continue;
    const Lane& lane = g.trace().lanes()[g.lane_of(n)];
    as_recorded.stream[n] = {lane.device(), lane.stream()};
  }
  as_recorded.own_ns.resize(g.size());
  const std::vector<double> slowdown = SharingModel(as_recorded, false).slowdown(recorded);
  std::size_t count = 0;
  for (NodeId n = 0; n < g.size(); ++n) {
    if (slowdown[n] <= 1.0) continue;
    plan.own_ns[n] = clamped_ns(double(plan.own_ns[n]) / slowdown[n]);
    ++count;
  }
  return count;
}

bool same_schedule(const Plan& a, const Plan& b) {
  return a.contention == b.contention && a.solo_own_times == b.solo_own_times && a.own_ns == b.own_ns &&
         a.stream == b.stream && a.sm_share == b.sm_share && a.start_in == b.start_in && a.end_in == b.end_in;
}

causal::Timeline replay_with_contention(const Plan& plan, bool all_fill, const causal::Window* window, double* swing) {
  if (swing != nullptr) *swing = 0;
  if (!plan.contention) return replay_plan(plan);
  const ReplayProgram program(plan);
  causal::Timeline t = program.run({});
  // A fixed point of "own time x slowdown of the overlap that own time produces", reached by damped steps: the
  // slowdown of a kernel depends on what runs beside it, which depends on every kernel's slowdown. Single kernels
  // may keep swinging between steps; what is predicted is the window's length, so the steps stop once it has held
  // within kSettled for kSettledSteps steps in a row. Every bundled recording settles within 20 steps; where the
  // length still swings after them, the caller is told by how much.
  std::vector<double> scale(plan.size(), 1.0);
  constexpr int kSteps = 20;
  constexpr double kSettled = 1e-5;
  constexpr int kSettledSteps = 3;
  TimeNs length = window ? causal::window_in(plan.g(), t, *window).length_ns() : 0;
  std::array<TimeNs, kSettledSteps + 1> last{};  // the lengths of the last steps
  int settled = 0;
  int step = 0;
  SharingModel sharing(plan, all_fill);
  std::vector<TimeNs> scratch;
  for (; step < kSteps && settled < kSettledSteps; ++step) {
    // The slowdown seen is the own time's stretch that this timeline implies, approached half-way each step.
    sharing.damp(t, scale);
    program.run(scale, scratch, t);
    if (!window) continue;
    const TimeNs next = causal::window_in(plan.g(), t, *window).length_ns();
    const bool held = std::abs(double(next - length)) <= kSettled * double(std::max<TimeNs>(1, length));
    settled = held ? settled + 1 : 0;
    length = next;
    last[std::size_t(step) % last.size()] = next;
  }
  if (window != nullptr && swing != nullptr && settled < kSettledSteps && step >= int(last.size())) {
    const auto [low, high] = std::minmax_element(last.begin(), last.end());
    *swing = double(*high - *low) / double(std::max<TimeNs>(1, length));
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
  return clamped_ns(most);
}

int model_of_range(const std::string& name) {
  constexpr std::string_view kPrefix = "model ";
  if (name.rfind(kPrefix, 0) != 0) return -1;
  std::size_t i = kPrefix.size();
  if (i >= name.size() || name[i] < '0' || name[i] > '9') return -1;
  int value = 0;
  for (; i < name.size() && name[i] >= '0' && name[i] <= '9'; ++i)
    value = std::min(kMaxModels, value * 10 + (name[i] - '0'));
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
