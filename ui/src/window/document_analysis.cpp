#include "gtv/ui/document_analysis.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <unordered_map>

#include "gtv/analysis/kernel_names.h"
#include "gtv/model/collectives.h"
#include "gtv/model/ranks.h"
#include "gtv/ui/event_text.h"
#include "gtv/ui/lane_layout.h"

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
  if (!f.first_call.empty())
    text += ", first: " + (f.on_gpu ? analysis::kernel_display_name(f.first_call) : f.first_call);
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

void add_busy_strip(const Trace& trace, const analysis::Report& report, OverlayData& o) {
  const analysis::Concurrency& concurrency = report.concurrency;
  for (const auto& step : concurrency.steps) o.busy_gpus.push_back({step.start_ns, step.busy_gpus});
  if (!concurrency.steps.empty()) o.busy_gpus.push_back({concurrency.steps.back().end_ns, 0});
  o.gpu_count = static_cast<int>(concurrency.gpu_count);
  // One GPU: whether its streams overlapped is the question the strip can answer, so it counts streams.
  const analysis::SingleGpuStreams& single = report.single_gpu;
  if (single.steps.empty()) return;
  o.busy_gpus.clear();
  for (const auto& step : single.steps) o.busy_gpus.push_back({step.start_ns, step.busy_streams});
  o.busy_gpus.push_back({single.steps.back().end_ns, 0});
  o.gpu_count = std::max(single.streams, 1);
  o.strip_unit = "streams of " + gpu_label(trace, single.device);
  o.strip_label = gpu_label(trace, single.device) + " streams busy";
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

std::string rank_words(std::int64_t rank) { return "rank " + std::to_string(rank); }

// "187 us" (digits 3), "2.5 ms" (digits 2): that many significant digits, short enough for a group header beside
// the rank's name.
std::string short_duration(TimeNs ns, int digits) {
  static constexpr std::pair<double, const char*> kUnits[] = {{1e9, "s"}, {1e6, "ms"}, {1e3, "us"}, {1, "ns"}};
  const double value = static_cast<double>(ns);
  for (const auto& [scale, unit] : kUnits) {
    if (value < scale && scale > 1) continue;
    const double in_unit = value / scale;
    const int decimals = in_unit > 0 ? std::max(0, digits - 1 - static_cast<int>(std::floor(std::log10(in_unit)))) : 0;
    char text[48];
    std::snprintf(text, sizeof text, "%.*f %s", decimals, in_unit, unit);
    return text;
  }
  return "0 ns";
}

// "+187 us", "-2.00 ms".
std::string signed_duration(TimeNs ns) {
  return (ns < 0 ? "-" : "+") + short_duration(ns < 0 ? saturating_sub(0, ns) : ns, 3);
}

// What one collective says of all its ranks: who the others waited for and how long, or why nobody's wait counts.
std::string collective_summary(const analysis::CollectiveArrivals& c, const analysis::Stragglers& s) {
  const std::string kind = analysis::collective_words(c.kind);
  if (!c.analysed)
    return c.root < 0 && (root_sends(c.kind) || root_receives(c.kind))
               ? "its root is not recorded (Gloo's host ranges do not tell it): its waits are not counted"
               : "gtv cannot tell who waits for whom at a " + kind + ": its waits are not counted";
  if (c.clock_inconsistent)
    return "a rank's part ended before the rank it needed arrived, impossible on one clock: its waits are not counted";
  std::string out;
  if (c.culprit < 0) {
    out = "nobody waited for a peer";
  } else {
    const std::int64_t culprit = s.ranks[static_cast<std::size_t>(c.culprit)];
    out = ends_together(c.kind)
              ? rank_words(culprit) + " arrived last, " + format_duration(c.spread_ns) +
                    " after the first; the others waited for it " + format_duration(c.wait_caused_ns) + " in total ("
              : "the others waited " + format_duration(c.wait_caused_ns) + " in total for " + rank_words(culprit) +
                    (c.root == c.culprit ? " (the root)" : "") + " (";
    bool first = true;
    for (std::size_t r = 0; r < c.wait_ns.size(); ++r) {
      if (c.wait_ns[r] == 0) continue;
      out += (first ? "" : ", ") + rank_words(s.ranks[r]) + " " + format_duration(c.wait_ns[r]);
      first = false;
    }
    out += ")";
  }
  if (c.root >= 0)
    out += "; root " + rank_words(s.ranks[static_cast<std::size_t>(c.root)]) +
           (c.root_inferred ? " (not recorded: the rank whose part ended " +
                                  std::string(root_sends(c.kind) ? "first" : "last") + ")"
                            : "");
  return out;
}

// One row per rank of a merged run: each matched collective's arrival, wait for peers and transfer.
void add_collectives(const Trace& trace, const analysis::Stragglers& s, OverlayData& o) {
  if (s.collectives.empty() || s.ranks.size() < 2) return;
  auto instances = std::make_shared<std::vector<CollectiveInstance>>();
  instances->reserve(s.collectives.size());
  std::vector<RankCollectives> rows(s.ranks.size());
  for (std::size_t r = 0; r < rows.size(); ++r) rows[r].rank = s.ranks[r];
  std::vector<bool> placed(rows.size(), false);
  for (std::size_t i = 0; i < s.collectives.size(); ++i) {
    const analysis::CollectiveArrivals& c = s.collectives[i];
    instances->push_back(
        {analysis::collective_words(c.kind) + " #" + std::to_string(c.ordinal + 1), collective_summary(c, s)});
    const bool counted = c.analysed && !c.clock_inconsistent;
    const TimeNs last_arrival_ns =
        counted && c.culprit >= 0 ? c.arrival_ns[static_cast<std::size_t>(c.culprit)] : TimeNs{-1};
    for (std::size_t r = 0; r < rows.size() && r < c.arrival_ns.size(); ++r) {
      CollectivePart part;
      part.arrival_ns = c.arrival_ns[r];
      part.end_ns = c.end_ns[r];
      const TimeNs wait_ns = counted && r < c.wait_ns.size() ? c.wait_ns[r] : 0;
      part.wait_end_ns = std::min(part.end_ns, part.arrival_ns + wait_ns);
      part.last_arrival_ns = last_arrival_ns;
      part.instance = static_cast<std::uint32_t>(i);
      part.culprit = counted && c.culprit == static_cast<std::int64_t>(r);
      part.counted = counted;
      if (r < c.refs.size()) part.ref = c.refs[r];
      rows[r].parts.push_back(part);
      if (placed[r] || r >= c.refs.size()) continue;
      const GroupKey group = group_of(trace.lane(c.refs[r].lane).key);
      rows[r].on_gpu = group.first == LaneKind::GpuStream;
      rows[r].group = group.second;
      rows[r].where = rows[r].on_gpu ? gpu_label(trace, group.second)
                                     : rank_words(rows[r].rank) + " · Process " + std::to_string(group.second);
      placed[r] = true;
    }
  }
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (!placed[r]) continue;
    std::sort(rows[r].parts.begin(), rows[r].parts.end(),
              [](const CollectivePart& a, const CollectivePart& b) { return a.arrival_ns < b.arrival_ns; });
    rows[r].instances = instances;
    o.collectives.push_back(std::move(rows[r]));
  }
}

// What the collectives that end together say of each rank's clock against the first rank's (the reference), for
// its headers, short enough for the label column. When the merge moved a rank by an estimate (--clock collectives,
// or a manual shift), the header gives that correction; on the wall clock, the offset the collectives measure.
void add_rank_clocks(const Trace& trace, const analysis::Stragglers& s, OverlayData& o) {
  if (s.clock.collectives == 0 || s.per_rank.size() < 2) return;
  o.rank_clocks.emplace_back(s.per_rank[0].rank, "reference clock");
  for (std::size_t r = 1; r < s.per_rank.size(); ++r) {
    const analysis::RankWaits& w = s.per_rank[r];
    if (w.clock_uncertainty_ns < 0) continue;
    TimeNs correction_ns = 0;
    for (const RankInfo& info : trace.metadata().ranks)
      if (info.rank == w.rank) correction_ns = info.clock_offset_ns;
    const std::string error = " \u00b1" + short_duration(w.clock_uncertainty_ns, 2);
    o.rank_clocks.emplace_back(w.rank, correction_ns != 0 ? "clock shifted " + signed_duration(correction_ns) + error
                                                          : "clock " + signed_duration(w.clock_offset_ns) + error);
  }
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
  add_busy_strip(trace, report, o);
  add_critical_path(trace, report.critical, o);
  add_collectives(trace, report.stragglers, o);
  add_rank_clocks(trace, report.stragglers, o);
  const auto& devices = report.communication.devices;
  for (std::size_t i = 0; i < devices.size(); ++i)
    o.communication.push_back({devices[i].device, gpu_label(trace, devices[i].device),
                               i < report.communication.lines.size() ? report.communication.lines[i] : std::string(),
                               devices[i].overlap_spans, devices[i].exposed_spans});
  return o;
}

const analysis::Report& DocumentAnalysis::report() const {
  static const analysis::Report kNothing;
  return analysed ? analysed->report() : kNothing;
}

DocumentAnalysis analyse_document(std::shared_ptr<const analysis::AnalysedTrace> analysed) {
  DocumentAnalysis d;
  d.analysed = std::move(analysed);
  const Trace& trace = d.analysed->trace();
  const analysis::Report& report = d.analysed->report();
  d.report_text = analysis::format_report(report, analysis::Format::Text);
  d.kernel_colors = kernel_colors(trace, report.kernels);
  d.owners = std::make_shared<const WorkOwners>(work_owners(trace));
  d.overlays = overlays_of(trace, report);
  d.overlays.owners = d.owners;
  return d;
}

DocumentAnalysis analyse_document(std::shared_ptr<const Trace> trace) {
  return analyse_document(std::make_shared<const analysis::AnalysedTrace>(std::move(trace)));
}

DocumentAnalysis analyse_document(const Trace& trace) {
  // An empty owner: the shared pointer points at the caller's trace and never deletes it.
  return analyse_document(
      std::make_shared<const analysis::AnalysedTrace>(std::shared_ptr<const Trace>(std::shared_ptr<void>(), &trace)));
}

}  // namespace gtv::ui
