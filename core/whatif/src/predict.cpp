#include "gtv/whatif/predict.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdio>
#include <functional>
#include <future>
#include <memory>
#include <set>
#include <string_view>
#include <unordered_set>

#include "balanced_ranks.h"
#include "changes.h"
#include "gtv/causal/critical_path.h"
#include "gtv/whatif/balanced_ranks.h"
#include "point_replay.h"

namespace gtv::whatif {
namespace {

// A graph with anomalies (links the recording contradicts) replays with inputs left out: 5% more each way.
constexpr double kAnomalyWidening = 0.05;
// The sharing model's fixed point: a window length swinging by less between its last steps counts as settled.
constexpr double kSettledSwing = 1e-4;

// A fraction as a percentage: 0.0031 -> "0.3%", 0.0004 -> "0.04%".
std::string percent_text(double fraction) {
  char buf[32];
  const double pct = 100.0 * fraction;
  std::snprintf(buf, sizeof buf, pct >= 0.1 ? "%.1f%%" : "%.2f%%", pct);
  return buf;
}

std::string window_name(const Trace& trace) {
  std::vector<std::string> names;
  for (const Measurement& m : trace.measurements()) names.push_back(m.name);
  return whatif::window_name(names);
}

// The changes as given: "placement=0,0 + streams".
std::string asked(std::span<const Change> changes) {
  std::string out;
  for (const Change& c : changes) out += (out.empty() ? "" : " + ") + c.text();
  return out;
}

}  // namespace

Expected<Prediction> predict(const analysis::AnalysedTrace& analysed, std::span<const Change> changes,
                             const Options& options) {
  if (changes.empty()) return Error{"no change given (known: " + std::string(change_names()) + ")"};
  if (Expected<Ok> ok = check_compatible(changes); !ok) return ok.error();
  return predict_on(analysed.graph(), changes, nullptr, options);
}

Expected<Prediction> predict(const Trace& trace, std::span<const Change> changes, const Options& options) {
  if (changes.empty()) return Error{"no change given (known: " + std::string(change_names()) + ")"};
  if (Expected<Ok> ok = check_compatible(changes); !ok) return ok.error();
  // An empty owner: the analysed trace points at the caller's trace and lives only for this call.
  const analysis::AnalysedTrace analysed(std::shared_ptr<const Trace>(std::shared_ptr<void>(), &trace));
  return predict(analysed, changes, options);
}

std::vector<Trial> try_each_change(const analysis::AnalysedTrace& analysed, const Options& options) {
  std::vector<Trial> out;
  for (const Change& c : parameterless_changes()) {
    const std::array<Change, 1> one{c};
    out.push_back({c, predict(analysed, one, options)});
  }
  return out;
}

causal::WindowTimes recorded_window(const analysis::AnalysedTrace& analysed) {
  const causal::Window w = causal::window_of(analysed.graph());
  return {w.start_ns, w.end_ns};
}

Expected<Prediction> predict_on(const causal::HappensBefore& g, std::span<const Change> changes, PointReplay* point,
                                const Options& options) {
  if (changes.empty()) return Error{"no change given (known: " + std::string(change_names()) + ")"};
  if (Expected<Ok> ok = check_compatible(changes); !ok) return ok.error();
  const Trace& trace = g.trace();
  const causal::Window w = causal::window_of(g);
  Prediction out;
  out.whole_trace = w.measured.empty();
  out.window = window_name(trace);
  out.recorded_ns = w.end_ns - w.start_ns;
  if (changes.front().kind == ChangeKind::BalancedRanks) {
    if (point != nullptr)
      return Error{changes.front().text() +
                   ": predicted from the collectives' arrivals, not by replay: there is no predicted timeline to draw"};
    if (Expected<Ok> ok = predict_balanced_ranks(trace, w, out); !ok)
      return Error{changes.front().text() + ": " + ok.error().message};
    return out;
  }
  Plan unchanged = make_plan(g);
  unchanged.owners_pattern = options.owners;
  if (!out.whole_trace) {
    const std::function<bool(causal::NodeId)> inside = causal::inside(g, w);
    unchanged.in_window.resize(g.size());
    for (causal::NodeId n = 0; n < g.size(); ++n) unchanged.in_window[n] = inside(n);
  }
  // The unchanged replay (the graph's own) runs on a second thread while the changes are applied.
  std::future<TimeNs> replayed =
      std::async(std::launch::async, [&] { return causal::window_in(g, causal::replay(g), w).length_ns(); });
  // Each bound's plan: the changes applied for it. Changes without a model parameter give every bound the best
  // estimate's plan.
  const bool bounded =
      std::any_of(changes.begin(), changes.end(), [](const Change& c) { return info(c.kind).bounded; });
  std::array<Plan, 3> plans;  // Point, Low, High; Low and High stay empty when they would equal Point's
  constexpr std::array<Bound, 3> kBounds{Bound::Point, Bound::Low, Bound::High};
  if (bounded) plans[1] = plans[2] = unchanged;
  plans[0] = std::move(unchanged);
  for (std::size_t b = 0; b < (bounded ? 3 : 1); ++b) {
    for (const Change& c : changes) {
      Expected<Ok> ok = apply(plans[b], c, kBounds[b]);
      if (!ok) return Error{c.text() + ": " + ok.error().message};
    }
  }
  Plan& point_plan = plans[0];
  const Plan& low_plan = bounded && !same_schedule(plans[1], point_plan) ? plans[1] : point_plan;
  const Plan& high_plan = bounded ? plans[2] : point_plan;
  // The bounds' replays share nothing but the graph. Where kernels share GPUs each is a fixed point of many replays:
  // the other bounds' run on a second thread meanwhile; otherwise each is one replay, not worth a thread.
  // Where a replay puts the window beyond the accepted time range, the prediction is refused, as the predicted run
  // would be (a trace's times lie inside it): a prediction of 2^63 ns is no prediction.
  std::atomic<bool> outside = false;  // written by the bounds' thread too
  auto length_of = [&](const causal::Timeline& t) {
    const causal::WindowTimes times = causal::window_in(g, t, w);
    if (!in_trace_time_range(times.start_ns) || !in_trace_time_range(times.end_ns)) outside = true;
    return times.length_ns();
  };
  struct OtherBounds {
    TimeNs low_ns = -1;  // -1: the lower bound's plan is the best estimate's
    TimeNs high_ns = 0;
    double swing = 0;  // the most a bound's fixed point still swung (0: settled)
  };
  auto other_bounds = [&] {
    OtherBounds b;
    double swing = 0;
    if (&low_plan != &point_plan) b.low_ns = length_of(replay_with_contention(low_plan, false, &w, &swing));
    b.high_ns = length_of(replay_with_contention(high_plan, true, &w, &b.swing));
    b.swing = std::max(b.swing, swing);
    return b;
  };
  const bool contention = point_plan.contention || low_plan.contention || high_plan.contention;
  std::future<OtherBounds> others = std::async(contention ? std::launch::async : std::launch::deferred, other_bounds);
  double point_swing = 0;
  const causal::Timeline t = replay_with_contention(point_plan, false, &w, &point_swing);
  out.predicted_ns = length_of(t);
  const auto out_of_range = [&] {
    return Error{asked(changes) +
                 ": the changed run's replay puts the window outside the accepted time range [-2^62, 2^62) ns: the "
                 "trace's times lie too far apart to predict it"};
  };
  if (outside) return out_of_range();  // before its critical path is walked (the other replays are waited for)
  TimeNs lo = out.predicted_ns;
  TimeNs hi = out.predicted_ns;
  for (PathTime& pt : plan_path(point_plan, t, w)) out.path.push_back({std::move(pt.what), pt.ns});
  out.applied = point_plan.applied;
  out.assumptions = point_plan.assumptions;
  if (t.cycles_broken > 0)
    out.warnings.push_back(std::to_string(t.cycles_broken) +
                           " inputs closed a cycle after the change and were skipped");
  // The lower bound: its replay, and, where kernels share GPUs, the busiest GPU's kernels back to back.
  const OtherBounds bounds = others.get();
  out.replayed_ns = replayed.get();
  if (outside) return out_of_range();
  if (bounds.low_ns >= 0) lo = std::min(lo, bounds.low_ns);
  if (const TimeNs saturated = saturated_gpu_ns(low_plan, w); saturated > 0) lo = std::min(lo, saturated);
  lo = std::min(lo, bounds.high_ns);
  hi = std::max(hi, bounds.high_ns);
  if (point != nullptr) {
    point->window = w;
    point->timeline = t;
    point->plan = std::move(point_plan);
  }
  const TimeNs replay_error =
      out.replayed_ns > out.recorded_ns ? out.replayed_ns - out.recorded_ns : out.recorded_ns - out.replayed_ns;
  double widen = kRunToRun;
  for (std::string& line : g.anomalies().lines()) out.warnings.push_back(std::move(line));
  const bool anomalies = !out.warnings.empty();
  if (anomalies) widen += kAnomalyWidening;
  // A swing below a hundredth of a percent is far inside the band and the printed digits: taken as settled.
  if (const double swing = std::max(point_swing, bounds.swing); swing > kSettledSwing) {
    widen += swing;
    out.warnings.push_back(
        "the sharing model had not settled after its last step: the window's length still swung by " +
        percent_text(swing) + " from step to step; the band widens by that much each way");
  }
  // Lengths reach 2^63 - 1 ns (the accepted time range's width): the band saturates rather than wraps.
  out.low_ns = std::max<TimeNs>(0, saturating_sub(saturating_sub(lo, replay_error), clamped_ns(double(lo) * widen)));
  out.high_ns = saturating_add(saturating_add(hi, replay_error), clamped_ns(double(hi) * widen));
  out.assumptions.push_back("the band adds the unchanged replay's error (" + std::to_string(replay_error / 1000) +
                            " us), 1% each way for the spread between recordings of one run" +
                            (anomalies ? " and 5% for the graph's anomalies" : "") +
                            " to the range the changes' own assumptions give");
  if (out.whole_trace) out.assumptions.push_back("the trace has no timed measurement: the whole trace is predicted");
  return out;
}

}  // namespace gtv::whatif
