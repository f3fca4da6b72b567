#include "gtv/analysis/launch.h"

#include <algorithm>
#include <map>

#include "gtv/analysis/format.h"
#include "gtv/base/sorted_runs.h"

namespace gtv::analysis {
namespace {

struct Edge {
  TimeNs time_ns;
  int delta;
};

// Queue depth of one stream: +1 when the work is launched (its API call starts; its own start without a flow),
// -1 when it ends.
StreamQueue queue_of(const Lane& lane, const std::vector<TimeNs>& launch_ns) {
  StreamQueue q;
  q.device = lane.device();
  q.stream = lane.stream();
  // The launches, then the ends: each part is mostly in time order already, so the two are merged, not sorted.
  std::vector<Edge> edges;
  edges.reserve(2 * lane.events.size());
  for (std::size_t i = 0; i < lane.events.size(); ++i)
    if (is_gpu_activity(lane.events[i].kind)) edges.push_back({std::min(launch_ns[i], lane.events[i].start_ns), +1});
  for (const Event& e : lane.events)
    if (is_gpu_activity(e.kind)) edges.push_back({e.end_ns(), -1});
  // Ends before starts at one instant, so back-to-back work does not look queued.
  sort_runs(edges, [](const Edge& a, const Edge& b) {
    return a.time_ns != b.time_ns ? a.time_ns < b.time_ns : a.delta < b.delta;
  });
  int depth = 0;
  for (std::size_t i = 0; i < edges.size();) {
    const TimeNs t = edges[i].time_ns;
    for (; i < edges.size() && edges[i].time_ns == t; ++i) depth += edges[i].delta;
    if (!q.steps.empty()) q.steps.back().end_ns = t;
    if (i == edges.size()) break;
    if (depth > q.max_depth) {
      q.max_depth = depth;
      q.max_depth_at_ns = t;
    }
    if (!q.steps.empty() && q.steps.back().depth == depth) continue;
    q.steps.push_back({t, t, depth});
  }
  return q;
}

std::vector<std::string> findings_for(const LaunchAnalysis& a, TimeNs trace_start_ns) {
  std::vector<std::string> out;
  if (a.all.count == 0) {
    out.emplace_back("No launch is joined to its GPU work (no flows): launch latency is unknown.");
  } else {
    out.push_back("Launch latency (API call start to GPU start) over " + std::to_string(a.all.count) +
                  " launch(es): p50 " + format_duration(a.all.p50_ns) + ", p90 " + format_duration(a.all.p90_ns) +
                  ", max " + format_duration(a.all.max_ns) + ".");
  }
  const StreamQueue* deepest = nullptr;
  for (const StreamQueue& q : a.streams)
    if (!deepest || q.max_depth > deepest->max_depth) deepest = &q;
  if (deepest && deepest->max_depth > 0)
    out.push_back("Deepest queue: " + std::to_string(deepest->max_depth) + " item(s) launched but unfinished on GPU " +
                  std::to_string(deepest->device) + " stream " + std::to_string(deepest->stream) + " at " +
                  format_duration(deepest->max_depth_at_ns - trace_start_ns) + " into the trace.");
  if (a.activities_without_flow > 0)
    out.push_back(std::to_string(a.activities_without_flow) +
                  " GPU activities have no launch in the trace (no matching correlation id).");
  return out;
}

}  // namespace

LatencyStats latency_stats(std::vector<TimeNs>& values) {
  LatencyStats s;
  if (values.empty()) return s;
  // The two ranks by selection, not a full sort: the values below a rank are left before it, those above after it.
  const std::size_t n = values.size();
  const auto rank_index = [n](std::size_t pct) { return std::max<std::size_t>(1, (pct * n + 99) / 100) - 1; };
  const auto p50 = values.begin() + static_cast<std::ptrdiff_t>(rank_index(50));
  const auto p90 = values.begin() + static_cast<std::ptrdiff_t>(rank_index(90));
  std::nth_element(values.begin(), p50, values.end());
  if (p90 > p50) std::nth_element(p50 + 1, p90, values.end());
  s.count = n;
  s.min_ns = *std::min_element(values.begin(), p50 + 1);
  s.max_ns = *std::max_element(p90, values.end());
  s.p50_ns = *p50;
  s.p90_ns = *p90;
  long double sum = 0;
  for (TimeNs v : values) sum += static_cast<long double>(v);
  s.mean_ns = static_cast<TimeNs>(sum / static_cast<long double>(n));
  return s;
}

LaunchAnalysis analyze_launches(const Trace& trace) {
  LaunchAnalysis a;
  // Launch time per GPU event, defaulting to the event's own start.
  std::vector<std::vector<TimeNs>> launch_ns(trace.lanes().size());
  for (LaneIndex l = 0; l < trace.lanes().size(); ++l) {
    const Lane& lane = trace.lane(l);
    if (!lane.is_gpu()) continue;
    launch_ns[l].resize(lane.events.size());
    for (std::size_t i = 0; i < lane.events.size(); ++i) launch_ns[l][i] = lane.events[i].start_ns;
  }
  std::vector<TimeNs> all;
  all.reserve(trace.flows().size());
  std::map<std::int64_t, std::vector<TimeNs>> per_device;
  std::size_t flowed_activities = 0;
  const std::vector<Flow>& flows = trace.flows();
  for (std::size_t i = 0; i < flows.size(); ++i) {
    trace.prefetch_flow_events(i);
    const Flow& f = flows[i];
    const Lane& to_lane = trace.lane(f.to.lane);
    if (!to_lane.is_gpu() || !is_gpu_activity(trace.event(f.to).kind)) continue;
    ++flowed_activities;
    const Event& launch = trace.event(f.from);
    const TimeNs latency = trace.event(f.to).start_ns - launch.start_ns;
    all.push_back(latency);
    per_device[to_lane.device()].push_back(latency);
    launch_ns[f.to.lane][f.to.index] = launch.start_ns;
  }
  for (LaneIndex l = 0; l < trace.lanes().size(); ++l) {
    const Lane& lane = trace.lane(l);
    if (!lane.is_gpu()) continue;
    a.streams.push_back(queue_of(lane, launch_ns[l]));
    for (const Event& e : lane.events) a.activities_without_flow += is_gpu_activity(e.kind) ? 1 : 0;
  }
  a.activities_without_flow -= flowed_activities;
  a.all = latency_stats(all);
  for (auto& [device, values] : per_device) a.devices.push_back({device, latency_stats(values)});
  a.findings = findings_for(a, trace.start_ns());
  return a;
}

}  // namespace gtv::analysis
