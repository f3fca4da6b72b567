#include "gtv/ui/lane_plottable.h"

#include <cmath>
#include <limits>

namespace gtv::ui {
namespace {

QColor to_qcolor(Rgb rgb) { return QColor::fromRgb(static_cast<QRgb>(rgb)); }

}  // namespace

LanePlottable::LanePlottable(QCPAxis* key_axis, QCPAxis* value_axis, const TimelineState* state)
    : QCPAbstractPlottable(key_axis, value_axis), state_(state) {
  setSelectable(QCP::stNone);
  setAntialiasedFill(false);
}

double LanePlottable::selectTest(const QPointF&, bool, QVariant*) const { return -1; }

QCPRange LanePlottable::getKeyRange(bool& found_range, QCP::SignDomain) const {
  found_range = state_->trace != nullptr;
  if (!found_range) return {};
  return {static_cast<double>(state_->trace->start_ns()), static_cast<double>(state_->trace->end_ns())};
}

QCPRange LanePlottable::getValueRange(bool& found_range, QCP::SignDomain, const QCPRange&) const {
  found_range = true;
  return {0, 1};
}

void LanePlottable::drawLegendIcon(QCPPainter* painter, const QRectF& rect) const {
  painter->fillRect(rect, QColor(0x4e, 0x79, 0xa7));
}

void LanePlottable::draw(QCPPainter* painter) {
  cache_.span_count = 0;
  if (!state_->trace || !mKeyAxis) return;
  const QRectF axis_rect = mKeyAxis->axisRect()->rect();
  RowGeometry g;
  g.lane_area = state_->lane_rect(axis_rect);
  const double left = g.lane_area.left();
  if (g.lane_area.width() < 1 || g.lane_area.height() < 1) return;
  painter->save();
  painter->setClipRect(g.lane_area);
  painter->setAntialiasing(false);
  painter->setFont(state_->theme.font(8));
  const TimeMapping map(state_->window, g.lane_area.width());
  cache_.stripe_colors.clear();
  if (const WorkOwners* owners = state_->overlays.owners.get())
    for (const Rgb rgb : owners->colors) cache_.stripe_colors.push_back(to_qcolor(rgb).darker(125));
  const auto& rows = state_->layout.rows();
  const auto visible = [&](const LaneRow& row) {
    g.y_top = state_->row_y(g.lane_area, row.top_px);
    return g.y_top <= g.lane_area.bottom() && g.y_top + row.height_px >= g.lane_area.top();
  };
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (visible(rows[i])) draw_row_background(painter, rows[i], static_cast<int>(i), g);
  // Iteration marks go over the row backgrounds but under events and ranges, so no mark runs through a name.
  painter->setPen(QPen(state_->theme.grid.darker(130), 1, Qt::DotLine));
  // One mark per pixel column at most: 160,000 iterations zoomed out are a grey wash, not 160,000 dotted lines.
  long last_column = std::numeric_limits<long>::min();
  for (const Mark& m : state_->overlays.iterations) {
    if (m.time_ns < state_->window.t0_ns || m.time_ns > state_->window.t1_ns) continue;
    const double x = left + map.x_of(m.time_ns);
    if (std::lround(x) == last_column) continue;
    last_column = std::lround(x);
    painter->drawLine(QPointF(x, g.lane_area.top()), QPointF(x, g.lane_area.bottom()));
  }
  const double depth_px = state_->layout.options().depth_px;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (!visible(rows[i])) continue;
    if (const TimelineRow* row = state_->row(rows[i])) {
      row->draw({painter, &map, &state_->theme,
                 QRectF(left, g.y_top, g.lane_area.width(), rows[i].depth_rows * depth_px), depth_px,
                 rows[i].depth_rows, state_, &cache_, g.lane_area});
    } else if (rows[i].collapsed) {
      draw_group_summary(painter, rows[i], g);
    }
  }
  painter->restore();
}

// A collapsed group says what it holds across its header band, so nothing in it is out of sight unannounced.
void LanePlottable::draw_group_summary(QCPPainter* painter, const LaneRow& row, const RowGeometry& g) const {
  const auto it = state_->group_summaries.find(row.group);
  if (it == state_->group_summaries.end() || it->second.empty()) return;
  QColor text = state_->theme.text;
  text.setAlphaF(0.75F);
  painter->setPen(text);
  painter->drawText(QRectF(g.lane_area.left() + 6, g.y_top, g.lane_area.width() - 12, row.height_px),
                    Qt::AlignVCenter | Qt::AlignLeft,
                    QStringLiteral("collapsed: ") + QString::fromStdString(it->second));
}

void LanePlottable::draw_row_background(QCPPainter* painter, const LaneRow& row, int row_number,
                                        const RowGeometry& g) const {
  const QRectF band(g.lane_area.left(), g.y_top, g.lane_area.width(), row.height_px);
  if (row.kind == RowKind::ProcessHeader || row.kind == RowKind::DeviceHeader) {
    painter->fillRect(band, state_->theme.group_background);
  } else if (row_number % 2 == 0) {
    painter->fillRect(band, state_->theme.lane_stripe);
  }
}

}  // namespace gtv::ui
