#include "gtv/ui/lane_plottable.h"

#include <algorithm>
#include <array>

#include "gtv/analysis/kernel_stats.h"

namespace gtv::ui {
namespace {

QColor to_qcolor(Rgb rgb) { return QColor::fromRgb(static_cast<QRgb>(rgb)); }

// Labels are worth drawing only where a few characters fit.
constexpr double kMinLabelPx = 28;
// Larger merged blocks are shown as matching the search only if a short scan finds a match.
constexpr std::uint32_t kMaxBlockScan = 256;
// A merged block's owner is judged from this many events spread over it: enough to see a majority, and the cost
// stays per block, never per event.
constexpr std::uint32_t kOwnerSamples = 15;

}  // namespace

LanePlottable::LanePlottable(QCPAxis* key_axis, QCPAxis* value_axis, const TimelineState* state)
    : QCPAbstractPlottable(key_axis, value_axis), state_(state) {
  setSelectable(QCP::stNone);
  block_hatch_ = QBrush(QColor(0, 0, 0, 90), Qt::BDiagPattern);
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
  last_span_count_ = 0;
  if (!state_->trace || !mKeyAxis) return;
  const QRectF axis_rect = mKeyAxis->axisRect()->rect();
  RowGeometry g;
  g.lane_area = state_->lane_rect(axis_rect);
  g.left = g.lane_area.left();
  if (g.lane_area.width() < 1 || g.lane_area.height() < 1) return;
  painter->save();
  painter->setClipRect(g.lane_area);
  painter->setAntialiasing(false);
  painter->setFont(state_->theme.font(8));
  const TimeMapping map(state_->window, g.lane_area.width());
  stripe_colors_.clear();
  if (const WorkOwners* owners = state_->overlays.owners.get())
    for (const Rgb rgb : owners->colors) stripe_colors_.push_back(to_qcolor(rgb).darker(125));
  const auto& rows = state_->layout.rows();
  const auto visible = [&](const LaneRow& row) {
    g.y_top = state_->row_y(g.lane_area, row.top_px);
    return g.y_top <= g.lane_area.bottom() && g.y_top + row.height_px >= g.lane_area.top();
  };
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (visible(rows[i])) draw_row_background(painter, rows[i], static_cast<int>(i), g);
  // Iteration marks go over the row backgrounds but under events and ranges, so no mark runs through a name.
  painter->setPen(QPen(state_->theme.grid.darker(130), 1, Qt::DotLine));
  for (const Mark& m : state_->overlays.iterations) {
    if (m.time_ns < state_->window.t0_ns || m.time_ns > state_->window.t1_ns) continue;
    const double x = g.left + map.x_of(m.time_ns);
    painter->drawLine(QPointF(x, g.lane_area.top()), QPointF(x, g.lane_area.bottom()));
  }
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (!visible(rows[i])) continue;
    if (rows[i].collapsed && rows[i].kind != RowKind::Lane) draw_group_summary(painter, rows[i], g);
    if (rows[i].kind == RowKind::Lane) draw_lane(painter, rows[i], map, g);
    if (const TimelineRow* other = state_->other_row(rows[i])) {
      const double depth_px = state_->layout.options().depth_px;
      other->draw({painter, &map, &state_->theme,
                   QRectF(g.left, g.y_top, g.lane_area.width(), rows[i].depth_rows * depth_px), depth_px});
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

void LanePlottable::draw_lane(QCPPainter* painter, const LaneRow& row, const TimeMapping& map, const RowGeometry& g) {
  const Lane& lane = state_->trace->lane(row.lane);
  query_lod(lane, {state_->window.t0_ns, state_->window.t1_ns, map.width_px()}, spans_);
  const double depth_px = state_->layout.options().depth_px;
  for (const LodSpan& span : spans_) {
    if (span.depth >= row.depth_rows) break;  // spans come ordered by depth
    double x0 = g.left + map.x_of(span.start_ns);
    double x1 = g.left + map.x_of(span.end_ns);
    x0 = std::max(x0, g.left - 2);
    x1 = std::min(x1, g.lane_area.right() + 2);
    const QRectF r(x0, g.y_top + span.depth * depth_px + 1, std::max(x1 - x0, 1.0), depth_px - 2);
    bool several_owners = false;
    const Rgb rgb = span.count > 1 ? block_color(row.lane, lane, span, &several_owners)
                                   : state_->color_of(row.lane, span.first_index, lane.events[span.first_index]);
    // A block of several owners is drawn as owner stripes over its fill, hatched once on top.
    const bool striped =
        several_owners && r.width() >= 4 && state_->color_mode == ColorMode::Owner && !state_->search_active;
    draw_span(painter, lane, span, r, rgb, !striped);
    if (striped) {
      draw_owner_stripes(painter, row.lane, lane, span, r, map, g.left);
      painter->fillRect(r, block_hatch_);
    }
    ++last_span_count_;
  }
}

bool LanePlottable::block_has_match(const Lane& lane, const LodSpan& span) const {
  const std::uint32_t n = std::min(span.count, kMaxBlockScan);
  // A block holds consecutive events of one depth; scan forward over its events at that depth.
  std::uint32_t seen = 0;
  for (std::uint32_t i = span.first_index; i < lane.events.size() && seen < n; ++i) {
    const Event& e = lane.events[i];
    if (e.depth != span.depth) continue;
    if (e.start_ns >= span.end_ns) break;
    ++seen;
    if (e.name < state_->name_matches.size() && state_->name_matches[e.name]) return true;
  }
  return false;
}

const QString& LanePlottable::label_of(const Event& e) const {
  const Trace& trace = *state_->trace;
  if (labels_trace_ != &trace || name_labels_.size() != trace.strings().size()) {
    labels_trace_ = &trace;
    name_labels_.assign(trace.strings().size(), std::nullopt);
    kernel_labels_.assign(trace.strings().size(), std::nullopt);
  }
  if (e.name >= name_labels_.size()) {
    static const QString kNone;
    return kNone;
  }
  const bool kernel = e.kind == EventKind::Kernel;
  std::optional<QString>& cached = kernel ? kernel_labels_[e.name] : name_labels_[e.name];
  if (!cached) {
    const std::string_view name = trace.name(e);
    cached = kernel ? QString::fromStdString(analysis::shorten_kernel_name(name))
                    : QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size()));
  }
  return *cached;
}

Rgb LanePlottable::block_color(LaneIndex lane_index, const Lane& lane, const LodSpan& span,
                               bool* several_owners) const {
  if (several_owners) *several_owners = false;
  const Event& first = lane.events[span.first_index];
  const WorkOwners* owners = state_->overlays.owners.get();
  if (state_->color_mode != ColorMode::Owner || !owners || lane_index >= owners->of_event.size() ||
      owners->of_event[lane_index].empty())
    return state_->color_of(lane_index, span.first_index, first);
  const std::vector<std::uint16_t>& of_event = owners->of_event[lane_index];
  const std::uint32_t last =
      std::min<std::uint32_t>(span.first_index + span.count, static_cast<std::uint32_t>(of_event.size()));
  const std::uint32_t step = std::max<std::uint32_t>(1, (last - span.first_index) / kOwnerSamples);
  std::array<std::pair<std::uint16_t, std::uint32_t>, kOwnerSamples + 1> tally{};
  std::size_t distinct = 0;
  std::uint32_t samples = 0;
  for (std::uint32_t i = span.first_index; i < last && samples <= kOwnerSamples; i += step) {
    const Event& e = lane.events[i];
    if (e.depth != span.depth || e.start_ns >= span.end_ns) continue;
    ++samples;
    const std::uint16_t owner = of_event[i];
    std::size_t k = 0;
    while (k < distinct && tally[k].first != owner) ++k;
    if (k == distinct) tally[distinct++] = {owner, 0};
    ++tally[k].second;
  }
  if (several_owners) *several_owners = distinct > 1;
  for (std::size_t k = 0; k < distinct; ++k) {
    if (tally[k].second * 2 <= samples) continue;
    return tally[k].first < owners->colors.size() ? owners->colors[tally[k].first] : kind_color(first.kind);
  }
  return samples == 0 ? kind_color(first.kind) : kMixedOwnersColor;
}

// A block whose events have several owners shows who ran when, two pixels at a time: each column takes the owner
// of the first event there (one binary search per column), so models that take turns show as alternating
// stripes, never as one block of the majority's colour or grey; columns with no event keep the block's fill.
void LanePlottable::draw_owner_stripes(QCPPainter* painter, LaneIndex lane_index, const Lane& lane, const LodSpan& span,
                                       const QRectF& r, const TimeMapping& map, double left) const {
  const WorkOwners& owners = *state_->overlays.owners;
  const std::vector<std::uint16_t>& of_event = owners.of_event[lane_index];
  const auto& at_depth = lane.by_depth[span.depth];
  constexpr double kColumnPx = 2;
  // Columns of one owner are filled as one rectangle: a few fills per block, not one per column.
  std::uint16_t run_owner = kNoOwner;
  double run_x = r.left();
  const auto flush = [&](double end_x) {
    if (run_owner < stripe_colors_.size() && end_x > run_x)
      painter->fillRect(QRectF(run_x, r.top(), end_x - run_x, r.height()), stripe_colors_[run_owner]);
  };
  for (double x = r.left(); x < r.right(); x += kColumnPx) {
    const TimeNs t0 = std::max(span.start_ns, map.time_at(x - left));
    const TimeNs t1 = std::min(span.end_ns, map.time_at(x + kColumnPx - left));
    const std::size_t k = first_ending_after(lane, span.depth, t0);
    const bool has_event = k < at_depth.size() && lane.events[at_depth[k]].start_ns < t1;
    const std::uint16_t owner = has_event ? of_event[at_depth[k]] : kNoOwner;
    if (owner == run_owner) continue;
    flush(x);
    run_owner = owner;
    run_x = x;
  }
  flush(r.right());
}

void LanePlottable::draw_span(QCPPainter* painter, const Lane& lane, const LodSpan& span, const QRectF& r, Rgb rgb,
                              bool hatch) const {
  const Event& e = lane.events[span.first_index];
  QColor fill = to_qcolor(rgb);
  bool match = false;
  if (state_->search_active) {
    match = span.count == 1 ? (e.name < state_->name_matches.size() && state_->name_matches[e.name])
                            : block_has_match(lane, span);
    if (!match) fill.setAlpha(60);
  }
  if (span.count > 1) {
    painter->fillRect(r, fill.darker(125));
    if (hatch && r.width() >= 4) painter->fillRect(r, block_hatch_);
  } else {
    painter->fillRect(r, fill);
    if (r.width() >= kMinLabelPx) {
      const QString& name = label_of(e);
      const QRectF text_rect = r.adjusted(3, 0, -2, 0);
      const QString shown =
          painter->fontMetrics().elidedText(name, Qt::ElideRight, static_cast<int>(text_rect.width()));
      if (!shown.isEmpty()) {
        painter->setPen(to_qcolor(text_color_on(rgb)));
        painter->drawText(text_rect, Qt::AlignVCenter | Qt::AlignLeft, shown);
      }
    }
  }
  if (match) {
    painter->setPen(QPen(state_->theme.search_match, 2));
    painter->drawRect(r.adjusted(1, 1, -1, -1));
  }
}

}  // namespace gtv::ui
