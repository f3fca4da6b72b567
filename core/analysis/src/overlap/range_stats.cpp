#include "gtv/analysis/range_stats.h"

#include <algorithm>

#include "gtv/analysis/busy.h"
#include "gtv/analysis/concurrency.h"
#include "gtv/analysis/format.h"
#include "gtv/model/ranks.h"

namespace gtv::analysis {

RangeStats range_stats(const Trace& trace, TimeNs start_ns, TimeNs end_ns) {
  RangeStats out;
  out.start_ns = start_ns;
  out.end_ns = std::max(start_ns, end_ns);
  if (out.span_ns() == 0) return out;
  const BusyAnalysis busy = analyze_busy(trace, out.start_ns, out.end_ns);
  const Concurrency concurrency = analyze_concurrency_within(busy, out.start_ns, out.end_ns);
  out.any_busy_ns = concurrency.any_busy_ns;
  out.overlap_ns = concurrency.overlap_ns;
  out.gpus.reserve(busy.gpus.size());
  for (const GpuBusy& g : busy.gpus) out.gpus.push_back({g.device, gpu_label(trace, g.device), g.busy_ns, 0, 0, 0});
  const auto in_range = [&](const Event& e) {
    return e.start_ns < out.end_ns && (e.end_ns() > out.start_ns || (e.duration_ns == 0 && e.start_ns >= out.start_ns));
  };
  for (const Lane& lane : trace.lanes()) {
    if (!lane.is_gpu()) {
      out.host_calls +=
          static_cast<std::size_t>(std::count_if(lane.events.begin(), lane.events.end(), [&](const Event& e) {
            return (e.kind == EventKind::Runtime || e.kind == EventKind::Driver || e.kind == EventKind::Sync) &&
                   in_range(e);
          }));
      continue;
    }
    const auto gpu = std::find_if(out.gpus.begin(), out.gpus.end(),
                                  [&](const GpuRangeStats& g) { return g.device == lane.device(); });
    if (gpu == out.gpus.end()) continue;
    for (const Event& e : lane.events) {
      if (!in_range(e)) continue;
      gpu->kernels += e.kind == EventKind::Kernel ? 1 : 0;
      gpu->copies += e.kind == EventKind::Memcpy ? 1 : 0;
      gpu->memsets += e.kind == EventKind::Memset ? 1 : 0;
    }
  }
  return out;
}

namespace {

std::string counted(std::size_t n, const char* one, const char* many) {
  return grouped_count(n) + " " + (n == 1 ? one : many);
}

}  // namespace

std::vector<std::string> range_stats_lines(const RangeStats& s, TimeNs origin_ns) {
  std::vector<std::string> lines;
  const double span = static_cast<double>(s.span_ns());
  lines.push_back("In the " + format_duration(s.span_ns()) + " selected (" + format_duration(s.start_ns - origin_ns) +
                  " to " + format_duration(s.end_ns - origin_ns) + " after the trace start):");
  if (s.span_ns() <= 0) return lines;
  for (const GpuRangeStats& g : s.gpus) {
    std::string line = g.label + ": busy " + format_duration(g.busy_ns) + " (" +
                       percent(static_cast<double>(g.busy_ns) / span) + "); " + counted(g.kernels, "kernel", "kernels");
    if (g.copies > 0) line += ", " + counted(g.copies, "copy", "copies");
    if (g.memsets > 0) line += ", " + counted(g.memsets, "memset", "memsets");
    lines.push_back(line + " running in it");
  }
  if (s.gpus.empty()) lines.emplace_back("No GPU work is recorded in this trace.");
  if (s.gpus.size() >= 2)
    lines.push_back("Two or more GPUs busy at once: " + format_duration(s.overlap_ns) + " (" +
                    percent(static_cast<double>(s.overlap_ns) / span) + "); any GPU busy: " +
                    format_duration(s.any_busy_ns) + " (" + percent(static_cast<double>(s.any_busy_ns) / span) + ")");
  lines.push_back("Host: " + counted(s.host_calls, "CUDA call", "CUDA calls") +
                  " (runtime, driver, syncs) running in it");
  return lines;
}

}  // namespace gtv::analysis
