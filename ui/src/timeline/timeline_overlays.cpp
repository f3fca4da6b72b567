#include <QPainterPath>
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <vector>

#include "gtv/ui/label_layout.h"
#include "gtv/ui/legend.h"
#include "gtv/ui/timeline_layers.h"

namespace gtv::ui {
namespace {

QColor color_of(Rgb rgb) { return QColor::fromRgb(static_cast<QRgb>(rgb)); }

void draw_arrow(QCPPainter* painter, QPointF from, QPointF to, const QColor& color,
                Qt::PenStyle style = Qt::SolidLine) {
  painter->setPen(QPen(color, 1.6, style));
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
  draw_warmup_shading(painter, map, area);
  draw_band_rows(painter, map, area, true);
  draw_iteration_marks(painter, map, area);
  draw_band_rows(painter, map, area, false);
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

// Over the bands only: in the lane area the marks lie under the events (LanePlottable::draw).
void TimelineOverlays::draw_iteration_marks(QCPPainter* painter, const TimeMapping& map, const QRectF& area) const {
  const OverlayData& o = state_->overlays;
  const double left = area.left();
  painter->setPen(QPen(state_->theme.grid.darker(130), 1, Qt::DotLine));
  const QRectF lanes = state_->lane_rect(area);
  long last_column = std::numeric_limits<long>::min();  // one mark per pixel column, as under the events
  for (const Mark& m : o.iterations) {
    if (m.time_ns < state_->window.t0_ns || m.time_ns > state_->window.t1_ns) continue;
    const double x = left + map.x_of(m.time_ns);
    if (std::lround(x) == last_column) continue;
    last_column = std::lround(x);
    painter->drawLine(QPointF(x, area.top()), QPointF(x, lanes.top()));
    painter->drawLine(QPointF(x, lanes.bottom()), QPointF(x, area.bottom()));
  }
}

void TimelineOverlays::draw_band_rows(QCPPainter* painter, const TimeMapping& map, const QRectF& area,
                                      bool under_marks) const {
  for (std::size_t i = 0; i < state_->bands.rows.size(); ++i) {
    const BandRow& band = state_->bands.rows[i];
    const TimelineRow& row = *state_->rows[band.row];
    if (row.desc().under_marks != under_marks) continue;
    RowPaint paint;
    paint.painter = painter;
    paint.map = &map;
    paint.theme = &state_->theme;
    paint.rect = state_->band_rect(area, i);
    paint.depth_px = band.depth_px;
    paint.depth_rows = band.depth_rows;
    paint.state = state_;
    paint.clip = area;
    row.draw(paint);
  }
}

// Warm-up: a translucent band over exactly each span of first-use work (never the time between the calls); its
// band of labels under the lanes names them.
void TimelineOverlays::draw_warmup_shading(QCPPainter* painter, const TimeMapping& map, const QRectF& area) const {
  const OverlayData& o = state_->overlays;
  if (o.warmup.empty()) return;
  const QRectF lanes = state_->lane_rect(area);
  QColor fill = color_of(kWarmupRgb);
  fill.setAlpha(kWarmupAlpha);
  // Spans that meet within a pixel are filled as one: a translucent fill per span would darken where narrow spans
  // pile up, and each full-height translucent fill is a costly blend (thousands of them at fit).
  std::vector<std::pair<double, double>> runs;
  for (const ShadedSegment& s : o.warmup) {
    if (s.end_ns < state_->window.t0_ns || s.start_ns > state_->window.t1_ns) continue;
    const double x0 = std::max(area.left() + map.x_of(s.start_ns), area.left() - 1);
    const double x1 = std::min(area.left() + map.x_of(s.end_ns), area.right() + 1);
    runs.emplace_back(x0, std::max(x1, x0 + 1));
  }
  // Whole pixels without antialiasing, in bands of at most 64 rows: Qt's raster engine hands a translucent fill of
  // more spans than that to its thread pool in pieces, and waiting for those jobs costs more than the blend.
  constexpr int kBandRowsPx = 64;
  painter->save();
  painter->setAntialiasing(false);
  const QRect rows = lanes.toAlignedRect();
  for (const auto& [x0, x1] : merge_pixel_runs(std::move(runs))) {
    const int left = static_cast<int>(std::floor(x0));
    const int width = std::max(1, static_cast<int>(std::ceil(x1)) - left);
    for (int y = rows.top(); y <= rows.bottom(); y += kBandRowsPx)
      painter->fillRect(QRect(left, y, width, std::min(kBandRowsPx, rows.bottom() + 1 - y)), fill);
  }
  painter->restore();
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
  // The launch link and the forward/backward link of the selection, each from its source to its target.
  const Trace& trace = *state_->trace;
  for (const auto& flow : {trace.flow_of(*state_->selected), trace.backward_link_of(*state_->selected)}) {
    if (!flow) continue;
    const auto from = event_rect(flow->from, map, lanes);
    const auto to = event_rect(flow->to, map, lanes);
    if (!from || !to) continue;
    draw_arrow(painter, QPointF(from->left(), from->bottom()), QPointF(to->left(), to->top()), state_->theme.flow);
  }
  // Its dependencies, dashed in their own colour, from the end of the work waited for: to the start of the work a
  // stream wait held, or to the end of the host Sync event that the work's end released.
  for (const Flow& link : trace.dependencies_of(*state_->selected)) {
    const auto from = event_rect(link.from, map, lanes);
    const auto to = event_rect(link.to, map, lanes);
    if (!from || !to) continue;
    const double to_x = trace.lane(link.to.lane).is_gpu() ? to->left() : to->right();
    draw_arrow(painter, QPointF(from->right(), from->center().y()), QPointF(to_x, to->center().y()),
               state_->theme.dependency, Qt::DashLine);
  }
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
  const QRectF label = measure_label_rect(*state_, area);
  painter->fillRect(label, state_->theme.background);
  painter->setPen(QPen(state_->theme.measure, 1));
  painter->drawRect(label);
  painter->setFont(state_->theme.font(kMeasureLabelPt, true));
  painter->setPen(state_->theme.text);
  painter->drawText(label, Qt::AlignCenter, measure_label_text(*state_));
}

QString measure_label_text(const TimelineState& state) {
  return state.measure ? QString::fromStdString(format_duration_exact(state.measure->span_ns())) : QString();
}

std::vector<QRectF> bracket_boxes(const TimelineState& state, const QRectF& area) {
  std::vector<QRectF> boxes;
  const double row_px = state.theme.depth_px();
  const int rows = bracket_rows_given(state);
  for (const BracketShape& shape : bracket_shapes(state, QFontMetricsF(state.theme.font(8)), area, rows)) {
    boxes.emplace_back(shape.x0_px - 1, shape.line_px - 1, shape.x1_px - shape.x0_px + 2, row_px);  // line and feet
    if (!shape.label.isEmpty()) boxes.push_back(shape.label);
    if (shape.leader)
      boxes.push_back(QRectF(shape.leader->p1(), shape.leader->p2()).normalized().adjusted(0, -1, 0, 1));
  }
  return boxes;
}

// Over the measured span, in the first bracket row where it meets no bracket and no bracket label (centred, else at
// the span's start, else ending at its end); with no such room, at the top of the lanes, under the brackets.
QRectF measure_label_rect(const TimelineState& state, const QRectF& area) {
  if (!state.measure) return {};
  const TimeMapping map(state.window, area.width());
  const double x0 = area.left() + map.x_of(state.measure->t0_ns);
  const double x1 = area.left() + map.x_of(state.measure->t1_ns);
  const QFontMetricsF metrics(state.theme.font(kMeasureLabelPt, true));
  const double width = metrics.horizontalAdvance(measure_label_text(state)) + 12;
  const double height = metrics.height() + 4;
  const auto inside = [&](double left) {
    return std::clamp(left, area.left(), std::max(area.left(), area.right() - width));
  };
  const std::vector<QRectF> taken = bracket_boxes(state, area);
  const double row_px = state.theme.depth_px();
  const int rows = static_cast<int>(std::floor((state.bands.above_px - 2) / row_px));
  for (int row = 0; row < rows; ++row) {
    const double y = area.top() + 2 + static_cast<double>(row) * row_px + (row_px - std::min(height, row_px)) / 2;
    for (const double left : {(x0 + x1 - width) / 2, x0, x1 - width}) {
      const QRectF candidate(inside(left), y, width, std::min(height, row_px));
      if (std::none_of(taken.begin(), taken.end(), [&](const QRectF& box) { return box.intersects(candidate); }))
        return candidate;
    }
  }
  return {inside((x0 + x1 - width) / 2), state.lane_rect(area).top() + 2, width, height};
}

}  // namespace gtv::ui
