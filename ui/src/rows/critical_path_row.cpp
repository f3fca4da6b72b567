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

CriticalPathRow::CriticalPathRow(const CriticalPathSpans& path) : path_(&path) {}

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

void CriticalPathRow::draw(const RowPaint& p) const {
  const TimeWindow window = p.map->window();
  const auto& stretches = path_->stretches;
  auto it = std::partition_point(stretches.begin(), stretches.end(),
                                 [&](const CriticalStretch& s) { return s.end_ns < window.t0_ns; });
  p.painter->save();
  p.painter->setPen(Qt::NoPen);
  // Stretches narrower than a pixel share it: the pixel takes the colour of the one that covers most of it, so a
  // zoomed-out path shows what dominates each pixel, and a paint costs one rectangle per pixel at most.
  double pixel_x = -1;
  TimeNs best_ns = -1;
  int best_kind = 0;
  const auto flush = [&] {
    if (best_ns < 0) return;
    p.painter->setBrush(QColor::fromRgb(static_cast<QRgb>(critical_segment_color(best_kind))));
    p.painter->drawRect(QRectF(pixel_x, p.rect.top() + 2, 1, p.rect.height() - 4));
    best_ns = -1;
  };
  for (; it != stretches.end() && it->start_ns <= window.t1_ns; ++it) {
    const double x0 = p.rect.left() + p.map->x_of(it->start_ns);
    const double x1 = p.rect.left() + p.map->x_of(it->end_ns);
    if (x1 - x0 >= 1) {
      flush();
      p.painter->setBrush(QColor::fromRgb(static_cast<QRgb>(critical_segment_color(it->kind))));
      p.painter->drawRect(QRectF(x0, p.rect.top() + 2, x1 - x0, p.rect.height() - 4));
      continue;
    }
    const double px = std::floor(x0);
    if (px != pixel_x) {
      flush();
      pixel_x = px;
    }
    if (it->end_ns - it->start_ns > best_ns) {
      best_ns = it->end_ns - it->start_ns;
      best_kind = it->kind;
    }
  }
  flush();
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
  LegendGroup g{"Critical path of " + path_->region + " (row under the lanes)", {}};
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
