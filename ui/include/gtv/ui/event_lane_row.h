#pragma once
// One event lane of the trace as a timeline row: its events nested by depth, drawn from gtv::query_lod at the view's
// pixel width (single events as named rectangles, merged sub-pixel runs as hatched blocks), so the cost of a frame
// follows the pixels on screen, not the events in the trace. It sits among its group's event lanes, between the
// rows placed at the group's top and bottom.
#include <QBrush>
#include <QColor>
#include <QString>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "gtv/model/lod.h"
#include "gtv/model/trace.h"
#include "gtv/ui/palette.h"
#include "gtv/ui/timeline_row.h"

namespace gtv::ui {

// What the event lanes of one view keep across paints (RowPaint::cache): the span buffer LOD queries fill, the texts
// drawn on events, the owners' stripe colours; and the spans drawn in the current paint.
struct RowDrawCache {
  RowDrawCache();
  std::vector<LodSpan> spans;
  QBrush block_hatch;                            // the hatching of merged blocks
  std::vector<QColor> stripe_colors;             // per owner: its stripe colour (set once per paint)
  std::vector<std::vector<QRect>> stripe_rects;  // per owner, then the block's fill: one block's stripes (reused)
  std::size_t span_count = 0;                    // spans drawn since the paint began
  // The text drawn on an event: a kernel by its display name, as the legend lists it
  // ("cudnn::bn_bw_1C11_kernel_new<float, float, float2, 128, true, 1>"), the full name being in its tooltip and
  // details. Made once per name, not per event and replot.
  [[nodiscard]] const QString& label_of(const Trace& trace, const Event& e);
  // Where that does not fit: a kernel by its base name ("bn_bw_1C11_kernel_new"), so a narrow block shows the
  // function rather than the start of its namespace; any other event as label_of.
  [[nodiscard]] const QString& narrow_label_of(const Trace& trace, const Event& e);

 private:
  const Trace* labels_trace_ = nullptr;                     // the trace the label caches belong to
  std::vector<std::optional<QString>> name_labels_;         // per StringId: the name as written
  std::vector<std::optional<QString>> kernel_labels_;       // per StringId: the kernel's display name
  std::vector<std::optional<QString>> kernel_base_labels_;  // per StringId: the kernel's base name
};

// "lane:gpu:0:7", "lane:host:1234:1685": the row id of the lane with this key, the same on every load of a file.
[[nodiscard]] std::string event_lane_row_id(const LaneKey& key);
// The desc of lane `index`, known as `lane` (lane_descs), in the group headed group_label.
[[nodiscard]] RowDesc event_lane_row_desc(LaneIndex index, const LaneDesc& lane, std::string group_label);

class EventLaneRow : public TimelineRow {
 public:
  // trace must outlive the row; lane and group_label as lane_descs and group_labels give them for lane `index`.
  EventLaneRow(const Trace& trace, LaneIndex index, const LaneDesc& lane, std::string group_label);

  [[nodiscard]] RowDesc desc() const override { return desc_; }
  [[nodiscard]] LaneIndex lane_index() const { return index_; }
  // Draws with paint.state and paint.cache; without them nothing.
  void draw(const RowPaint& paint) const override;
  // The event's tooltip (tooltip_text), within two pixels.
  [[nodiscard]] QString tooltip_at(TimeNs t_ns, int depth, TimeNs pixel_ns, TimeNs origin_ns) const override;
  // Whether any event overlaps [t0_ns, t1_ns).
  [[nodiscard]] bool has_content_in(TimeNs t0_ns, TimeNs t1_ns) const override;
  // The event within two pixels (pixel_ns each) of t_ns.
  [[nodiscard]] std::optional<EventRef> event_at(TimeNs t_ns, int depth, TimeNs pixel_ns) const override;
  // Over a merged block, how many events it holds and where; else the event's tooltip.
  [[nodiscard]] QString tooltip_under(const RowHit& hit) const override;
  [[nodiscard]] std::optional<EventRef> event_under(const RowHit& hit) const override;
  // The span (an event or a merged block) drawn at the hit.
  [[nodiscard]] std::optional<LodSpan> span_under(const RowHit& hit) const;
  // The depth rows the events overlapping window use; 0 when none does.
  [[nodiscard]] int depths_in(TimeWindow window) const;
  // depths_in, or 0 for a bookkeeping lane or one that holds only the profiler's own records.
  [[nodiscard]] std::optional<int> figure_depths_in(const Trace& trace, TimeWindow window) const override;

 private:
  [[nodiscard]] std::optional<EventRef> event_within(TimeNs t_ns, int depth, TimeNs tolerance_ns) const;
  // One event (named rectangle) or merged block (darker fill, hatched) in the colour rgb.
  void draw_span(const RowPaint& p, const LodSpan& span, const QRectF& r, Rgb rgb) const;
  // A merged block's fill: in the owner mode its majority owner's colour (kMixedOwnersColor when mixed), else
  // its first event's colour. several_owners: whether the sampled events have more than one owner (then the
  // block is drawn as owner stripes, that fill between them).
  [[nodiscard]] Rgb block_color(const TimelineState& state, const LodSpan& span, bool* several_owners) const;
  void draw_owner_stripes(const RowPaint& p, const LodSpan& span, const QRectF& r, const QColor& fill) const;
  [[nodiscard]] bool block_has_match(const TimelineState& state, const LodSpan& span) const;

  const Trace* trace_;
  const Lane* lane_;
  LaneIndex index_;
  RowDesc desc_;
};

}  // namespace gtv::ui
