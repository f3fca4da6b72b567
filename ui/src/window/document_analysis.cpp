#include "gtv/ui/document_analysis.h"

#include <algorithm>
#include <unordered_map>

#include "gtv/analysis/stream_overlap.h"
#include "gtv/model/ranks.h"
#include "gtv/ui/event_text.h"

namespace gtv::ui {
namespace {

void add_iterations(const Trace& trace, OverlayData& o) {
  for (const Range& r : trace.ranges())
    if (r.kind == RangeKind::Iteration) o.iterations.push_back({r.start_ns, r.name});
}

std::string plural(std::size_t n, const char* word) { return std::to_string(n) + " " + word + (n == 1 ? "" : "s"); }

std::string warmup_label(const analysis::WarmUpFinding& f) {
  std::string label = "warm-up: " + std::string(analysis::to_string(f.cause));
  if (f.device >= 0) label += " (GPU " + std::to_string(f.device) + ")";
  return label;
}

std::string warmup_tooltip(const analysis::WarmUpFinding& f) {
  std::string text = "warm-up: " + std::string(analysis::to_string(f.cause));
  if (f.device >= 0) text += " for GPU " + std::to_string(f.device);
  text += "\n" + plural(f.count, f.on_gpu ? "kernel run" : "call");
  if (!f.first_call.empty()) text += ", first: " + f.first_call;
  text += "\ncost " + format_duration(f.cost_ns);
  text += f.cause == analysis::WarmUpCause::SlowFirstKernel ? " (first run minus the median of later runs)"
                                                            : " (the union of its calls)";
  if (f.spans.size() > 1) text += " in " + plural(f.spans.size(), "span");
  return text;
}

// Every span of every finding, exactly: the band never covers time between the calls.
void add_warmup(const analysis::WarmUp& warmup, OverlayData& o) {
  for (std::size_t i = 0; i < warmup.findings.size(); ++i) {
    const analysis::WarmUpFinding& f = warmup.findings[i];
    const std::string label = warmup_label(f);
    const std::string tooltip = warmup_tooltip(f);
    for (const analysis::Interval& span : f.spans) o.warmup.push_back({span.start_ns, span.end_ns, label, tooltip, i});
  }
  std::stable_sort(o.warmup.begin(), o.warmup.end(),
                   [](const ShadedSegment& a, const ShadedSegment& b) { return a.start_ns < b.start_ns; });
}

std::string idle_tooltip(const analysis::IdleInterval& idle, const Trace& trace) {
  std::string text = gpu_label(trace, idle.device) + " idle " + format_duration(idle.end_ns - idle.start_ns) + ": " +
                     std::string(analysis::to_string(idle.cause));
  if (!idle.detail.empty()) text += " (" + idle.detail + ")";
  return text;
}

static_assert(kIdleCauseColorCount == analysis::kIdleCauseCount,
              "every idle cause has its own colour, and no colour is left over");

void add_idle(const analysis::IdleCauses& idle, const Trace& trace, OverlayData& o) {
  for (int c = 0; c < analysis::kIdleCauseCount; ++c)
    o.idle_cause_names.emplace_back(analysis::to_string(static_cast<analysis::IdleCause>(c)));
  if (idle.intervals.empty()) return;
  for (const analysis::GpuIdle& gpu : idle.gpus) o.idle_devices.push_back(gpu.device);
  for (const analysis::IdleInterval& i : idle.intervals) {
    o.idle.push_back({i.device, i.start_ns, i.end_ns, static_cast<int>(i.cause), idle_tooltip(i, trace)});
    if (std::find(o.idle_devices.begin(), o.idle_devices.end(), i.device) == o.idle_devices.end())
      o.idle_devices.push_back(i.device);
  }
  std::sort(o.idle_devices.begin(), o.idle_devices.end());
  for (const std::int64_t device : o.idle_devices) o.idle_labels.push_back(gpu_label(trace, device));
  std::stable_sort(o.idle.begin(), o.idle.end(), [](const IdleBand& a, const IdleBand& b) {
    return a.device != b.device ? a.device < b.device : a.start_ns < b.start_ns;
  });
}

std::string bracket_tooltip(const analysis::MeasurementTruth& m) {
  std::string text = (m.name.empty() ? std::string("measurement") : m.name) + "\n" + std::string(to_string(m.method)) +
                     " reported " + format_duration(m.reported_ns) + "; truth " + format_duration(m.truth_ns) +
                     " (host " + format_duration(m.host_end_ns - m.host_start_ns) + ")";
  if (!m.verdict.empty()) text += "\n" + m.verdict;
  return text;
}

void add_timing(const analysis::TimingTruth& timing, OverlayData& o) {
  for (const auto& m : timing.measurements) {
    const int method = static_cast<int>(m.method);
    const std::string tooltip = bracket_tooltip(m);
    o.brackets.push_back({m.host_start_ns, m.host_end_ns, m.name,
                          std::string(to_string(m.method)) + " " + format_duration(m.reported_ns), method, tooltip});
    if (m.truth_ns > m.host_end_ns - m.host_start_ns)
      o.brackets.push_back(
          {m.host_start_ns, m.host_start_ns + m.truth_ns, m.name, "truth " + format_duration(m.truth_ns), 3, tooltip});
  }
}

// Streams-busy steps are kept for a single GPU of up to this many GPU events (about 32 bytes per event at most).
constexpr std::size_t kMaxStreamStripEvents = 2'000'000;

void add_busy_strip(const Trace& trace, const analysis::Concurrency& concurrency, OverlayData& o) {
  for (const auto& step : concurrency.steps) o.busy_gpus.push_back({step.start_ns, step.busy_gpus});
  if (!concurrency.steps.empty()) o.busy_gpus.push_back({concurrency.steps.back().end_ns, 0});
  o.gpu_count = static_cast<int>(concurrency.gpu_count);
  if (concurrency.gpu_count != 1) return;
  // One GPU: whether its streams overlapped is the question the strip can answer, so it counts streams.
  std::size_t gpu_events = 0;
  for (const Lane& lane : trace.lanes())
    if (lane.is_gpu()) gpu_events += lane.events.size();
  if (gpu_events > kMaxStreamStripEvents) return;
  const analysis::StreamActivity activity = analysis::collect_stream_activity(trace);
  if (activity.streams.empty()) return;
  const std::int64_t device = activity.streams.front().device;
  const auto steps = analysis::stream_level_steps(activity, device, trace.start_ns(), trace.end_ns());
  if (steps.empty()) return;
  int streams = 0;
  for (const auto& s : activity.streams) streams += s.device == device && !s.busy.empty() ? 1 : 0;
  o.busy_gpus.clear();
  for (const auto& step : steps) o.busy_gpus.push_back({step.start_ns, step.busy_streams});
  o.busy_gpus.push_back({steps.back().end_ns, 0});
  o.gpu_count = std::max(streams, 1);
  o.strip_unit = "streams of " + gpu_label(trace, device);
  o.strip_label = gpu_label(trace, device) + " streams busy";
}

// The table colours a kernel as the timeline does: by its name as the trace spells it. The report keys kernels by
// the demangled name, which is that spelling unless the trace stores mangled names.
std::vector<Rgb> kernel_colors(const Trace& trace, const analysis::KernelStats& kernels) {
  std::unordered_map<std::string, std::string> raw_of_demangled;
  const StringPool& strings = trace.strings();
  for (StringId id = 0; id < strings.size(); ++id)
    if (const std::string_view raw = strings.view(id); raw.substr(0, 2) == "_Z")
      raw_of_demangled.emplace(analysis::demangle(raw), std::string(raw));
  std::vector<Rgb> colors;
  colors.reserve(kernels.kernels.size());
  for (const analysis::KernelStat& k : kernels.kernels) {
    const auto it = raw_of_demangled.find(k.full_name);
    colors.push_back(kernel_color(it == raw_of_demangled.end() ? k.full_name : it->second));
  }
  return colors;
}

}  // namespace

void add_critical_path(const Trace& trace, const analysis::CriticalPathAnalysis& critical, OverlayData& o) {
  CriticalPathSpans& path = o.critical_path;
  if (critical.segments.empty()) return;
  path.region = critical.region.name;
  path.headline = critical.headline;
  path.length_ns = critical.length_ns;
  path.stretches.reserve(critical.segments.size());
  std::unordered_map<LaneIndex, int> place_of_lane;
  for (const analysis::PathSegment& s : critical.segments) {
    CriticalStretch& stretch = path.stretches.emplace_back();
    stretch.start_ns = s.start_ns;
    stretch.end_ns = s.end_ns;
    stretch.kind = static_cast<int>(s.kind);
    if (s.has_event) {
      stretch.event = s.event;
      const auto [it, added] = place_of_lane.try_emplace(s.event.lane, static_cast<int>(path.places.size()));
      if (added) path.places.push_back(lane_location(trace, s.event.lane));
      stretch.place = it->second;
    }
  }
}

OverlayData overlays_of(const Trace& trace, const analysis::Report& report) {
  OverlayData o;
  add_iterations(trace, o);
  add_warmup(report.warmup, o);
  add_idle(report.idle, trace, o);
  add_timing(report.timing, o);
  add_busy_strip(trace, report.concurrency, o);
  add_critical_path(trace, report.critical, o);
  const auto& devices = report.communication.devices;
  for (std::size_t i = 0; i < devices.size(); ++i)
    o.communication.push_back({devices[i].device, gpu_label(trace, devices[i].device),
                               i < report.communication.lines.size() ? report.communication.lines[i] : std::string(),
                               devices[i].overlap_spans, devices[i].exposed_spans});
  return o;
}

DocumentAnalysis analyse_document(const Trace& trace) {
  DocumentAnalysis d;
  d.report = analysis::analyze(trace);
  d.report_text = analysis::format_report(d.report, analysis::Format::Text);
  d.kernel_colors = kernel_colors(trace, d.report.kernels);
  d.owners = std::make_shared<const WorkOwners>(work_owners(trace));
  d.overlays = overlays_of(trace, d.report);
  d.overlays.owners = d.owners;
  return d;
}

}  // namespace gtv::ui
