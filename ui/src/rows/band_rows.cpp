#include "gtv/ui/band_rows.h"

#include <QPainter>
#include <algorithm>
#include <array>
#include <cmath>
#include <span>
#include <vector>

#include "gtv/ui/legend.h"
#include "gtv/ui/palette.h"
#include "gtv/ui/timeline_state.h"

namespace gtv::ui {
namespace {

QColor color_of(Rgb rgb) { return QColor::fromRgb(static_cast<QRgb>(rgb)); }

// How many GPUs were busy over the hovered pixel, with the exact times (from the trace start) of the steps under it.
QString busy_tooltip(const OverlayData& o, TimeNs t_ns, TimeNs pixel_ns, TimeNs origin_ns) {
  const auto span = busy_over(o, t_ns, t_ns + pixel_ns);
  if (!span) return {};
  const QString unit = QString::fromStdString(o.strip_unit);
  const QString count = span->min_busy == span->max_busy
                            ? QStringLiteral("%1 of %2 %3 busy").arg(span->min_busy).arg(o.gpu_count).arg(unit)
                            : QStringLiteral("%1 to %2 of %3 %4 busy over this pixel (%5 changes)")
                                  .arg(span->min_busy)
                                  .arg(span->max_busy)
                                  .arg(o.gpu_count)
                                  .arg(unit)
                                  .arg(span->steps - 1);
  return count + QString::fromStdString("\nfrom " + format_duration_exact(span->start_ns - origin_ns) + " to " +
                                        format_duration_exact(span->end_ns - origin_ns) + " (" +
                                        format_duration_exact(span->end_ns - span->start_ns) + ")");
}

// The band rows: each is one kind of analysis picture across the plot; what the layout and the painter need to
// know of it is in its RowDesc.
class AnalysisBand : public TimelineRow {
 public:
  explicit AnalysisBand(const OverlayData& overlays) : overlays_(&overlays) {}
  [[nodiscard]] QString tooltip_at(TimeNs /*t_ns*/, int /*depth*/, TimeNs /*pixel_ns*/,
                                   TimeNs /*origin_ns*/) const override {
    return {};
  }

 protected:
  [[nodiscard]] static RowDesc band_desc(std::string id, std::string label, RowPlace place, int keep_rank) {
    RowDesc d;
    d.id = std::move(id);
    d.label = std::move(label);
    d.place = place;
    d.keep_rank = keep_rank;
    return d;
  }
  const OverlayData* overlays_;
};

// Above the lanes, one row per bracket that overlaps another in time (bracket_row_count): each measurement's
// interval with its label. Where the plot is short it keeps as many rows as fit, after the lanes.
class BracketRow : public AnalysisBand {
 public:
  explicit BracketRow(const OverlayData& o) : AnalysisBand(o), rows_(bracket_row_count(o)) {}
  [[nodiscard]] RowDesc desc() const override {
    RowDesc d = band_desc(kBracketRowId, "measurements", RowPlace::AboveLanes, 3);
    d.depth_rows = rows_;
    d.sheds_rows = true;
    return d;
  }
  [[nodiscard]] BandSize band_size(const TimelineState& state) const override {
    return {rows_, state.theme.depth_px(), 6};  // 6 px under the last row
  }
  void draw(const RowPaint& paint) const override;
  // The bracket (or its label) under the mouse, in the row it was drawn in.
  [[nodiscard]] QString tooltip_under(const RowHit& hit) const override;

 private:
  int rows_;
};

// Under the lanes, first: the names of the warm-up spans in view (none: no room taken); the marks run across it.
class WarmupLabelRow : public AnalysisBand {
 public:
  using AnalysisBand::AnalysisBand;
  [[nodiscard]] RowDesc desc() const override {
    RowDesc d = band_desc(kWarmupLabelRowId, "warm-up", RowPlace::BelowLanes, 4);
    d.under_marks = true;
    return d;
  }
  [[nodiscard]] BandSize band_size(const TimelineState& state) const override {
    const double px = warmup_label_band_px(state);
    return px > 0 ? BandSize{1, px, 0} : BandSize{};
  }
  void draw(const RowPaint& paint) const override;
};

// Under the warm-up labels: how many GPUs (or streams of one GPU) were busy; the first band to keep its room.
class BusyStripRow : public AnalysisBand {
 public:
  explicit BusyStripRow(const OverlayData& o) : AnalysisBand(o), columns_(busy_kind_columns(o)) {}
  [[nodiscard]] RowDesc desc() const override {
    return band_desc(kBusyStripRowId, overlays_->strip_label, RowPlace::BelowLanes, 0);
  }
  [[nodiscard]] BandSize band_size(const TimelineState& state) const override {
    return {1, kBusyStripPx * state.theme.font_scale, 0};
  }
  void draw(const RowPaint& paint) const override;
  [[nodiscard]] QString tooltip_under(const RowHit& hit) const override {
    return busy_tooltip(*overlays_, hit.t_ns, hit.pixel_ns(), hit.origin_ns);
  }

 private:
  KindColumns columns_;  // the busy steps by pixel column (busy_kind_columns)
};

// Last: one depth row per GPU, its idle intervals in their causes' colours; all the GPUs' rows or none.
class IdleCauseRow : public AnalysisBand {
 public:
  using AnalysisBand::AnalysisBand;
  [[nodiscard]] RowDesc desc() const override {
    RowDesc d = band_desc(kIdleRowId, "idle, by cause", RowPlace::BelowLanes, 1);
    d.depth_rows = static_cast<int>(overlays_->idle_devices.size());
    return d;
  }
  [[nodiscard]] BandSize band_size(const TimelineState& state) const override {
    return {static_cast<int>(overlays_->idle_devices.size()), kIdleRowPx * state.theme.font_scale, 0};
  }
  void draw(const RowPaint& paint) const override;
  // The idle interval of the hovered row's GPU.
  [[nodiscard]] QString tooltip_under(const RowHit& hit) const override {
    const OverlayData& o = *overlays_;
    if (hit.depth < 0 || static_cast<std::size_t>(hit.depth) >= o.idle_devices.size()) return {};
    const IdleBand* band = idle_band_at(o, o.idle_devices[static_cast<std::size_t>(hit.depth)], hit.t_ns,
                                        static_cast<TimeNs>(2 * hit.ns_per_px));
    return band ? QString::fromStdString(band->tooltip) : QString();
  }
};

}  // namespace

int bracket_rows_given(const TimelineState& state) {
  const std::optional<std::size_t> band = state.band_index(kBracketRowId);
  return band ? state.bands.rows[*band].depth_rows : 0;
}

void add_band_rows(const OverlayData& o, TimelineRows& rows) {
  if (!o.brackets.empty()) rows.push_back(std::make_shared<BracketRow>(o));
  if (!o.warmup.empty()) rows.push_back(std::make_shared<WarmupLabelRow>(o));
  if (!o.busy_gpus.empty()) rows.push_back(std::make_shared<BusyStripRow>(o));
  if (!o.idle_devices.empty() && !o.idle.empty()) rows.push_back(std::make_shared<IdleCauseRow>(o));
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

std::vector<BracketShape> bracket_shapes(const TimelineState& state, const QFontMetricsF& metrics, const QRectF& area,
                                         int rows) {
  std::vector<BracketShape> shapes;
  const OverlayData& o = state.overlays;
  if (o.brackets.empty()) return shapes;
  const std::vector<LabelPlacement> placements = bracket_placements(state, metrics, area, rows);
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
                                               const QRectF& area, int rows) {
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
  return layout_bracket_labels(requests, area.left(), right_px, rows);
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

// Each bracket in its row (layout_bracket_labels): the line across the row's top with feet at both ends, the label
// under the line on the theme's background, a leader line from a label beside its bracket to the bracket's foot.
void BracketRow::draw(const RowPaint& paint) const {
  const OverlayData& o = *overlays_;
  if (o.brackets.empty()) return;
  QPainter* painter = paint.painter;
  const TimelineState& st = *paint.state;
  painter->setFont(st.theme.font(8));
  const std::vector<BracketShape> shapes =
      bracket_shapes(st, QFontMetricsF(painter->fontMetrics()), paint.rect, paint.depth_rows);
  const QColor label_background = st.theme.background;  // opaque: no foot or iteration mark runs through text
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

QString BracketRow::tooltip_under(const RowHit& hit) const {
  const TimelineState& st = *hit.state;
  const QRectF& area = hit.rect;
  const QFontMetricsF metrics(st.theme.font(8));
  const std::vector<LabelPlacement> placements = bracket_placements(st, metrics, area, hit.depth_rows);
  const int row = static_cast<int>(std::floor((hit.pos_px.y() - area.top() - 2) / st.theme.depth_px()));
  const TimeMapping map(st.window, area.width());
  for (std::size_t i = 0; i < placements.size(); ++i) {
    const LabelPlacement& p = placements[i];
    if (p.row != row) continue;
    const Bracket& b = overlays_->brackets[i];
    const double x0 = area.left() + map.x_of(b.start_ns), x1 = area.left() + map.x_of(b.end_ns);
    const bool on_bracket = hit.pos_px.x() >= x0 - 2 && hit.pos_px.x() <= x1 + 2;
    const bool on_label = p.labelled() && hit.pos_px.x() >= p.x_px && hit.pos_px.x() <= p.right_px();
    if (on_bracket || on_label) return QString::fromStdString(b.label() + "\n" + b.tooltip);
  }
  return {};
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

std::vector<WarmupLabel> warmup_labels(const TimelineState& state, const QFontMetricsF& metrics, const QRectF& band) {
  std::vector<WarmupLabel> labels;
  if (band.height() <= 0) return labels;
  const QRectF& area = band;
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
  const QRectF& line = band;
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

// Each finding named once, on one line right under the lanes, starting where its first visible span starts.
void WarmupLabelRow::draw(const RowPaint& paint) const {
  QPainter* painter = paint.painter;
  const TimelineState& st = *paint.state;
  QColor label_background = st.theme.background;
  label_background.setAlpha(210);
  painter->setFont(st.theme.font(kWarmupLabelPt));
  const std::vector<WarmupLabel> labels = warmup_labels(st, QFontMetricsF(painter->fontMetrics()), paint.rect);
  painter->setPen(color_of(warmup_text_color(st.theme.background.rgb() & 0xffffff)));
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

void BusyStripRow::draw(const RowPaint& paint) const {
  const OverlayData& o = *overlays_;
  if (o.busy_gpus.empty() || o.gpu_count <= 0) return;
  QPainter* painter = paint.painter;
  const TimeMapping& map = *paint.map;
  const TimelineState& st = *paint.state;
  const QRectF& strip = paint.rect;
  const QRectF& area = paint.rect;
  painter->fillRect(strip, st.theme.header_background);
  const double unit_px = (strip.height() - 4) / o.gpu_count;
  // Each pixel shows the count held for most of its time (as the idle rows and the critical path do), and a run of
  // pixels of one count is one rectangle: a paint costs the pixels, not the steps (millions in a 10M-event trace).
  const KindColumns& summary = columns_;
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
  painter->fillRect(header, st.theme.header_background);
  painter->setPen(st.theme.text);
  painter->setFont(st.theme.font(8));
  const QRectF strip_label = header.adjusted(label_indent_px(false, st.figure, st.theme.font_scale), 0, -6, 0);
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
  IdleColumn(QPainter* painter, const QRectF& row, double ns_per_px)
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
  QPainter* painter_;
  QRectF row_;
  double ns_per_px_;
  int column_ = 0;
  std::array<TimeNs, kIdleCauseColorCount> covered_ns_{};
};

}  // namespace

// One row per GPU under the busy strip: each idle interval in its cause's colour (idle_cause_color), the row
// named in the header column; only the intervals inside the visible window are visited.
void IdleCauseRow::draw(const RowPaint& paint) const {
  const OverlayData& o = *overlays_;
  QPainter* painter = paint.painter;
  const TimeMapping& map = *paint.map;
  const TimelineState& st = *paint.state;
  const QRectF& area = paint.rect;
  painter->setFont(st.theme.font(8));
  for (std::size_t row = 0; row < o.idle_devices.size() && static_cast<int>(row) < paint.depth_rows; ++row) {
    const QRectF r(area.left(), area.top() + static_cast<double>(row) * paint.depth_px, area.width(), paint.depth_px);
    const QRectF header(0, r.top(), area.left(), r.height());
    painter->setClipRect(header);
    painter->fillRect(header, st.theme.header_background);
    painter->setPen(st.theme.text);
    const QRectF label = header.adjusted(label_indent_px(false, st.figure, st.theme.font_scale), 0, -6, 0);
    const QString text = row < o.idle_labels.size()
                             ? QString::fromStdString(o.idle_labels[row]) + QStringLiteral(" idle, by cause")
                             : QStringLiteral("GPU %1 idle, by cause").arg(o.idle_devices[row]);
    painter->drawText(label, Qt::AlignVCenter | Qt::AlignLeft,
                      painter->fontMetrics().elidedText(text, Qt::ElideRight, static_cast<int>(label.width())));
    painter->setClipRect(r);
    painter->fillRect(r, st.theme.header_background);
    const std::span<const IdleBand> bands = idle_of_device(o, o.idle_devices[row]);
    IdleColumn column(painter, r, map.ns_per_px());
    for (std::size_t i = first_idle_ending_after(bands, st.window.t0_ns); i < bands.size(); ++i) {
      const IdleBand& b = bands[i];
      if (b.start_ns > st.window.t1_ns) break;
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
  painter->setClipRect(paint.clip);
}

}  // namespace gtv::ui
