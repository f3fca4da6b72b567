// The predicted run as a Trace: the best-estimate replay's times written back onto the recording's events.
#include "gtv/whatif/predicted_run.h"

#include <algorithm>
#include <map>
#include <memory>

#include "gtv/model/trace_builder.h"
#include "owners.h"
#include "point_replay.h"

namespace gtv::whatif {
namespace {

// The configuration key that marks a predicted run and names its changes.
constexpr std::string_view kChangesKey = "whatif.changes";

using causal::kNoNode;
using causal::NodeId;

constexpr LaneIndex kDropped = 0xffffffffu;
// Streams a change made are numbered from here (streams.cpp).
constexpr std::int64_t kNewStreamBase = 1'000'000;

// Moves recorded times of one host lane as the replay moved the lane's calls (the rule predicted_run.h states).
class HostClock {
 public:
  HostClock(const causal::HappensBefore& g, const causal::Timeline& t, LaneIndex lane)
      : g_(g), t_(t), lane_(lane), ids_(g.lane_nodes(lane)) {}

  // Monotone: nesting and order on the lane hold.
  [[nodiscard]] TimeNs at(TimeNs recorded_ns) const {
    const NodeId n = g_.node_at_or_before(lane_, recorded_ns);
    if (n == kNoNode) return before_first(recorded_ns);
    if (recorded_ns < g_.recorded_end(n)) return inside(n, recorded_ns);
    const TimeNs moved = t_.end_ns[n] + (recorded_ns - g_.recorded_end(n));
    if (n + 1 < ids_.last) return std::min(moved, std::max(t_.end_ns[n], t_.start_ns[n + 1]));
    return moved;
  }

  // As causal::window_in moves a measurement's ends (no cut at the next call).
  [[nodiscard]] TimeNs window_at(TimeNs recorded_ns) const {
    const NodeId n = g_.node_at_or_before(lane_, recorded_ns);
    if (n == kNoNode) return before_first(recorded_ns);
    if (recorded_ns < g_.recorded_end(n)) return inside(n, recorded_ns);
    return t_.end_ns[n] + (recorded_ns - g_.recorded_end(n));
  }

 private:
  [[nodiscard]] TimeNs before_first(TimeNs recorded_ns) const {
    if (ids_.first == ids_.last) return recorded_ns;
    return t_.start_ns[ids_.first] - (g_.recorded_start(ids_.first) - recorded_ns);
  }
  [[nodiscard]] TimeNs inside(NodeId n, TimeNs recorded_ns) const {
    return std::min(t_.start_ns[n] + (recorded_ns - g_.recorded_start(n)), t_.end_ns[n]);
  }

  const causal::HappensBefore& g_;
  const causal::Timeline& t_;
  LaneIndex lane_;
  causal::HappensBefore::IdRange ids_;
};

// "model 1" for the GPU work a model's forward launched, for naming the streams a change made.
std::string owner_of(const causal::HappensBefore& g, const Owners& owners, NodeId work) {
  const NodeId l = g.node(work).launch;
  if (l == kNoNode) return {};
  if (owners.of_node[l] >= 0) {
    std::string name = owners.names[std::size_t(owners.of_node[l])];
    constexpr std::string_view kSuffix = " forward";
    if (name.ends_with(kSuffix)) name.resize(name.size() - kSuffix.size());
    return name;
  }
  return "thread " + std::to_string(g.trace().lane(g.lane_of(l)).key.tid);
}

class PredictedTraceWriter {
 public:
  PredictedTraceWriter(const causal::HappensBefore& g, const PointReplay& point)
      : g_(g), src_(g.trace()), p_(point.plan), t_(point.timeline) {}

  Expected<Trace> write(std::span<const Change> changes) {
    copy_metadata(changes);
    make_lanes();
    place_events();
    copy_links();
    copy_ranges_and_measurements();
    note_left_out();
    return b_.build();
  }

 private:
  void copy_metadata(std::span<const Change> changes) {
    TraceMetadata& m = b_.metadata();
    m = src_.metadata();
    const std::string recorded = src_.metadata().scenario.empty() ? "the recording" : src_.metadata().scenario;
    m.scenario = predicted_title(changes);
    m.source_tool = "gtv what-if prediction (not a recording)";
    m.config[std::string(kChangesKey)] = changes_text(changes);
    m.config["whatif.predicted_from"] = recorded;
    m.notes.push_back("predicted by gtv what-if from " + recorded + " with " + changes_text(changes) +
                      ": not a recording; each call and each GPU work item sits where the replay of the changed "
                      "happens-before graph puts it");
    for (const DeviceInfo& d : src_.devices()) b_.add_device(d);
    for (const ProcessInfo& pi : src_.processes()) b_.process(pi.pid) = pi;
  }

  LaneIndex copy_lane(const Lane& lane) {
    const LaneIndex l = b_.lane(lane.key);
    b_.set_lane_name(l, lane.name);
    b_.set_lane_sort_index(l, lane.sort_index);
    return l;
  }

  // Every recorded lane (emptied GPU lanes too: the same lanes as the recording), then the streams a change made.
  void make_lanes() {
    new_lane_.resize(src_.lanes().size());
    for (LaneIndex l = 0; l < src_.lanes().size(); ++l) new_lane_[l] = copy_lane(src_.lane(l));
    const Owners owners = find_owners(g_, p_.owners_pattern);
    for (NodeId n = 0; n < g_.size(); ++n) {
      if (!p_.is_gpu(n)) continue;
      const LaneKey key = gpu_lane_key(p_.stream[n].device, p_.stream[n].stream);
      if (b_.find_lane(key)) continue;
      const LaneIndex l = b_.lane(key);
      const std::string owner = owner_of(g_, owners, n);
      const std::string number = std::to_string(
          p_.stream[n].stream >= kNewStreamBase ? p_.stream[n].stream - kNewStreamBase : p_.stream[n].stream);
      b_.set_lane_name(l, owner.empty() ? "new stream " + number : "new stream of " + owner);
    }
  }

  void add_copy(LaneIndex lane, const Event& original, TimeNs start_ns, TimeNs duration_ns) {
    Event e = original;
    e.start_ns = start_ns;
    e.duration_ns = duration_ns;
    e.name = b_.intern(src_.name(original));
    e.args = e.args == kNoArgs ? kNoArgs : b_.copy_args(src_, e.args, memo_);
    const std::uint32_t detail = e.detail;
    e.detail = kNoDetail;
    if (e.kind == EventKind::Other) {
      Event with_category = original;
      with_category.detail = detail;
      b_.add_other(lane, e, src_.category(with_category));
    } else if (e.kind == EventKind::Kernel && detail != kNoDetail) {
      b_.add_kernel(lane, e, src_.kernel_details()[detail]);
    } else if (e.kind == EventKind::Memcpy && detail != kNoDetail) {
      b_.add_memcpy(lane, e, src_.memcpy_details()[detail]);
    } else if (e.kind == EventKind::Memset && detail != kNoDetail) {
      b_.add_memset(lane, e, src_.memset_details()[detail]);
    } else {
      b_.add_event(lane, e);
    }
  }

  void place_events() {
    placed_lane_.resize(src_.lanes().size());
    placed_start_.resize(src_.lanes().size());
    for (LaneIndex l = 0; l < src_.lanes().size(); ++l) {
      const Lane& lane = src_.lane(l);
      std::vector<LaneIndex>& lanes = placed_lane_[l];
      std::vector<TimeNs>& starts = placed_start_[l];
      lanes.assign(lane.events.size(), kDropped);
      starts.assign(lane.events.size(), 0);
      const HostClock clock(g_, t_, l);
      for (std::uint32_t i = 0; i < lane.events.size(); ++i) {
        const Event& e = lane.events[i];
        const NodeId n = g_.node_of(EventRef{l, i});
        LaneIndex to = new_lane_[l];
        TimeNs start_ns = 0, duration_ns = 0;
        if (n != kNoNode) {
          start_ns = t_.start_ns[n];
          duration_ns = std::max<TimeNs>(0, t_.end_ns[n] - t_.start_ns[n]);
          if (p_.is_gpu(n)) to = *b_.find_lane(gpu_lane_key(p_.stream[n].device, p_.stream[n].stream));
        } else if (lane.is_gpu()) {
          ++gpu_left_out_;
          continue;
        } else {
          start_ns = clock.at(e.start_ns);
          duration_ns = std::max<TimeNs>(0, clock.at(e.end_ns()) - start_ns);
          ++host_moved_;
        }
        lanes[i] = to;
        starts[i] = start_ns;
        add_copy(to, e, start_ns, duration_ns);
      }
    }
  }

  // The launch flows join again by correlation id; the flows a file gave as pairs, the forward-backward and the
  // dependency links are given again by their ends' new places.
  void copy_links() {
    const auto placed = [&](EventRef r) { return placed_lane_[r.lane][r.index] != kDropped; };
    const auto lane_of = [&](EventRef r) { return placed_lane_[r.lane][r.index]; };
    const auto start_of = [&](EventRef r) { return placed_start_[r.lane][r.index]; };
    for (const Flow& f : src_.flows())
      if (placed(f.from) && placed(f.to))
        b_.add_flow_hint(f.correlation_id, lane_of(f.from), start_of(f.from), lane_of(f.to), start_of(f.to));
    for (const Flow& f : src_.backward_links())
      if (placed(f.from) && placed(f.to))
        b_.add_backward_hint(f.correlation_id, lane_of(f.from), start_of(f.from), lane_of(f.to), start_of(f.to));
    for (const Flow& f : src_.dependencies())
      if (placed(f.from) && placed(f.to))
        b_.add_dependency_hint(f.correlation_id, lane_of(f.from), start_of(f.from), lane_of(f.to), start_of(f.to));
  }

  void copy_ranges_and_measurements() {
    for (Range r : src_.ranges()) {
      if (const auto lane = src_.find_lane(host_lane_key(r.pid, r.tid))) {
        const HostClock clock(g_, t_, *lane);
        r.start_ns = clock.at(r.start_ns);
        r.end_ns = std::max(r.start_ns, clock.at(r.end_ns));
      }
      b_.add_range(std::move(r));
    }
    for (Measurement m : src_.measurements()) {
      if (const auto lane = src_.find_lane(host_lane_key(m.pid, m.tid))) {
        const HostClock clock(g_, t_, *lane);
        m.host_start_ns = clock.window_at(m.host_start_ns);
        m.host_end_ns = std::max(m.host_start_ns, clock.window_at(m.host_end_ns));
      }
      m.reported_ns = m.host_end_ns - m.host_start_ns;
      b_.add_measurement(std::move(m));
    }
    if (!src_.measurements().empty())
      b_.metadata().notes.push_back("each measurement reports its predicted host interval");
  }

  void note_left_out() {
    if (host_moved_ > 0)
      b_.metadata().notes.push_back(std::to_string(host_moved_) +
                                    " host events the happens-before graph does not hold (framework ops, annotations, "
                                    "nested calls) keep their place beside their thread's calls");
    if (gpu_left_out_ > 0)
      b_.metadata().notes.push_back(std::to_string(gpu_left_out_) +
                                    " events on GPU lanes that are not GPU work are left out of the prediction");
    if (!src_.counters().empty())
      b_.metadata().notes.push_back(std::to_string(src_.counters().size()) +
                                    " counter series are left out of the prediction");
  }

  const causal::HappensBefore& g_;
  const Trace& src_;
  const Plan& p_;
  const causal::Timeline& t_;
  TraceBuilder b_;
  TraceBuilder::ArgCopyMemo memo_;
  std::vector<LaneIndex> new_lane_;                  // per recorded lane: the same lane in the predicted trace
  std::vector<std::vector<LaneIndex>> placed_lane_;  // per recorded event: its lane there, kDropped when left out
  std::vector<std::vector<TimeNs>> placed_start_;    // per recorded event: its start there
  std::size_t host_moved_ = 0;
  std::size_t gpu_left_out_ = 0;
};

}  // namespace

std::string changes_text(std::span<const Change> changes) {
  std::string out;
  for (const Change& c : changes) out += (out.empty() ? "" : " + ") + c.text();
  return out;
}

std::string predicted_title(std::span<const Change> changes) { return "predicted: " + changes_text(changes); }

bool is_predicted_run(const Trace& trace) { return trace.metadata().config.count(std::string(kChangesKey)) != 0; }

Expected<PredictedRun> predict_run(const Trace& trace, std::span<const Change> changes, const Options& options) {
  // An empty owner: the analysed trace points at the caller's trace and lives only for this call.
  const analysis::AnalysedTrace analysed(std::shared_ptr<const Trace>(std::shared_ptr<void>(), &trace));
  return predict_run(analysed, changes, options);
}

Expected<PredictedRun> predict_run(const analysis::AnalysedTrace& analysed, std::span<const Change> changes,
                                   const Options& options) {
  const causal::HappensBefore& g = analysed.graph();
  PointReplay point;
  Expected<Prediction> p = predict_on(g, changes, &point, options);
  if (!p) return p.error();
  Expected<Trace> predicted = PredictedTraceWriter(g, point).write(changes);
  if (!predicted) return Error{"the predicted run: " + predicted.error().message};
  return PredictedRun{std::move(p).value(), std::move(predicted).value()};
}

}  // namespace gtv::whatif
