// Memory growth from counters: per GPU, how much its allocator took before the steady part of the trace (the timed
// loop, else the iterations after the first) and inside it. The counters say it directly, where allocation calls
// (cudaMalloc) only say that the allocator grew, not by how much, and miss growth the trace did not record calls for.
#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "gtv/model/counter_names.h"
#include "warmup/warmup_parts.h"

namespace gtv::analysis::detail {
namespace {

// The series each GPU's growth is read from: PyTorch's reserved bytes (the caching allocator's own count of what it
// holds from the driver) over CUPTI's device allocations (which also see memory outside PyTorch).
std::map<std::int64_t, const CounterSeries*> gpu_memory_series(const Trace& trace) {
  std::set<std::int64_t> gpus, host_pids;
  for (const Lane& lane : trace.lanes()) (lane.is_gpu() ? gpus : host_pids).insert(lane.key.pid);
  for (const DeviceInfo& d : trace.devices()) gpus.insert(d.index);
  std::map<std::int64_t, const CounterSeries*> out;
  for (const std::string_view name : {counters::kTorchReserved, counters::kDeviceMemorySinceStart}) {
    for (const CounterSeries& series : trace.counters()) {
      // A GPU's counters have its index as pid; a pid that is also a host process is that process's.
      if (series.name != name || series.samples.empty() || gpus.count(series.pid) == 0 ||
          host_pids.count(series.pid) != 0)
        continue;
      out.try_emplace(series.pid, &series);
    }
  }
  return out;
}

// The value in force at t_ns: the last sample at or before it, else fallback.
double value_at(const CounterSeries& series, TimeNs t_ns, double fallback) {
  const auto it = std::upper_bound(series.samples.begin(), series.samples.end(), t_ns,
                                   [](TimeNs t, const CounterSample& s) { return t < s.time_ns; });
  return it == series.samples.begin() ? fallback : std::prev(it)->value;
}

// The window memory growth is measured on (the steady work, as warm-up sees it): not compare's SteadyPart, which
// aligns runs from the first kernel after the warm-up ranges.
struct GrowthWindow {
  std::string name;
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  std::vector<Interval> spans;  // what is measured inside [start_ns, end_ns], merged
};

// The timed measurements themselves when measurements give the region (gaps between two measured phases are not
// measured work); else the iterations after the first of the loop with the most of them.
std::optional<GrowthWindow> growth_window(const Region& region, const std::vector<IterationWarmUp>& iterations) {
  if (region.from_measurements) {
    if (region.measured.empty()) return std::nullopt;
    return GrowthWindow{region.measured_name, region.measured.front().start_ns, region.measured.back().end_ns,
                        region.measured};
  }
  const IterationWarmUp* longest = nullptr;
  for (const IterationWarmUp& it : iterations)
    if (!longest || it.steady_count > longest->steady_count) longest = &it;
  if (!longest) return std::nullopt;
  return GrowthWindow{"the " + longest->series + " after the first",
                      longest->first_end_ns,
                      longest->last_end_ns,
                      {{longest->first_end_ns, longest->last_end_ns}}};
}

// The highest value in force inside [start_ns, end_ns] minus the value in force at start_ns.
double rise_within(const CounterSeries& series, TimeNs start_ns, TimeNs end_ns, double fallback) {
  const double at_start = value_at(series, start_ns, fallback);
  double high = at_start;
  const auto first = std::upper_bound(series.samples.begin(), series.samples.end(), start_ns,
                                      [](TimeNs t, const CounterSample& s) { return t < s.time_ns; });
  for (auto it = first; it != series.samples.end() && it->time_ns <= end_ns; ++it) high = std::max(high, it->value);
  return high - at_start;
}

MemoryGrowth growth_of(const Trace& trace, std::int64_t device, const CounterSeries& series,
                       const std::optional<GrowthWindow>& steady) {
  MemoryGrowth g;
  g.device = device;
  g.series = series.name;
  g.since_start = series.name == counters::kDeviceMemorySinceStart;
  g.start_bytes = g.since_start ? 0.0 : series.samples.front().value;
  g.peak_bytes = g.start_bytes;
  for (const CounterSample& s : series.samples) g.peak_bytes = std::max(g.peak_bytes, s.value);
  if (!steady) {
    g.before_growth_bytes = series.samples.back().value - g.start_bytes;
    return g;
  }
  g.has_steady = true;
  g.steady_start_ns = steady->start_ns;
  g.steady_end_ns = steady->end_ns;
  g.before_growth_bytes = value_at(series, steady->start_ns, g.start_bytes) - g.start_bytes;
  // Warm-up ranges up to the steady part's end, merged (they may nest). Those inside it (measured cold calls, as
  // in the warmup scenario) are cut out of it: their growth is warm-up, not steady.
  std::vector<Interval> warmups;
  for (const Range& r : trace.ranges())
    if (r.kind == RangeKind::WarmUp && r.start_ns < steady->end_ns) warmups.push_back({r.start_ns, r.end_ns});
  warmups = merged(std::move(warmups));
  g.has_warmup_ranges = !warmups.empty();
  for (const Interval& w : warmups) {
    g.warmup_growth_bytes += value_at(series, w.end_ns, g.start_bytes) - value_at(series, w.start_ns, g.start_bytes);
    if (w.end_ns > steady->start_ns) g.warmup_inside_steady = true;
  }
  // The steady spans with the warm-up ranges cut out.
  std::vector<Interval> steady_pieces;
  for (const Interval& span : steady->spans) {
    TimeNs piece_start = span.start_ns;
    for (const Interval& w : warmups) {
      if (w.end_ns <= piece_start || w.start_ns >= span.end_ns) continue;
      if (w.start_ns > piece_start) steady_pieces.push_back({piece_start, w.start_ns});
      piece_start = std::max(piece_start, w.end_ns);
    }
    if (piece_start < span.end_ns) steady_pieces.push_back({piece_start, span.end_ns});
  }
  g.steady_name = steady->name;
  for (const Interval& piece : steady_pieces)
    g.steady_growth_bytes += rise_within(series, piece.start_ns, piece.end_ns, g.start_bytes);
  // The gaps between the measurements, warm-up ranges cut out as above: inside the window, not measured.
  g.has_gaps = steady->spans.size() > 1;
  for (std::size_t i = 0; i + 1 < steady->spans.size(); ++i) {
    TimeNs piece_start = steady->spans[i].end_ns;
    const TimeNs gap_end = steady->spans[i + 1].start_ns;
    for (const Interval& w : warmups) {
      if (w.end_ns <= piece_start || w.start_ns >= gap_end) continue;
      if (w.start_ns > piece_start) g.gap_growth_bytes += rise_within(series, piece_start, w.start_ns, g.start_bytes);
      piece_start = std::max(piece_start, w.end_ns);
    }
    if (piece_start < gap_end) g.gap_growth_bytes += rise_within(series, piece_start, gap_end, g.start_bytes);
  }
  return g;
}

}  // namespace

std::vector<MemoryGrowth> find_memory_growth(const Trace& trace, const Region& region,
                                             const std::vector<IterationWarmUp>& iterations) {
  const std::optional<GrowthWindow> steady = growth_window(region, iterations);
  std::vector<MemoryGrowth> out;
  for (const auto& [device, series] : gpu_memory_series(trace))
    out.push_back(growth_of(trace, device, *series, steady));
  return out;
}

}  // namespace gtv::analysis::detail
