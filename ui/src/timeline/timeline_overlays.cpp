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
  draw_bands(painter, map, area);
  draw_overlap_strip(painter, map, area);
  draw_idle_rows(painter, map, area);
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
  draw_warmup(painter, map, area);
  painter->setPen(QPen(state_->theme.grid.darker(130), 1, Qt::DotLine));
  // Over the bands only: in the lane area the marks lie under the events (LanePlottable::draw).
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
  draw_brackets(painter, map, area);
}

// Each bracket in its row (layout_bracket_labels): the line across the row's top with feet at both ends, the label
// under the line on the theme's background, a leader line from a label beside its bracket to the bracket's foot.
void TimelineOverlays::draw_brackets(QCPPainter* painter, const TimeMapping& /*map*/, const QRectF& area) const {
  const OverlayData& o = state_->overlays;
  if (o.brackets.empty()) return;
  painter->setFont(state_->theme.font(8));
  const std::vector<BracketShape> shapes = bracket_shapes(*state_, QFontMetricsF(painter->fontMetrics()), area);
  const QColor label_background = state_->theme.background;  // opaque: no foot or iteration mark runs through text
  const Rgb background = label_background.rgb() & 0xffffff;
  for (const BracketShape& shape : shapes) {
    const Bracket& b = o.brackets[shape.bracket];
    const QColor c = color_of(readable_on(bracket_color(b.method), background, kMinLineContrast));
    painter->setPen(QPen(c, 2));
    painter->drawLine(QPointF(shape.x0_px, shape.foot_px), QPointF(shape.x0_px, shape.line_px));
    painter->drawLine(QPointF(shape.x0_px, shape.line_px), QPointF(shape.x1_px, shape.line_px));
    painter->drawLine(QPointF(shape.x1_px, shape.line_px), QPointF(shape.x1_px, shape.foot_px));
    if (shape.label.isEmpty()) continue;
    if (shape.leader) {
      painter->setPen(QPen(c, 1.2));
      painter->drawLine(*shape.leader);
    }
    painter->fillRect(shape.label, label_background);
    painter->setPen(color_of(bracket_text_color(b.method, background)));
    painter->drawText(shape.label.adjusted(kBracketLabelPadPx, 0, -kBracketLabelPadPx, 0),
                      Qt::AlignLeft | Qt::AlignVCenter, shape.text);
  }
}

namespace {

// The figure's number without its method ("56.6 ms" of "stopwatch 56.6 ms"): the bracket's colour names the method.
QString figure_number(const Bracket& b) {
  const QString figure = QString::fromStdString(b.figure);
  const qsizetype unit = figure.lastIndexOf(QLatin1Char(' '));
  const qsizetype number = unit > 0 ? figure.lastIndexOf(QLatin1Char(' '), unit - 1) : -1;
  return number > 0 ? figure.mid(number + 1) : figure;
}

// The narrowest label: the name's first word and the number ("first\u2026 \u2014 56.6 ms"); the whole name where it
// is one word.
QString shortest_bracket_label(const Bracket& b) {
  const QString name = QString::fromStdString(b.name);
  if (name.isEmpty()) return QString::fromStdString(b.figure);
  const qsizetype space = name.indexOf(QLatin1Char(' '));
  const QString head = space > 0 ? name.left(space) + QChar(0x2026) : name;
  return head + QStringLiteral(" \u2014 ") + figure_number(b);
}

}  // namespace

QString bracket_label_text(const Bracket& b, const QFontMetricsF& metrics, double width_px) {
  QString full = QString::fromStdString(b.label());
  const double text_px = width_px - 2 * kBracketLabelPadPx;
  if (metrics.horizontalAdvance(full) <= text_px) return full;
  // The number is the claim and the name says what was measured: the name gives way first, whole words from its
  // end ("first matmul\u2026"), so no word is ever cut, down to its first word; then the method (the bracket's
  // colour says it). The tooltip has every word.
  const QString name = QString::fromStdString(b.name);
  for (const QString& figure : {QString::fromStdString(b.figure), figure_number(b)}) {
    const QString tail = QStringLiteral("\u2026 \u2014 ") + figure;
    if (name.isEmpty() && metrics.horizontalAdvance(figure) <= text_px) return figure;
    for (qsizetype end = name.lastIndexOf(QLatin1Char(' ')); end > 0;
         end = name.lastIndexOf(QLatin1Char(' '), end - 1)) {
      QString shortened = name.left(end) + tail;
      if (metrics.horizontalAdvance(shortened) <= text_px) return shortened;
    }
  }
  // Narrower than that only where the plot is (a label is never given less): its middle goes, the name's start
  // and the number's end stay.
  return metrics.elidedText(shortest_bracket_label(b), Qt::ElideMiddle, text_px);
}

std::vector<BracketShape> bracket_shapes(const TimelineState& state, const QFontMetricsF& metrics, const QRectF& area) {
  std::vector<BracketShape> shapes;
  const OverlayData& o = state.overlays;
  if (o.brackets.empty()) return shapes;
  const std::vector<LabelPlacement> placements = bracket_placements(state, metrics, area);
  const TimeMapping map(state.window, area.width());
  const double row_px = state.theme.depth_px();
  for (std::size_t i = 0; i < placements.size(); ++i) {
    const LabelPlacement& p = placements[i];
    if (p.row < 0) continue;
    const Bracket& b = o.brackets[i];
    BracketShape shape;
    shape.bracket = i;
    const double y = area.top() + 2 + static_cast<double>(p.row) * row_px;
    shape.line_px = y + 1;
    shape.foot_px = y + row_px - 3;
    // Clamped just outside the plot: deep zoom puts a long bracket's ends millions of pixels away.
    shape.x0_px = std::clamp(area.left() + map.x_of(b.start_ns), area.left() - 4, area.right() + 4);
    shape.x1_px = std::clamp(area.left() + map.x_of(b.end_ns), area.left() - 4, area.right() + 4);
    if (p.labelled()) {
      shape.text = bracket_label_text(b, metrics, p.width_px);
      // As wide as its text, on the side of the room that faces the bracket: a label that starts under the
      // bracket's start keeps its left edge, one that ends at or before the bracket's end keeps its right edge.
      const double width = std::min(p.width_px, metrics.horizontalAdvance(shape.text) + 2 * kBracketLabelPadPx + 1);
      const double start = std::max(shape.x0_px, area.left()) + kBracketLabelPadPx;
      const bool from_start = p.x_px > start - 0.5;
      const double left = from_start ? p.x_px : p.right_px() - width;
      shape.label = QRectF(left, y + 3, width, row_px - 3);
      // Beside its bracket, not under it: a leader from the label's facing edge to the nearer foot, at the text's
      // middle height.
      const double mid = shape.label.center().y();
      if (shape.label.right() <= shape.x0_px)
        shape.leader = QLineF(shape.label.right(), mid, shape.x0_px, mid);
      else if (shape.label.left() >= shape.x1_px)
        shape.leader = QLineF(shape.label.left(), mid, shape.x1_px, mid);
    }
    shapes.push_back(std::move(shape));
  }
  return shapes;
}

std::vector<LabelPlacement> bracket_placements(const TimelineState& state, const QFontMetricsF& metrics,
                                               const QRectF& area) {
  const OverlayData& o = state.overlays;
  const TimeMapping map(state.window, area.width());
  std::vector<LabelRequest> requests;
  requests.reserve(o.brackets.size());
  for (const Bracket& b : o.brackets) {
    const double pad = 2 * kBracketLabelPadPx + 1;
    const double full_px = metrics.horizontalAdvance(QString::fromStdString(b.label())) + pad;
    // The narrowest label is the name's first word and the figure; the name comes back word by word as the room
    // grows.
    const double min_px = metrics.horizontalAdvance(shortest_bracket_label(b)) + pad;
    requests.push_back(
        {area.left() + map.x_of(b.start_ns), area.left() + map.x_of(b.end_ns), full_px, std::min(min_px, full_px)});
  }
  double right_px = area.right();
  if (state.labels_before_ns)
    right_px = std::clamp(area.left() + map.x_of(*state.labels_before_ns), area.left(), right_px);
  return layout_bracket_labels(requests, area.left(), right_px, state.bracket_rows);
}

// As many rows as brackets ever overlap in time, so every bracket gets a row at any zoom (the layout spreads
// brackets over at least 4 rows where there are that many, for label room); capped so a pathological trace
// cannot push the lanes off the screen.
int bracket_row_count(const OverlayData& o) {
  constexpr int kMinRows = 4, kMaxRows = 16;
  std::vector<std::pair<TimeNs, int>> edges;
  edges.reserve(2 * o.brackets.size());
  for (const Bracket& b : o.brackets) {
    edges.emplace_back(b.start_ns, +1);
    edges.emplace_back(b.end_ns, -1);
  }
  std::sort(edges.begin(), edges.end());  // at one instant ends (-1) come first: touching brackets share a row
  int depth = 0, deepest = 0;
  for (const auto& [t, delta] : edges) deepest = std::max(deepest, depth += delta);
  const int rows = std::max(deepest, std::min<int>(static_cast<int>(o.brackets.size()), kMinRows));
  return std::min(rows, kMaxRows);
}

namespace {
constexpr double kWarmupTextInsetPx = 4;
const QString kWarmupPrefix = QStringLiteral("warm-up: ");

// "warm-up: module loading (GPU 0)": the cause ("module loading") and where (" (GPU 0)", empty when none).
std::pair<QString, QString> warmup_cause_and_place(const QString& name) {
  const QString rest = name.startsWith(kWarmupPrefix) ? name.mid(kWarmupPrefix.size()) : name;
  const qsizetype open = rest.lastIndexOf(QStringLiteral(" ("));
  if (open > 0 && rest.endsWith(QLatin1Char(')'))) return {rest.left(open), rest.mid(open)};
  return {rest, QString()};
}

// Names merged into one label: each place once, after its causes, each cause once: "warm-up: context creation,
// module loading (GPU 0), allocator growth (GPU 1)". One name is itself.
QString merged_warmup_text(const std::vector<QString>& names) {
  if (names.size() == 1) return names.front();
  std::vector<std::pair<QString, QStringList>> places;  // in order of first mention
  for (const QString& name : names) {
    const std::pair<QString, QString> split = warmup_cause_and_place(name);
    auto it = std::find_if(places.begin(), places.end(), [&](const auto& p) { return p.first == split.second; });
    if (it == places.end()) it = places.insert(places.end(), {split.second, {}});
    if (!it->second.contains(split.first)) it->second << split.first;
  }
  QStringList parts;
  for (const auto& [place, causes] : places) parts << causes.join(QStringLiteral(", ")) + place;
  return kWarmupPrefix + parts.join(QStringLiteral(", "));
}
}  // namespace

double warmup_label_band_px(const TimelineState& state) {
  if (!state.warmup_labels) return 0;
  const auto& segments = state.overlays.warmup;
  const bool visible = std::any_of(segments.begin(), segments.end(), [&](const ShadedSegment& s) {
    return s.end_ns >= state.window.t0_ns && s.start_ns <= state.window.t1_ns;
  });
  if (!visible) return 0;
  return QFontMetricsF(state.theme.font(kWarmupLabelPt)).height() + 4;
}

std::vector<WarmupLabel> warmup_labels(const TimelineState& state, const QFontMetricsF& metrics, const QRectF& area) {
  std::vector<WarmupLabel> labels;
  if (state.warmup_label_px <= 0) return labels;
  const TimeMapping map(state.window, area.width());
  const double pad = kWarmupTextInsetPx + 4;
  std::vector<SpanLabelRequest> requests;
  std::vector<const ShadedSegment*> spans;
  std::vector<bool> offered;
  for (const ShadedSegment& s : state.overlays.warmup) {
    if (s.end_ns < state.window.t0_ns || s.start_ns > state.window.t1_ns) continue;
    if (s.finding >= offered.size()) offered.resize(s.finding + 1, false);
    if (offered[s.finding]) continue;  // named at its first visible span only
    offered[s.finding] = true;
    const QString name = QString::fromStdString(s.label);
    const auto [cause, place] = warmup_cause_and_place(name);
    const QString tail = QStringLiteral(", ") + cause + place;  // at most: a place is said once per run of it
    const double full_px = metrics.horizontalAdvance(name) + pad;
    const double min_px = metrics.horizontalAdvance(name.left(kWarmupPrefix.size() + 4) + QChar(0x2026)) + pad;
    const double x0 = area.left() + map.x_of(s.start_ns), x1 = area.left() + map.x_of(s.end_ns);
    requests.push_back({std::max(x0, area.left()), std::min(std::max(x1, x0 + 1), area.right()), full_px,
                        metrics.horizontalAdvance(tail), std::min(min_px, full_px), s.finding});
    spans.push_back(&s);
  }
  const QRectF line = state.warmup_label_rect(area);
  for (const SpanLabel& placed : layout_span_labels(requests, area.left(), area.right())) {
    if (placed.width_px <= 0) continue;
    WarmupLabel label;
    label.rect = QRectF(placed.x_px, line.top() + 2, placed.width_px, line.height() - 4);
    std::vector<QString> names;
    for (const std::size_t i : placed.requests) {
      names.push_back(QString::fromStdString(spans[i]->label));
      label.spans_px.emplace_back(requests[i].x0_px, requests[i].x1_px);
    }
    label.text = metrics.elidedText(merged_warmup_text(names), Qt::ElideRight, placed.width_px - pad);
    label.rect.setWidth(std::min(placed.width_px, metrics.horizontalAdvance(label.text) + pad));
    labels.push_back(std::move(label));
  }
  return labels;
}

// Warm-up: a translucent band over exactly each span of first-use work (never the time between the calls), and
// each finding named once, on one line right under the lanes, starting where its first visible span starts.
void TimelineOverlays::draw_warmup(QCPPainter* painter, const TimeMapping& map, const QRectF& area) const {
  const OverlayData& o = state_->overlays;
  if (o.warmup.empty()) return;
  const QRectF lanes = state_->lane_rect(area);
  QColor fill = color_of(kWarmupRgb);
  fill.setAlpha(kWarmupAlpha);
  QColor label_background = state_->theme.background;
  label_background.setAlpha(210);
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
  painter->setFont(state_->theme.font(kWarmupLabelPt));
  const std::vector<WarmupLabel> labels = warmup_labels(*state_, QFontMetricsF(painter->fontMetrics()), area);
  painter->setPen(color_of(warmup_text_color(state_->theme.background.rgb() & 0xffffff)));
  for (const WarmupLabel& label : labels) {
    painter->fillRect(label.rect, label_background);
    painter->drawText(label.rect.adjusted(kWarmupTextInsetPx, 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter, label.text);
  }
}

KindRun busy_run_at(const OverlayData& o, std::size_t i) {
  return {o.busy_gpus[i].time_ns, o.busy_gpus[i + 1].time_ns, std::clamp(o.busy_gpus[i].value, 0, o.gpu_count)};
}

KindColumns busy_kind_columns(const OverlayData& o) {
  if (o.busy_gpus.size() < 2 || o.gpu_count <= 0) return {};
  return {o.busy_gpus.size() - 1, o.gpu_count + 1, [&o](std::size_t i) { return busy_run_at(o, i); }};
}

void TimelineOverlays::draw_overlap_strip(QCPPainter* painter, const TimeMapping& map, const QRectF& area) const {
  const OverlayData& o = state_->overlays;
  if (state_->busy_strip_px <= 0 || o.busy_gpus.empty() || o.gpu_count <= 0) return;
  const QRectF strip = state_->busy_strip_rect(area);
  painter->fillRect(strip, state_->theme.header_background);
  const double unit_px = (strip.height() - 4) / o.gpu_count;
  // Each pixel shows the count held for most of its time (as the idle rows and the critical path do), and a run of
  // pixels of one count is one rectangle: a paint costs the pixels, not the steps (millions in a 10M-event trace).
  const KindColumns& summary = state_->busy_columns;
  const KindColumns local = summary.size() + 1 == o.busy_gpus.size() ? KindColumns() : busy_kind_columns(o);
  const KindColumns& columns_of = summary.size() + 1 == o.busy_gpus.size() ? summary : local;
  const int width_px = static_cast<int>(std::ceil(map.width_px()));
  thread_local std::vector<KindColumn> columns;
  const TimeNs t0_ns = map.window().t0_ns;
  columns_of.columns([&o](std::size_t i) { return busy_run_at(o, i); }, t0_ns,
                     t0_ns + std::llround(width_px * map.ns_per_px()), width_px, columns);
  // A column mostly idle still shows the work in it: its busiest count held longest, as opaque as the share of the
  // column's time that is busy (as the idle rows show sparse gaps), so short kernels zoomed out stay visible.
  const double column_ns = map.ns_per_px();
  for (int c = 0; c < width_px;) {
    const KindColumn& col = columns[static_cast<std::size_t>(c)];
    const int busy = col.kind > 0 ? col.kind : col.above_zero_kind;
    const double share =
        col.kind > 0 ? 1.0 : std::clamp(static_cast<double>(col.above_zero_ns) / std::max(column_ns, 1.0), 0.25, 1.0);
    int end = c + 1;
    while (col.kind > 0 && end < width_px && columns[static_cast<std::size_t>(end)].kind == busy) ++end;
    if (busy > 0) {
      const double h = unit_px * busy;
      QColor color = color_of(busy >= 2 ? kBusyManyRgb : kBusyOneRgb);
      color.setAlphaF(static_cast<float>(share));
      painter->fillRect(QRectF(strip.left() + c, strip.bottom() - h, end - c, h), color);
    }
    c = end;
  }
  // Named in the header column, as the idle rows are, so the name never covers the bars.
  painter->save();
  const QRectF header(0, strip.top(), area.left(), strip.height());
  painter->setClipRect(header);
  painter->fillRect(header, state_->theme.header_background);
  painter->setPen(state_->theme.text);
  painter->setFont(state_->theme.font(8));
  const QRectF strip_label =
      header.adjusted(label_indent_px(false, state_->figure, state_->theme.font_scale), 0, -6, 0);
  painter->drawText(strip_label, Qt::AlignVCenter | Qt::AlignLeft,
                    painter->fontMetrics().elidedText(QString::fromStdString(o.strip_label), Qt::ElideRight,
                                                      static_cast<int>(strip_label.width())));
  painter->restore();
}

namespace {

// Idle intervals narrower than a pixel pile up per pixel column: the column takes the colour of the cause that
// covers most of it, as opaque as the share of the column's time that is idle, so 400 gaps of 2 us in 60 ms read
// as the faint trace they are, not as a solid bar.
class IdleColumn {
 public:
  IdleColumn(QCPPainter* painter, const QRectF& row, double ns_per_px)
      : painter_(painter), row_(row), ns_per_px_(ns_per_px) {}
  ~IdleColumn() { flush(); }
  void add(double x_px, TimeNs length_ns, int cause) {
    const int column = static_cast<int>(std::floor(x_px));
    if (column != column_) flush();
    column_ = column;
    if (cause >= 0 && cause < kIdleCauseColorCount) covered_ns_[static_cast<std::size_t>(cause)] += length_ns;
  }
  void flush() {
    const auto top = std::max_element(covered_ns_.begin(), covered_ns_.end());
    TimeNs total_ns = 0;
    for (const TimeNs ns : covered_ns_) total_ns += ns;
    if (total_ns > 0) {
      QColor c = QColor::fromRgb(static_cast<QRgb>(idle_cause_color(static_cast<int>(top - covered_ns_.begin()))));
      c.setAlphaF(static_cast<float>(std::clamp(static_cast<double>(total_ns) / ns_per_px_, 0.2, 1.0)));
      painter_->fillRect(QRectF(column_, row_.top() + 1, 1, row_.height() - 2), c);
    }
    covered_ns_.fill(0);
  }

 private:
  QCPPainter* painter_;
  QRectF row_;
  double ns_per_px_;
  int column_ = 0;
  std::array<TimeNs, kIdleCauseColorCount> covered_ns_{};
};

}  // namespace

// One row per GPU under the busy strip: each idle interval in its cause's colour (idle_cause_color), the row
// named in the header column; only the intervals inside the visible window are visited.
void TimelineOverlays::draw_idle_rows(QCPPainter* painter, const TimeMapping& map, const QRectF& area) const {
  const OverlayData& o = state_->overlays;
  if (state_->idle_row_px <= 0) return;
  painter->setFont(state_->theme.font(8));
  for (std::size_t row = 0; row < o.idle_devices.size(); ++row) {
    const QRectF r = state_->idle_row_rect(area, row);
    const QRectF header(0, r.top(), area.left(), r.height());
    painter->setClipRect(header);
    painter->fillRect(header, state_->theme.header_background);
    painter->setPen(state_->theme.text);
    const QRectF label = header.adjusted(label_indent_px(false, state_->figure, state_->theme.font_scale), 0, -6, 0);
    const QString text = row < o.idle_labels.size()
                             ? QString::fromStdString(o.idle_labels[row]) + QStringLiteral(" idle, by cause")
                             : QStringLiteral("GPU %1 idle, by cause").arg(o.idle_devices[row]);
    painter->drawText(label, Qt::AlignVCenter | Qt::AlignLeft,
                      painter->fontMetrics().elidedText(text, Qt::ElideRight, static_cast<int>(label.width())));
    painter->setClipRect(r);
    painter->fillRect(r, state_->theme.header_background);
    const std::span<const IdleBand> bands = idle_of_device(o, o.idle_devices[row]);
    IdleColumn column(painter, r, map.ns_per_px());
    for (std::size_t i = first_idle_ending_after(bands, state_->window.t0_ns); i < bands.size(); ++i) {
      const IdleBand& b = bands[i];
      if (b.start_ns > state_->window.t1_ns) break;
      const double x0 = r.left() + map.x_of(b.start_ns), x1 = r.left() + map.x_of(b.end_ns);
      if (x1 - x0 < 1) {
        column.add(x0, b.end_ns - b.start_ns, b.cause);
        continue;
      }
      column.flush();
      painter->fillRect(QRectF(x0, r.top() + 1, x1 - x0, r.height() - 2),
                        QColor::fromRgb(static_cast<QRgb>(idle_cause_color(b.cause))));
    }
  }
  painter->setClipRect(area);
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
  for (const BracketShape& shape : bracket_shapes(state, QFontMetricsF(state.theme.font(8)), area)) {
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
  const int rows = static_cast<int>(std::floor((state.top_band_px - 2) / row_px));
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
