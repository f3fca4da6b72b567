#include <QPainterPath>
#include <algorithm>
#include <cmath>

#include "gtv/ui/timeline_layers.h"

namespace gtv::ui {
namespace {

const QColor kBracketColors[] = {QColor(0xd6, 0x27, 0x28), QColor(0x2c, 0xa0, 0x2c), QColor(0x1f, 0x77, 0xb4),
                                 QColor(0x80, 0x80, 0x80)};

void draw_arrow(QCPPainter* painter, QPointF from, QPointF to, const QColor& color) {
  painter->setPen(QPen(color, 1.6));
  painter->drawLine(from, to);
  const double angle = std::atan2(to.y() - from.y(), to.x() - from.x());
  const double size = 8;
  QPainterPath head;
  head.moveTo(to);
  head.lineTo(to - QPointF(size * std::cos(angle - 0.4), size * std::sin(angle - 0.4)));
  head.lineTo(to - QPointF(size * std::cos(angle + 0.4), size * std::sin(angle + 0.4)));
  head.closeSubpath();
  painter->fillPath(head, color);
}

}  // namespace

TimelineOverlays::TimelineOverlays(QCustomPlot* plot, const TimelineState* state, QCPAxisRect* axis_rect)
    : QCPLayerable(plot), state_(state), axis_rect_(axis_rect) {}

void TimelineOverlays::applyDefaultAntialiasingHint(QCPPainter* painter) const { painter->setAntialiasing(true); }

void TimelineOverlays::draw(QCPPainter* painter) {
  if (!state_->trace) return;
  const QRectF area = axis_rect_->rect();
  const QRectF lanes = state_->lane_rect(area);
  const TimeMapping map(state_->window, area.width());
  painter->save();
  painter->setClipRect(area);
  draw_bands(painter, map, area);
  draw_overlap_strip(painter, map, area);
  painter->setClipRect(lanes);
  draw_selection(painter, map, lanes);
  painter->setClipRect(area);
  draw_measure(painter, map, area);
  if (state_->box) {
    painter->setPen(QPen(state_->theme.measure, 1, Qt::DashLine));
    painter->setBrush(QColor(0x10, 0x70, 0xd0, 40));
    painter->drawRect(*state_->box);
  }
  painter->restore();
}

void TimelineOverlays::draw_bands(QCPPainter* painter, const TimeMapping& map, const QRectF& area) const {
  const OverlayData& o = state_->overlays;
  const double left = area.left();
  painter->setFont(state_->theme.font(8));
  for (const ShadedSegment& s : o.warmup) {
    const double x0 = left + map.x_of(s.start_ns), x1 = left + map.x_of(s.end_ns);
    const QRectF r(x0, area.top(), std::max(x1 - x0, 1.0), area.height());
    painter->fillRect(r, QColor(0xff, 0x99, 0x00, 38));
    if (r.width() < 40) continue;  // too narrow to name: the shading alone marks it
    painter->setPen(QColor(0xc0, 0x60, 0x00));
    const QRectF text_rect(r.left() + 2, area.bottom() - state_->bottom_band_px - 16, r.width() - 4, 14);
    painter->drawText(text_rect, Qt::AlignLeft | Qt::AlignVCenter,
                      painter->fontMetrics().elidedText(QString::fromStdString("warm-up: " + s.label), Qt::ElideRight,
                                                        static_cast<int>(text_rect.width())));
  }
  painter->setPen(QPen(state_->theme.grid.darker(130), 1, Qt::DotLine));
  for (const Mark& m : o.iterations) {
    const double x = left + map.x_of(m.time_ns);
    painter->drawLine(QPointF(x, area.top()), QPointF(x, area.bottom()));
  }
  const double row_px = state_->theme.depth_px();
  for (std::size_t i = 0; i < o.brackets.size(); ++i) {
    const Bracket& b = o.brackets[i];
    const QColor c = kBracketColors[static_cast<std::size_t>(std::clamp(b.method, 0, 3))];
    const double y = area.top() + 4 + static_cast<double>(i % 4) * row_px;
    const double x0 = left + map.x_of(b.start_ns), x1 = left + map.x_of(b.end_ns);
    painter->setPen(QPen(c, 2));
    painter->drawLine(QPointF(x0, y + row_px - 4), QPointF(x0, y + 4));
    painter->drawLine(QPointF(x0, y + 4), QPointF(x1, y + 4));
    painter->drawLine(QPointF(x1, y + 4), QPointF(x1, y + row_px - 4));
    // The label starts at the bracket but stays inside the plot when the bracket reaches the right edge.
    const QString label = QString::fromStdString(b.label);
    const double text_px = painter->fontMetrics().horizontalAdvance(label) + 8;
    const double text_x = std::max(area.left(), std::min(x0 + 4, area.right() - text_px));
    painter->drawText(QRectF(text_x, y + 4, text_px, row_px - 4), Qt::AlignLeft | Qt::AlignVCenter, label);
  }
}

void TimelineOverlays::draw_overlap_strip(QCPPainter* painter, const TimeMapping& map, const QRectF& area) const {
  const OverlayData& o = state_->overlays;
  if (state_->bottom_band_px <= 0 || o.busy_gpus.empty() || o.gpu_count <= 0) return;
  const QRectF strip(area.left(), area.bottom() - state_->bottom_band_px, area.width(), state_->bottom_band_px);
  painter->fillRect(strip, state_->theme.header_background);
  const double unit_px = (strip.height() - 4) / o.gpu_count;
  for (std::size_t i = 0; i < o.busy_gpus.size(); ++i) {
    const Step& s = o.busy_gpus[i];
    if (s.value <= 0) continue;
    const TimeNs end = i + 1 < o.busy_gpus.size() ? o.busy_gpus[i + 1].time_ns : s.time_ns;
    const double x0 = std::max(strip.left() + map.x_of(s.time_ns), strip.left());
    const double x1 = std::min(strip.left() + map.x_of(end), strip.right());
    if (x1 < strip.left() || x0 > strip.right()) continue;
    const double h = unit_px * s.value;
    const QColor c = s.value >= 2 ? QColor(0x2c, 0xa0, 0x2c) : QColor(0x9e, 0xb8, 0xd8);
    painter->fillRect(QRectF(x0, strip.bottom() - h, std::max(x1 - x0, 1.0), h), c);
  }
  painter->setPen(state_->theme.text);
  painter->setFont(state_->theme.font(8));
  painter->drawText(strip.adjusted(4, 0, 0, 0), Qt::AlignLeft | Qt::AlignTop, QStringLiteral("GPUs busy"));
}

std::optional<QRectF> TimelineOverlays::event_rect(EventRef ref, const TimeMapping& map, const QRectF& lanes) const {
  const int row = state_->layout.row_of_lane(ref.lane);
  if (row < 0) return std::nullopt;
  const Event& e = state_->trace->event(ref);
  const LaneRow& r = state_->layout.rows()[static_cast<std::size_t>(row)];
  const int depth = std::min<int>(e.depth, r.depth_rows - 1);
  const double y = state_->row_y(lanes, state_->layout.depth_top_px(row, depth));
  const double x0 = lanes.left() + map.x_of(e.start_ns);
  const double x1 = lanes.left() + map.x_of(e.end_ns());
  return QRectF(x0, y, std::max(x1 - x0, 2.0), state_->layout.options().depth_px);
}

void TimelineOverlays::draw_selection(QCPPainter* painter, const TimeMapping& map, const QRectF& lanes) const {
  if (!state_->selected) return;
  const auto rect = event_rect(*state_->selected, map, lanes);
  if (rect) {
    painter->setPen(QPen(state_->theme.selection, 2));
    painter->setBrush(Qt::NoBrush);
    painter->drawRect(*rect);
  }
  const auto flow = state_->trace->flow_of(*state_->selected);
  if (!flow) return;
  const auto from = event_rect(flow->from, map, lanes);
  const auto to = event_rect(flow->to, map, lanes);
  if (!from || !to) return;
  draw_arrow(painter, QPointF(from->left(), from->bottom()), QPointF(to->left(), to->top()), state_->theme.flow);
}

void TimelineOverlays::draw_measure(QCPPainter* painter, const TimeMapping& map, const QRectF& area) const {
  if (!state_->measure) return;
  const double x0 = area.left() + map.x_of(state_->measure->t0_ns);
  const double x1 = area.left() + map.x_of(state_->measure->t1_ns);
  QColor fill = state_->theme.measure;
  fill.setAlpha(40);
  painter->fillRect(QRectF(x0, area.top(), x1 - x0, area.height()), fill);
  painter->setPen(QPen(state_->theme.measure, 1.5));
  painter->drawLine(QPointF(x0, area.top()), QPointF(x0, area.bottom()));
  painter->drawLine(QPointF(x1, area.top()), QPointF(x1, area.bottom()));
  painter->setFont(state_->theme.font(9, true));
  const QString text = QString::fromStdString(format_duration_exact(state_->measure->span_ns()));
  painter->drawText(QRectF(std::min(x0, x1), area.top() + 2, std::max(std::fabs(x1 - x0), 160.0), 20),
                    Qt::AlignHCenter | Qt::AlignTop, text);
}

}  // namespace gtv::ui
