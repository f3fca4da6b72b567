#include <algorithm>
#include <map>

#include "report_document.h"

namespace gtv::analysis::detail {
namespace {

std::string gpu_label(std::int64_t device) { return device < 0 ? "all" : std::to_string(device); }

std::string device_name(const Report& r, std::int64_t device) {
  for (const GpuSummary& g : r.summary.gpus)
    if (g.index == device) return g.name.empty() ? "unknown" : g.name;
  return "unknown";
}

}  // namespace

std::string at(const Report& r, TimeNs time_ns) { return format_duration(time_ns - r.summary.start_ns); }

std::string more_rows_note(std::size_t total, std::size_t shown, const std::string& what) {
  return total > shown ? std::to_string(total - shown) + " more " + what + " not shown." : "";
}

Section overview_section(const Report& r) {
  const TraceSummary& s = r.summary;
  Section sec{"Overview", {}, {}};
  sec.lines.push_back("Source: " + (s.source_tool.empty() ? std::string("unknown") : s.source_tool));
  if (!s.scenario.empty()) sec.lines.push_back("Scenario: " + s.scenario);
  sec.lines.push_back("Time span: " + format_duration(s.duration_ns()));
  sec.lines.push_back("Events: " + std::to_string(s.event_count) + " on " + std::to_string(s.processes.size()) +
                      " process(es) and " + std::to_string(s.gpus.size()) + " GPU(s); " +
                      std::to_string(s.flow_count) + " launch-to-GPU flows, " + std::to_string(s.range_count) +
                      " ranges, " + std::to_string(s.measurement_count) + " measurements");
  if (s.dropped_records > 0)
    sec.lines.push_back("Warning: " + std::to_string(s.dropped_records) + " trace records were dropped while recording.");
  return sec;
}

Section busy_section(const Report& r) {
  Section sec{"GPU busy time", {}, {}};
  if (r.busy.gpus.empty()) {
    sec.lines.emplace_back("No GPU activity: no kernel, copy or memset in this trace.");
    return sec;
  }
  sec.lines.push_back("Window: " + format_duration(r.busy.window_ns()) + " (the whole trace).");
  Table gpus{{"GPU", "name", "busy", "idle", "utilization", "kernels", "kernel time"},
             {false, false, true, true, true, true, true}, {}, {}};
  for (const GpuBusy& g : r.busy.gpus)
    gpus.rows.push_back({std::to_string(g.device), device_name(r, g.device), format_duration(g.busy_ns),
                         format_duration(g.idle_ns), percent(g.utilization, 1), std::to_string(g.kernel_count),
                         format_duration(g.kernel_ns)});
  Table streams{{"GPU", "stream", "activities", "busy", "utilization"}, {false, false, true, true, true}, {}, {}};
  for (const StreamBusy& s : r.busy.streams)
    streams.rows.push_back({std::to_string(s.device), std::to_string(s.stream), std::to_string(s.activity_count),
                            format_duration(s.busy_ns), percent(s.utilization, 1)});
  sec.tables = {std::move(gpus), std::move(streams)};
  return sec;
}

Section concurrency_section(const Report& r) {
  const Concurrency& c = r.concurrency;
  Section sec{"Concurrency", {c.verdict}, {}};
  if (c.gpu_count == 0) return sec;
  sec.lines.push_back("At least one GPU busy: " + format_duration(c.any_busy_ns) + "; two or more: " +
                      format_duration(c.overlap_ns) + " (" + percent(c.overlap_share) + ").");
  sec.lines.push_back("Sum of per-GPU busy time: " + format_duration(c.sum_busy_ns) + "; effective parallelism " +
                      fixed(c.effective_parallelism, 2) + " (1.00 = serial, " + std::to_string(c.gpu_count) +
                      ".00 = all GPUs always together).");
  sec.lines.push_back("Ideal: " + format_duration(c.ideal_ns) + " (the busiest GPU alone, if all work overlapped).");
  std::map<int, TimeNs> at_level;
  for (const ConcurrencyStep& s : c.steps) at_level[s.busy_gpus] += s.end_ns - s.start_ns;
  Table t{{"GPUs busy", "time", "share of active time"}, {true, true, true}, {}, {}};
  const TimeNs active_ns = c.steps.empty() ? 0 : c.steps.back().end_ns - c.steps.front().start_ns;
  for (const auto& [level, ns] : at_level)
    t.rows.push_back({std::to_string(level), format_duration(ns), percent(safe_ratio(double(ns), double(active_ns)), 1)});
  sec.tables.push_back(std::move(t));
  return sec;
}

Section blocking_section(const Report& r) {
  const HostBlocking& h = r.blocking;
  Section sec{"Host blocking", h.findings, {}};
  if (h.calls.empty()) return sec;
  std::vector<const BlockingCall*> calls;
  for (const BlockingCall& c : h.calls) calls.push_back(&c);
  std::stable_sort(calls.begin(), calls.end(),
                   [](const BlockingCall* a, const BlockingCall* b) { return a->duration_ns > b->duration_ns; });
  Table t{{"thread", "call", "kind", "at", "blocked"}, {false, false, false, true, true}, {}, {}};
  for (std::size_t i = 0; i < calls.size() && i < kMaxTableRows; ++i)
    t.rows.push_back({std::to_string(calls[i]->tid), calls[i]->name, std::string(to_string(calls[i]->kind)),
                      at(r, calls[i]->start_ns), format_duration(calls[i]->duration_ns)});
  t.note = more_rows_note(calls.size(), kMaxTableRows, "blocking calls");
  sec.tables.push_back(std::move(t));
  return sec;
}

Section warmup_section(const Report& r) {
  const WarmUp& w = r.warmup;
  Section sec{"Warm-up", w.findings, {}};
  if (!w.devices.empty()) {
    Table t{{"GPU", "basis", "first", "steady mean", "steady count", "cost", "slowdown"},
            {false, false, true, true, true, true, true}, {}, {}};
    for (const DeviceWarmUp& d : w.devices)
      if (d.first_ns > 0 || d.steady_count > 0)  // a warm-up range alone is told in the findings
        t.rows.push_back({gpu_label(d.device), d.basis == WarmUpBasis::Ranges ? "ranges" : "kernel names",
                        format_duration(d.first_ns), format_duration(d.steady_mean_ns), std::to_string(d.steady_count),
                        format_duration(d.cold_start_ns), d.steady_count > 0 ? fixed(d.slowdown, 1) + "x" : "-"});
    if (!t.rows.empty()) sec.tables.push_back(std::move(t));
  }
  if (w.segments.empty()) return sec;
  std::vector<const WarmUpSegment*> segs;
  for (const WarmUpSegment& s : w.segments) segs.push_back(&s);
  std::stable_sort(segs.begin(), segs.end(),
                   [](const WarmUpSegment* a, const WarmUpSegment* b) { return a->time_ns > b->time_ns; });
  Table t{{"cause", "thread", "at", "time", "calls", "first call"}, {false, false, true, true, true, false}, {}, {}};
  for (std::size_t i = 0; i < segs.size() && i < kMaxTableRows; ++i)
    t.rows.push_back({std::string(to_string(segs[i]->cause)), std::to_string(segs[i]->tid),
                      at(r, segs[i]->start_ns), format_duration(segs[i]->time_ns),
                      std::to_string(segs[i]->call_count), segs[i]->first_call});
  t.note = more_rows_note(segs.size(), kMaxTableRows, "warm-up segments");
  sec.tables.push_back(std::move(t));
  return sec;
}

}  // namespace gtv::analysis::detail
