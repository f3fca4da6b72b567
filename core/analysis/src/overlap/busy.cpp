#include "gtv/analysis/busy.h"

#include <algorithm>
#include <limits>
#include <unordered_map>

namespace gtv::analysis {

std::vector<Interval> lane_busy_intervals(const Lane& lane) {
  std::vector<Interval> out;
  // Lane events are sorted by start, so one pass merges them.
  for (const Event& e : lane.events) {
    if (!is_gpu_activity(e.kind) || e.duration_ns <= 0) continue;
    if (!out.empty() && e.start_ns <= out.back().end_ns)
      out.back().end_ns = std::max(out.back().end_ns, e.end_ns());
    else
      out.push_back({e.start_ns, e.end_ns()});
  }
  return out;
}

namespace {

// Positions of devices in BusyAnalysis::gpus, and each GPU's lane intervals, merged once at the end: a trace may
// hold 100k GPUs or streams, so neither a search per lane nor a union per lane.
struct GpuTable {
  std::unordered_map<std::int64_t, std::size_t> index;
  std::vector<std::vector<Interval>> intervals;
};

GpuBusy& gpu_entry(BusyAnalysis& out, GpuTable& table, std::int64_t device) {
  auto [it, inserted] = table.index.try_emplace(device, out.gpus.size());
  if (!inserted) return out.gpus[it->second];
  table.intervals.emplace_back();
  GpuBusy& g = out.gpus.emplace_back();
  g.device = device;
  g.first_start_ns = std::numeric_limits<TimeNs>::max();
  g.last_end_ns = std::numeric_limits<TimeNs>::min();
  return g;
}

void add_lane(const Lane& lane, BusyAnalysis& out, GpuTable& table) {
  StreamBusy& s = out.streams.emplace_back();
  s.device = lane.device();
  s.stream = lane.stream();
  s.name = lane.name;
  GpuBusy& g = gpu_entry(out, table, lane.device());
  ++g.stream_count;
  for (const Event& e : lane.events) {
    if (!is_gpu_activity(e.kind)) continue;
    ++s.activity_count;
    g.first_start_ns = std::min(g.first_start_ns, e.start_ns);
    g.last_end_ns = std::max(g.last_end_ns, e.end_ns());
    if (e.kind == EventKind::Kernel) {
      ++g.kernel_count;
      g.kernel_ns += e.duration_ns;
    }
  }
  g.activity_count += s.activity_count;
  const std::vector<Interval> busy = lane_busy_intervals(lane);
  s.busy_ns = length_within_ns(busy, out.window_start_ns, out.window_end_ns);
  s.idle_ns = out.window_ns() - s.busy_ns;
  s.utilization = safe_ratio(static_cast<double>(s.busy_ns), static_cast<double>(out.window_ns()));
  std::vector<Interval>& all = table.intervals[table.index[lane.device()]];
  all.insert(all.end(), busy.begin(), busy.end());
}

}  // namespace

BusyAnalysis analyze_busy(const Trace& trace) {
  return analyze_busy(trace, trace.activity_start_ns(), trace.activity_end_ns());
}

BusyAnalysis analyze_busy(const Trace& trace, TimeNs window_start_ns, TimeNs window_end_ns) {
  BusyAnalysis out;
  out.window_start_ns = window_start_ns;
  out.window_end_ns = std::max(window_start_ns, window_end_ns);
  GpuTable table;
  for (const Lane& lane : trace.lanes())
    if (lane.is_gpu()) add_lane(lane, out, table);
  std::vector<Interval> all;
  for (std::size_t i = 0; i < out.gpus.size(); ++i) {
    GpuBusy& g = out.gpus[i];
    g.busy = merged(std::move(table.intervals[i]));
    if (g.activity_count == 0) g.first_start_ns = g.last_end_ns = 0;
    g.busy_ns = length_within_ns(g.busy, out.window_start_ns, out.window_end_ns);
    g.idle_ns = out.window_ns() - g.busy_ns;
    g.utilization = safe_ratio(static_cast<double>(g.busy_ns), static_cast<double>(out.window_ns()));
    all.insert(all.end(), g.busy.begin(), g.busy.end());
  }
  out.any_busy = merged(std::move(all));
  return out;
}

}  // namespace gtv::analysis
