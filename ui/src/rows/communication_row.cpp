#include "gtv/ui/communication_row.h"

#include <QPainter>
#include <algorithm>

namespace gtv::ui {
namespace {

// The span of a sorted, disjoint list that holds t (within slop_ns), or nullptr.
const analysis::Interval* span_at(const std::vector<analysis::Interval>& spans, TimeNs t_ns, TimeNs slop_ns) {
  auto it = std::partition_point(spans.begin(), spans.end(),
                                 [&](const analysis::Interval& s) { return s.end_ns + slop_ns < t_ns; });
  if (it == spans.end() || it->start_ns - slop_ns > t_ns) return nullptr;
  return &*it;
}

void draw_spans(const RowPaint& p, const std::vector<analysis::Interval>& spans, Rgb color) {
  const TimeWindow window = p.map->window();
  std::vector<QRectF> rects;
  auto it = std::partition_point(spans.begin(), spans.end(),
                                 [&](const analysis::Interval& s) { return s.end_ns < window.t0_ns; });
  double covered_px = -1;  // spans inside a pixel already drawn add nothing
  for (; it != spans.end() && it->start_ns <= window.t1_ns; ++it) {
    const double x0 = p.rect.left() + p.map->x_of(it->start_ns);
    const double x1 = std::max(p.rect.left() + p.map->x_of(it->end_ns), x0 + 1);
    if (x1 <= covered_px) continue;
    rects.emplace_back(std::max(x0, covered_px), p.rect.top() + 2, x1 - std::max(x0, covered_px), p.rect.height() - 4);
    covered_px = x1;
  }
  p.painter->setBrush(QColor::fromRgb(static_cast<QRgb>(color)));
  p.painter->drawRects(rects.data(), static_cast<int>(rects.size()));
}

}  // namespace

CommunicationRow::CommunicationRow(const CommunicationSpans& spans) : spans_(&spans) {}

RowDesc CommunicationRow::desc() const {
  RowDesc d;
  d.group = GroupKey{LaneKind::GpuStream, spans_->device};
  d.place = RowPlace::Bottom;
  d.id = "communication " + std::to_string(spans_->device);
  d.label = "communication (NCCL)";
  d.depth_rows = 1;
  return d;
}

void CommunicationRow::draw(const RowPaint& p) const {
  p.painter->save();
  p.painter->setPen(Qt::NoPen);
  draw_spans(p, spans_->overlap, kCommunicationOverlapColor);
  draw_spans(p, spans_->exposed, kCommunicationExposedColor);
  p.painter->restore();
}

QString CommunicationRow::tooltip_at(TimeNs t_ns, int, TimeNs pixel_ns, TimeNs origin_ns) const {
  const analysis::Interval* exposed = span_at(spans_->exposed, t_ns, pixel_ns);
  const analysis::Interval* overlap = exposed ? nullptr : span_at(spans_->overlap, t_ns, pixel_ns);
  const analysis::Interval* span = exposed ? exposed : overlap;
  if (span == nullptr) return {};
  const std::string what = exposed ? "communication exposed: no computation kernel beside it on " + spans_->gpu
                                   : "communication beside computation on " + spans_->gpu;
  return QString::fromStdString(what + "\n" + format_duration_exact(span->end_ns - span->start_ns) + ", from " +
                                format_duration_exact(span->start_ns - origin_ns) + " to " +
                                format_duration_exact(span->end_ns - origin_ns) + "\n" + spans_->totals);
}

std::vector<LegendGroup> CommunicationRow::legend() const {
  return {{"Communication (row under a GPU's lanes)",
           {{kCommunicationOverlapColor, "NCCL beside computation"},
            {kCommunicationExposedColor, "NCCL exposed (no computation beside it)"}}}};
}

}  // namespace gtv::ui
