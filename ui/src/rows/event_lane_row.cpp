#include "gtv/ui/event_lane_row.h"

#include <QPainter>
#include <algorithm>
#include <array>
#include <utility>

#include "gtv/analysis/kernel_names.h"
#include "gtv/base/time.h"
#include "gtv/ui/event_text.h"
#include "gtv/ui/timeline_state.h"
#include "gtv/ui/work_owner.h"

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

RowDrawCache::RowDrawCache() : block_hatch(QColor(0, 0, 0, 90), Qt::BDiagPattern) {}

const QString& RowDrawCache::label_of(const Trace& trace, const Event& e) {
  if (labels_trace_ != &trace || name_labels_.size() != trace.strings().size()) {
    labels_trace_ = &trace;
    name_labels_.assign(trace.strings().size(), std::nullopt);
    kernel_labels_.assign(trace.strings().size(), std::nullopt);
    kernel_base_labels_.assign(trace.strings().size(), std::nullopt);
  }
  if (e.name >= name_labels_.size()) {
    static const QString kNone;
    return kNone;
  }
  const bool kernel = e.kind == EventKind::Kernel;
  std::optional<QString>& cached = kernel ? kernel_labels_[e.name] : name_labels_[e.name];
  if (!cached) {
    const std::string_view name = trace.name(e);
    cached = kernel ? QString::fromStdString(analysis::kernel_display_name(name))
                    : QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size()));
  }
  return *cached;
}

const QString& RowDrawCache::narrow_label_of(const Trace& trace, const Event& e) {
  const QString& label = label_of(trace, e);  // sizes the caches for this trace
  if (e.kind != EventKind::Kernel || e.name >= kernel_base_labels_.size()) return label;
  std::optional<QString>& cached = kernel_base_labels_[e.name];
  if (!cached) cached = QString::fromStdString(analysis::shorten_kernel_name(trace.name(e)));
  return *cached;
}

std::string event_lane_row_id(const LaneKey& key) {
  return std::string(key.kind == LaneKind::GpuStream ? "lane:gpu:" : "lane:host:") + std::to_string(key.pid) + ":" +
         std::to_string(key.tid);
}

RowDesc event_lane_row_desc(LaneIndex index, const LaneDesc& lane, std::string group_label) {
  RowDesc d;
  d.group = group_of(lane.key);
  d.place = RowPlace::Lanes;
  d.id = event_lane_row_id(lane.key);
  d.label = lane.name;
  d.depth_rows = std::max(1, lane.depth_count);
  d.group_label = std::move(group_label);
  d.can_collapse = lane.depth_count > 1;
  d.bookkeeping = lane.bookkeeping;
  d.rank = lane.rank;
  d.lane = index;
  return d;
}

EventLaneRow::EventLaneRow(const Trace& trace, LaneIndex index, const LaneDesc& lane, std::string group_label)
    : trace_(&trace),
      lane_(&trace.lane(index)),
      index_(index),
      desc_(event_lane_row_desc(index, lane, std::move(group_label))) {}

void EventLaneRow::draw(const RowPaint& p) const {
  if (p.state == nullptr || p.cache == nullptr) return;
  const TimelineState& state = *p.state;
  RowDrawCache& cache = *p.cache;
  const TimeMapping& map = *p.map;
  const double left = p.rect.left();
  query_lod(*lane_, {state.window.t0_ns, state.window.t1_ns, map.width_px()}, cache.spans,
            index_ < state.lod_summaries.size() ? &state.lod_summaries[index_] : nullptr);
  for (const LodSpan& span : cache.spans) {
    if (span.depth >= p.depth_rows) break;  // spans come ordered by depth
    double x0 = left + map.x_of(span.start_ns);
    double x1 = left + map.x_of(span.end_ns);
    x0 = std::max(x0, left - 2);
    x1 = std::min(x1, p.rect.right() + 2);
    const QRectF r(x0, p.rect.top() + span.depth * p.depth_px + 1, std::max(x1 - x0, 1.0), p.depth_px - 2);
    bool several_owners = false;
    const Rgb rgb = span.count > 1 ? block_color(state, span, &several_owners)
                                   : state.color_of(index_, span.first_index, lane_->events[span.first_index]);
    // A block of several owners is drawn as owner stripes and its fill between them, hatched once on top.
    const bool striped =
        several_owners && r.width() >= 4 && state.color_mode == ColorMode::Owner && !state.search_active;
    if (striped) {
      draw_owner_stripes(p, span, r, to_qcolor(rgb).darker(125));
      p.painter->fillRect(r, cache.block_hatch);
    } else {
      draw_span(p, span, r, rgb);
    }
    ++cache.span_count;
  }
}

bool EventLaneRow::block_has_match(const TimelineState& state, const LodSpan& span) const {
  const std::uint32_t n = std::min(span.count, kMaxBlockScan);
  // A block holds consecutive events of one depth; scan forward over its events at that depth.
  std::uint32_t seen = 0;
  for (std::uint32_t i = span.first_index; i < lane_->events.size() && seen < n; ++i) {
    const Event& e = lane_->events[i];
    if (e.depth != span.depth) continue;
    if (e.start_ns >= span.end_ns) break;
    ++seen;
    if (e.name < state.name_matches.size() && state.name_matches[e.name]) return true;
  }
  return false;
}

Rgb EventLaneRow::block_color(const TimelineState& state, const LodSpan& span, bool* several_owners) const {
  *several_owners = false;
  const Event& first = lane_->events[span.first_index];
  const WorkOwners* owners = state.overlays.owners.get();
  if (state.color_mode != ColorMode::Owner || !owners || index_ >= owners->of_event.size() ||
      owners->of_event[index_].empty())
    return state.color_of(index_, span.first_index, first);
  const std::vector<std::uint16_t>& of_event = owners->of_event[index_];
  const std::uint32_t last =
      std::min<std::uint32_t>(span.first_index + span.count, static_cast<std::uint32_t>(of_event.size()));
  const std::uint32_t step = std::max<std::uint32_t>(1, (last - span.first_index) / kOwnerSamples);
  std::array<std::pair<std::uint16_t, std::uint32_t>, kOwnerSamples + 1> tally{};
  std::size_t distinct = 0;
  std::uint32_t samples = 0;
  for (std::uint32_t i = span.first_index; i < last && samples <= kOwnerSamples; i += step) {
    const Event& e = lane_->events[i];
    if (e.depth != span.depth || e.start_ns >= span.end_ns) continue;
    ++samples;
    const std::uint16_t owner = of_event[i];
    std::size_t k = 0;
    while (k < distinct && tally[k].first != owner) ++k;
    if (k == distinct) tally[distinct++] = {owner, 0};
    ++tally[k].second;
  }
  *several_owners = distinct > 1;
  for (std::size_t k = 0; k < distinct; ++k) {
    if (tally[k].second * 2 <= samples) continue;
    return tally[k].first < owners->colors.size() ? owners->colors[tally[k].first] : kind_color(first.kind);
  }
  return samples == 0 ? kind_color(first.kind) : kMixedOwnersColor;
}

// A block whose events have several owners shows who ran when, two pixels at a time: each column takes the owner
// of the first event there (found from the previous column's), so models that take turns show as alternating
// stripes, never as one block of the majority's colour or grey; columns with no event take the block's fill.
void EventLaneRow::draw_owner_stripes(const RowPaint& p, const LodSpan& span, const QRectF& r,
                                      const QColor& fill) const {
  const WorkOwners& owners = *p.state->overlays.owners;
  const std::vector<QColor>& stripe_colors = p.cache->stripe_colors;
  const std::vector<std::uint16_t>& of_event = owners.of_event[index_];
  const auto& at_depth = lane_->by_depth[span.depth];
  const double left = p.rect.left();
  constexpr double kColumnPx = 2;
  // Columns of one owner are one rectangle, and each owner's rectangles are filled in one call (pixel_rect: the
  // picture is the same as filling each).
  std::vector<std::vector<QRect>>& rects = p.cache->stripe_rects;
  const std::size_t fill_slot = stripe_colors.size();  // columns of no owner with a colour: the block's fill
  if (rects.size() < fill_slot + 1) rects.resize(fill_slot + 1);
  std::uint16_t run_owner = kNoOwner;
  double run_x = r.left();
  const auto flush = [&](double end_x) {
    if (end_x <= run_x) return;
    const QRect stripe = pixel_rect(QRectF(run_x, r.top(), end_x - run_x, r.height()));
    if (!stripe.isEmpty()) rects[std::min<std::size_t>(run_owner, fill_slot)].push_back(stripe);
  };
  // The columns go forward in time: each search starts from the last one's answer.
  std::size_t k = first_ending_after(*lane_, span.depth, std::max(span.start_ns, p.map->time_at(r.left() - left)));
  for (double x = r.left(); x < r.right(); x += kColumnPx) {
    const TimeNs t0 = std::max(span.start_ns, p.map->time_at(x - left));
    const TimeNs t1 = std::min(span.end_ns, p.map->time_at(x + kColumnPx - left));
    k = first_ending_after(*lane_, span.depth, t0, k);
    const bool has_event = k < at_depth.size() && lane_->events[at_depth[k]].start_ns < t1;
    const std::uint16_t owner = has_event ? of_event[at_depth[k]] : kNoOwner;
    if (owner == run_owner) continue;
    flush(x);
    run_owner = owner;
    run_x = x;
  }
  flush(r.right());
  QPainter& painter = *p.painter;
  const QPen pen = painter.pen();
  const QBrush brush = painter.brush();
  painter.setPen(Qt::NoPen);
  for (std::size_t owner = 0; owner <= fill_slot; ++owner) {
    if (rects[owner].empty()) continue;
    painter.setBrush(owner < fill_slot ? stripe_colors[owner] : fill);
    painter.drawRects(rects[owner].data(), static_cast<int>(rects[owner].size()));
    rects[owner].clear();
  }
  painter.setPen(pen);
  painter.setBrush(brush);
}

void EventLaneRow::draw_span(const RowPaint& p, const LodSpan& span, const QRectF& r, Rgb rgb) const {
  const TimelineState& state = *p.state;
  QPainter& painter = *p.painter;
  const Event& e = lane_->events[span.first_index];
  QColor fill = to_qcolor(rgb);
  bool match = false;
  if (state.search_active) {
    match = span.count == 1 ? (e.name < state.name_matches.size() && state.name_matches[e.name])
                            : block_has_match(state, span);
    if (!match) fill.setAlpha(60);
  }
  if (span.count > 1) {
    painter.fillRect(r, fill.darker(125));
    if (r.width() >= 4) painter.fillRect(r, p.cache->block_hatch);
  } else {
    painter.fillRect(r, fill);
    if (r.width() >= kMinLabelPx) {
      const QRectF text_rect = r.adjusted(3, 0, -2, 0);
      const int text_px = static_cast<int>(text_rect.width());
      const QString* name = &p.cache->label_of(*trace_, e);
      if (painter.fontMetrics().horizontalAdvance(*name) > text_px) name = &p.cache->narrow_label_of(*trace_, e);
      const QString shown = painter.fontMetrics().elidedText(*name, Qt::ElideRight, text_px);
      if (!shown.isEmpty()) {
        painter.setPen(to_qcolor(text_color_on(rgb)));
        painter.drawText(text_rect, Qt::AlignVCenter | Qt::AlignLeft, shown);
      }
    }
  }
  if (match) {
    painter.setPen(QPen(p.theme->search_match, 2));
    painter.drawRect(r.adjusted(1, 1, -1, -1));
  }
}

std::optional<EventRef> EventLaneRow::event_within(TimeNs t_ns, int depth, TimeNs tolerance_ns) const {
  const std::int64_t index = gtv::event_at(*lane_, depth, t_ns, tolerance_ns);
  if (index < 0) return std::nullopt;
  return EventRef{index_, static_cast<std::uint32_t>(index)};
}

std::optional<EventRef> EventLaneRow::event_at(TimeNs t_ns, int depth, TimeNs pixel_ns) const {
  return event_within(t_ns, depth, 2 * pixel_ns);
}

std::optional<EventRef> EventLaneRow::event_under(const RowHit& hit) const {
  return event_within(hit.t_ns, hit.depth, static_cast<TimeNs>(2 * hit.ns_per_px));
}

QString EventLaneRow::tooltip_at(TimeNs t_ns, int depth, TimeNs pixel_ns, TimeNs origin_ns) const {
  const auto ref = event_at(t_ns, depth, pixel_ns);
  return ref ? QString::fromStdString(tooltip_text(*trace_, *ref, origin_ns)) : QString();
}

std::optional<LodSpan> EventLaneRow::span_under(const RowHit& hit) const {
  for (const LodSpan& span : query_lod(*lane_, {hit.window.t0_ns, hit.window.t1_ns, hit.width_px}))
    if (span.depth == hit.depth && span.start_ns <= hit.t_ns &&
        hit.t_ns < span.end_ns + static_cast<TimeNs>(hit.ns_per_px))
      return span;
  return std::nullopt;
}

QString EventLaneRow::tooltip_under(const RowHit& hit) const {
  if (const auto block = span_under(hit); block && block->count > 1)
    return QString::fromStdString(std::to_string(block->count) + " events merged (zoom in to see them)\nfrom " +
                                  format_duration_exact(block->start_ns - hit.origin_ns) + " to " +
                                  format_duration_exact(block->end_ns - hit.origin_ns) +
                                  "\nfirst: " + display_name(*trace_, lane_->events[block->first_index]) +
                                  "\nwhere: " + lane_location(*trace_, index_));
  const auto ref = event_under(hit);
  return ref ? QString::fromStdString(tooltip_text(*trace_, *ref, hit.origin_ns)) : QString();
}

bool EventLaneRow::has_content_in(TimeNs t0_ns, TimeNs t1_ns) const {
  for (const Event& e : lane_->events) {
    if (e.start_ns >= t1_ns) break;  // events are in start order
    if (e.end_ns() > t0_ns) return true;
  }
  return false;
}

std::optional<int> EventLaneRow::figure_depths_in(const Trace& trace, TimeWindow window) const {
  if (desc().bookkeeping || holds_only_profiler_records(trace, *lane_)) return 0;
  return depths_in(window);
}

int EventLaneRow::depths_in(TimeWindow window) const {
  int depths = 0;
  for (const Event& e : lane_->events) {
    if (e.start_ns >= window.t1_ns) break;  // events are in start order
    if (e.end_ns() > window.t0_ns) depths = std::max(depths, e.depth + 1);
  }
  return depths;
}

}  // namespace gtv::ui
