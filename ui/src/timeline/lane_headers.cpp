#include <QFontMetricsF>
#include <algorithm>
#include <cmath>
#include <limits>

#include "gtv/ui/timeline_layers.h"

namespace gtv::ui {

QVector<double> TimeTicker::createTickVector(double tick_step, const QCPRange& range) {
  // Ticks fall on round times since the origin, not on round absolute times.
  const QCPRange shifted(range.lower - static_cast<double>(origin_ns_), range.upper - static_cast<double>(origin_ns_));
  QVector<double> ticks = QCPAxisTicker::createTickVector(tick_step, shifted);
  labeling_ = choose_axis_labeling(shifted.lower, shifted.upper, tick_step);
  // The base goes on the first tick drawn; ticks just outside the range get labels too but are not drawn.
  first_visible_tick_ = std::numeric_limits<double>::quiet_NaN();
  for (double& t : ticks) {
    if (std::isnan(first_visible_tick_) && t >= shifted.lower) first_visible_tick_ = t;
    t += static_cast<double>(origin_ns_);
  }
  return ticks;
}

QString TimeTicker::getTickLabel(double tick, const QLocale&, QChar, int) {
  const double since_origin_ns = tick - static_cast<double>(origin_ns_);
  return QString::fromStdString(axis_tick_label(
      since_origin_ns, labeling_, std::fabs(since_origin_ns - first_visible_tick_) < 1e-3 * labeling_.step_ns));
}

double label_indent_px(bool header, bool figure, double font_scale) {
  if (header) return 4;
  return figure ? 12 * font_scale : 16;
}

QString header_label_text(const QString& prefix, const QString& label, double width_px, const QFontMetricsF& metrics) {
  const double room_px = width_px - metrics.horizontalAdvance(prefix);
  return prefix + metrics.elidedText(label, Qt::ElideMiddle, std::max(0.0, room_px));
}

LaneHeaders::LaneHeaders(QCustomPlot* plot, const TimelineState* state, QCPAxisRect* axis_rect)
    : QCPLayerable(plot), state_(state), axis_rect_(axis_rect) {}

void LaneHeaders::applyDefaultAntialiasingHint(QCPPainter* painter) const { painter->setAntialiasing(true); }

void LaneHeaders::draw(QCPPainter* painter) {
  if (!state_->trace) return;
  const QRectF lanes = state_->lane_rect(axis_rect_->rect());
  const QRectF area(0, lanes.top(), lanes.left(), lanes.height());
  painter->save();
  painter->setClipRect(area);
  painter->fillRect(area, state_->theme.header_background);
  const QFont group_font = state_->theme.font(9, true);
  const QFont lane_font = state_->theme.font(9);
  const auto& rows = state_->layout.rows();
  for (const LaneRow& row : rows) {
    const double y = state_->row_y(lanes, row.top_px);
    if (y > area.bottom()) break;
    if (y + row.height_px < area.top()) continue;
    const bool header = row.kind == RowKind::ProcessHeader || row.kind == RowKind::DeviceHeader;
    const double line_px = header ? row.height_px : state_->layout.options().depth_px;
    if (header) painter->fillRect(QRectF(0, y, area.width(), row.height_px), state_->theme.group_background);
    const bool expandable = header || row.can_collapse;
    // A figure shows names only: a triangle there is a control nobody can press.
    QString arrow = expandable ? (row.collapsed ? QStringLiteral("\u25B8 ") : QStringLiteral("\u25BE ")) : "  ";
    if (state_->figure) arrow.clear();
    painter->setFont(header ? group_font : lane_font);
    painter->setPen(state_->theme.text);
    const double indent = label_indent_px(header, state_->figure, state_->theme.font_scale);
    const QRectF text_rect(indent, y, area.width() - indent - 4, line_px);
    painter->drawText(text_rect, Qt::AlignVCenter | Qt::AlignLeft,
                      header_label_text(arrow, QString::fromStdString(row.label), text_rect.width(),
                                        QFontMetricsF(painter->font(), painter->device())));
  }
  painter->setPen(state_->theme.grid);
  painter->drawLine(QPointF(area.right(), area.top()), QPointF(area.right(), area.bottom()));
  painter->restore();
}

}  // namespace gtv::ui
