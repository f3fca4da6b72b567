#include "gtv/ui/legend.h"

#include <algorithm>
#include <array>
#include <map>

#include "gtv/analysis/kernel_names.h"
#include "gtv/model/ranks.h"
#include "gtv/ui/timeline_row.h"

namespace gtv::ui {
namespace {

std::string kind_name(EventKind kind) { return std::string(to_string(kind)); }

std::array<bool, kEventKindCount> kinds_present(const Trace& trace) {
  std::array<bool, kEventKindCount> present{};
  for (const Lane& lane : trace.lanes())
    for (const Event& e : lane.events) present[static_cast<std::size_t>(e.kind)] = true;
  return present;
}

LegendGroup event_kinds(const Trace& trace, const LegendOptions& options) {
  const auto present = kinds_present(trace);
  LegendGroup g{"Events by kind", {}};
  for (EventKind kind :
       {EventKind::Memcpy, EventKind::Memset, EventKind::Runtime, EventKind::Driver, EventKind::Sync, EventKind::CpuOp,
        EventKind::Annotation, EventKind::Overhead, EventKind::Instant, EventKind::Other}) {
    const bool always = !options.only_present && kind != EventKind::Instant && kind != EventKind::Other;
    if (always || present[static_cast<std::size_t>(kind)]) g.entries.push_back({kind_color(kind), kind_name(kind)});
  }
  return g;
}

// Each kernel by the name the lanes label it with (kernel_display_name: its qualified name, template arguments and
// parameters while they fit); kernels that differ only in what was left out are numbered "[2]", "[3]" in order.
LegendGroup kernels(const DocumentAnalysis& analysis, const LegendOptions& options) {
  const auto& stats = analysis.report().kernels.kernels;
  LegendGroup g{"Coloured by kernel name (most GPU time first)", {}};
  std::map<std::string, int> seen;
  for (std::size_t i = 0; i < stats.size() && i < options.kernel_count; ++i) {
    std::string label = analysis::kernel_display_name(stats[i].full_name);
    if (const int n = ++seen[label]; n > 1) label += " [" + std::to_string(n) + "]";
    g.entries.push_back(
        {i < analysis.kernel_colors.size() ? analysis.kernel_colors[i] : kernel_color(stats[i].full_name),
         std::move(label)});
  }
  return g;
}

LegendGroup owners(const DocumentAnalysis& analysis, const LegendOptions& options) {
  LegendGroup g{"Coloured by the model / range that launched the GPU work", {}};
  const WorkOwners* o = analysis.owners ? analysis.owners.get() : analysis.overlays.owners.get();
  if (!o) return g;
  for (std::size_t i = 0; i < o->names.size() && i < o->colors.size(); ++i)
    g.entries.push_back({o->colors[i], o->names[i]});
  if (o->owned_events < o->gpu_events || !options.only_present)
    g.entries.push_back({kind_color(EventKind::Kernel), "kernel with no owner"});
  if (!options.only_present) g.entries.push_back({kMixedOwnersColor, "merged block of several owners"});
  return g;
}

LegendGroup streams(const Trace& trace) {
  LegendGroup g{"Coloured by GPU stream", {}};
  for (const Lane& lane : trace.lanes())
    if (lane.is_gpu())
      g.entries.push_back({stream_color(lane.device(), lane.stream()),
                           gpu_label(trace, lane.device()) + " stream " + std::to_string(lane.stream())});
  return g;
}

LegendGroup gpu_work(const Trace& trace, const DocumentAnalysis& analysis, const LegendOptions& options) {
  switch (options.color_mode) {
    case ColorMode::Owner:
      return owners(analysis, options);
    case ColorMode::Stream:
      return streams(trace);
    case ColorMode::Kind:
      return {"Coloured by kind: GPU kernels", {{kind_color(EventKind::Kernel), "kernel"}}};
    case ColorMode::KernelName:
      break;
  }
  return kernels(analysis, options);
}

LegendGroup busy_strip(const OverlayData& o, const LegendOptions& options) {
  LegendGroup g{
      o.strip_label + " (strip under the lanes; a pixel: the count with most time, faint if busy under half of it)",
      {}};
  if (o.busy_gpus.empty() && options.only_present) return g;
  // "GPUs" / "streams of GPU 0": the singular names one ("1 GPU", "1 stream of GPU 0").
  const std::string& unit = o.strip_unit;
  const std::size_t space = unit.find(' ');
  std::string one_unit = unit.substr(0, space);
  if (!one_unit.empty() && one_unit.back() == 's') one_unit.pop_back();
  if (space != std::string::npos) one_unit += unit.substr(space);
  bool none = false, one = false, many = false;
  for (std::size_t i = 0; i + 1 < o.busy_gpus.size(); ++i) {  // the last step only marks where the strip ends
    const int busy = o.busy_gpus[i].value;
    (busy <= 0 ? none : busy == 1 ? one : many) = true;
  }
  if (none || !options.only_present) g.entries.push_back({options.strip_background, "0 " + unit + " busy"});
  if (one || !options.only_present) g.entries.push_back({kBusyOneRgb, "1 " + one_unit + " busy"});
  if (many || (!options.only_present && o.gpu_count != 1))
    g.entries.push_back({kBusyManyRgb, "2 or more " + unit + " busy"});
  return g;
}

LegendGroup warmup(const OverlayData& o, const LegendOptions& options) {
  LegendGroup g{"Warm-up (band over the lanes)", {}};
  if (!o.warmup.empty() || !options.only_present)
    g.entries.push_back({blend_over(kWarmupRgb, kWarmupAlpha, options.background), "first-use work"});
  return g;
}

LegendGroup idle_causes(const OverlayData& o, const LegendOptions& options) {
  LegendGroup g{"Why a GPU was idle (rows under the lanes; a pixel: the cause with most time)", {}};
  std::vector<bool> present(o.idle_cause_names.size(), false);
  for (const IdleBand& b : o.idle)
    if (b.cause >= 0 && static_cast<std::size_t>(b.cause) < present.size())
      present[static_cast<std::size_t>(b.cause)] = true;
  for (bool want_present : {true, false}) {
    if (!want_present && options.only_present) break;
    for (std::size_t c = 0; c < o.idle_cause_names.size(); ++c)
      if (present[c] == want_present)
        g.entries.push_back({idle_cause_color(static_cast<int>(c)), o.idle_cause_names[c]});
  }
  return g;
}

std::string bracket_legend_label(const Bracket& b) {
  if (b.figure.rfind("truth", 0) == 0) return "truth: host start to the end of its GPU work";
  const int method = std::clamp(b.method, 0, static_cast<int>(MeasurementMethod::Other));
  return "measured by " + std::string(to_string(static_cast<MeasurementMethod>(method)));
}

LegendGroup brackets(const OverlayData& o, const LegendOptions& options) {
  LegendGroup g{"Measurements (brackets above the lanes)", {}};
  auto add = [&g](LegendEntry entry) {
    if (std::find(g.entries.begin(), g.entries.end(), entry) == g.entries.end()) g.entries.push_back(std::move(entry));
  };
  for (const Bracket& b : o.brackets) add({bracket_color(b.method), bracket_legend_label(b)});
  if (options.only_present) return g;
  for (MeasurementMethod m :
       {MeasurementMethod::StopwatchNoSync, MeasurementMethod::StopwatchSync, MeasurementMethod::CudaEvents})
    add({bracket_color(static_cast<int>(m)), "measured by " + std::string(to_string(m))});
  add({bracket_color(kBracketColorCount - 1), "truth: host start to the end of its GPU work"});
  return g;
}

// The rows' groups in row order, one group per title: a title's first group takes the entries of the later ones
// that it lacks.
std::vector<LegendGroup> row_groups(const TimelineRows& rows) {
  std::vector<LegendGroup> groups;
  for (const auto& row : rows)
    for (LegendGroup& group : row->legend()) {
      const auto same =
          std::find_if(groups.begin(), groups.end(), [&](const LegendGroup& g) { return g.title == group.title; });
      if (same == groups.end()) {
        groups.push_back(std::move(group));
        continue;
      }
      for (LegendEntry& entry : group.entries)
        if (std::find(same->entries.begin(), same->entries.end(), entry) == same->entries.end())
          same->entries.push_back(std::move(entry));
    }
  return groups;
}

}  // namespace

Rgb bracket_color(int method) {
  constexpr std::array<Rgb, kBracketColorCount> kColors = {
      role_color(ColorRole::Stopwatch), role_color(ColorRole::StopwatchSync), role_color(ColorRole::CudaEvents),
      role_color(ColorRole::Truth)};
  return kColors[static_cast<std::size_t>(std::clamp(method, 0, kBracketColorCount - 1))];
}

Rgb bracket_text_color(int method, Rgb background) { return readable_on(bracket_color(method), background); }

Rgb warmup_text_color(Rgb background) { return readable_on(0xc06000, background); }

Rgb blend_over(Rgb color, int alpha, Rgb background) {
  Rgb out = 0;
  for (int shift : {16, 8, 0}) {
    const int c = static_cast<int>((color >> shift) & 0xff), b = static_cast<int>((background >> shift) & 0xff);
    out |= static_cast<Rgb>((c * alpha + b * (255 - alpha) + 127) / 255) << shift;
  }
  return out;
}

std::vector<LegendGroup> legend_groups(const Trace& trace, const DocumentAnalysis& analysis,
                                       const LegendOptions& options) {
  const OverlayData& o = analysis.overlays;
  // The colour mode's group first: its title says what the events are coloured by.
  std::vector<LegendGroup> groups = {gpu_work(trace, analysis, options), event_kinds(trace, options),
                                     busy_strip(o, options), warmup(o, options), idle_causes(o, options)};
  const std::vector<LegendGroup> rows = row_groups(make_timeline_rows(trace, o));
  groups.insert(groups.end(), rows.begin(), rows.end());
  groups.push_back(brackets(o, options));
  std::erase_if(groups, [](const LegendGroup& g) { return g.entries.empty(); });
  return groups;
}

}  // namespace gtv::ui
