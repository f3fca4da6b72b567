#include "gtv/ui/critical_path_row.h"

#include <QPainter>
#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>

#include "gtv/causal/critical_path.h"
#include "gtv/ui/event_text.h"

namespace gtv::ui {

Rgb critical_segment_color(int kind) {
  // In causal::SegmentKind order; a stretch takes the role of what it is elsewhere on screen (a copy's red, the
  // idle rows' "host launching").
  static constexpr std::array<ColorRole, causal::kSegmentKindCount> kRoles = {
      ColorRole::Kernel,           // kernel
      ColorRole::Copy,             // copy
      ColorRole::Memset,           // memset
      ColorRole::PeerRank,         // collective transfer: the idle rows' "waiting for a peer rank"
      ColorRole::HostLaunching,    // host launching
      ColorRole::HostWaiting,      // host in a waiting call: the idle rows' "host blocked"
      ColorRole::RuntimeCall,      // other host API call
      ColorRole::WarmupCause,      // lazy module loading: the idle rows' warm-up
      ColorRole::TracingOverhead,  // tracing overhead
      ColorRole::HostBusy,         // host own work: the idle rows' "host busy"
      ColorRole::LaunchLatency,    // launch latency
      ColorRole::QueuedGap,        // stream gap: the idle rows' "queued gap"
      ColorRole::OtherGpuWork,     // GPU held by other streams
      ColorRole::DependencyWait,   // event wait: the idle rows' "waiting on a dependency"
      ColorRole::SyncWake,         // host waking from a wait
      ColorRole::NotRecorded,      // not recorded
  };
  if (kind < 0 || kind >= causal::kSegmentKindCount) return role_color(ColorRole::NotRecorded);
  return role_color(kRoles[static_cast<std::size_t>(kind)]);
}

CriticalPathRow::CriticalPathRow(const CriticalPathSpans& path)
    : path_(&path),
      columns_(path.stretches.size(), causal::kSegmentKindCount, [this](std::size_t i) { return run_at(i); }) {}

RowDesc CriticalPathRow::desc() const {
  RowDesc d;
  d.group = kCriticalPathGroup;
  d.group_label = "Critical path";
  d.place = RowPlace::Top;
  d.id = "critical path";
  d.label = "critical path (" + path_->region + ")";
  d.depth_rows = 1;
  return d;
}

KindRun CriticalPathRow::run_at(std::size_t i) const {
  const CriticalStretch& s = path_->stretches[i];
  return {s.start_ns, s.end_ns, s.kind};
}

void CriticalPathRow::draw(const RowPaint& p) const {
  const int width_px = static_cast<int>(std::ceil(p.map->width_px()));
  const TimeNs t0_ns = p.map->window().t0_ns;
  // Zoomed out, stretches share pixels: each pixel takes the kind with the most time in it (as the idle rows do),
  // and runs of pixels of one kind are one rectangle, so a paint costs the pixels, not the stretches.
  thread_local std::vector<KindColumn> columns;
  columns_.columns([this](std::size_t i) { return run_at(i); }, t0_ns,
                   t0_ns + std::llround(width_px * p.map->ns_per_px()), width_px, columns);
  p.painter->save();
  p.painter->setPen(Qt::NoPen);
  const double x_of_column0 = p.rect.left();
  for (int c = 0; c < width_px;) {
    const int kind = columns[static_cast<std::size_t>(c)].kind;
    int end = c + 1;
    while (end < width_px && columns[static_cast<std::size_t>(end)].kind == kind) ++end;
    if (kind >= 0) {
      p.painter->setBrush(QColor::fromRgb(static_cast<QRgb>(critical_segment_color(kind))));
      p.painter->drawRect(QRectF(x_of_column0 + c, p.rect.top() + 2, end - c, p.rect.height() - 4));
    }
    c = end;
  }
  p.painter->restore();
}

const CriticalStretch* CriticalPathRow::stretch_at(TimeNs t_ns, TimeNs pixel_ns) const {
  const auto& stretches = path_->stretches;
  auto it = std::partition_point(stretches.begin(), stretches.end(),
                                 [&](const CriticalStretch& s) { return s.end_ns <= t_ns; });
  if (it != stretches.end() && it->start_ns <= t_ns) return &*it;
  // Between stretches or past either end: the nearest within a pixel, so a stretch narrower than one can be hovered.
  const CriticalStretch* nearest = nullptr;
  TimeNs nearest_ns = pixel_ns + 1;
  if (it != stretches.end() && it->start_ns - t_ns < nearest_ns) {
    nearest = &*it;
    nearest_ns = it->start_ns - t_ns;
  }
  if (it != stretches.begin() && t_ns - std::prev(it)->end_ns < nearest_ns) nearest = &*std::prev(it);
  return nearest;
}

QString CriticalPathRow::tooltip_at(TimeNs t_ns, int, TimeNs pixel_ns, TimeNs origin_ns) const {
  const CriticalStretch* s = stretch_at(t_ns, pixel_ns);
  if (s == nullptr) return {};
  std::string text = "critical path of " + path_->region + ": " +
                     std::string(causal::to_string(static_cast<causal::SegmentKind>(s->kind)));
  if (s->place >= 0 && static_cast<std::size_t>(s->place) < path_->places.size())
    text += " (" + path_->places[static_cast<std::size_t>(s->place)] + ")";
  text += "\n" + format_duration_exact(s->end_ns - s->start_ns) + ", from " +
          format_duration_exact(s->start_ns - origin_ns) + " to " + format_duration_exact(s->end_ns - origin_ns);
  if (!path_->headline.empty()) text += "\n" + path_->headline;
  if (s->event) text += "\nclick to select its event";
  return QString::fromStdString(text);
}

std::optional<EventRef> CriticalPathRow::event_at(TimeNs t_ns, int, TimeNs pixel_ns) const {
  const CriticalStretch* s = stretch_at(t_ns, pixel_ns);
  return s != nullptr ? s->event : std::nullopt;
}

std::vector<LegendGroup> CriticalPathRow::legend() const {
  LegendGroup g{"Critical path of " + path_->region + " (row under the lanes; a pixel: the kind with most time)", {}};
  std::array<TimeNs, causal::kSegmentKindCount> total_ns{};
  for (const CriticalStretch& s : path_->stretches)
    if (s.kind >= 0 && s.kind < causal::kSegmentKindCount)
      total_ns[static_cast<std::size_t>(s.kind)] += s.end_ns - s.start_ns;
  std::vector<int> kinds;
  for (int k = 0; k < causal::kSegmentKindCount; ++k)
    if (total_ns[static_cast<std::size_t>(k)] > 0) kinds.push_back(k);
  std::stable_sort(kinds.begin(), kinds.end(), [&](int a, int b) {
    return total_ns[static_cast<std::size_t>(a)] > total_ns[static_cast<std::size_t>(b)];
  });
  for (const int k : kinds)
    g.entries.push_back(
        {critical_segment_color(k), std::string(causal::to_string(static_cast<causal::SegmentKind>(k)))});
  return {g};
}

}  // namespace gtv::ui
