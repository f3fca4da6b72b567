#pragma once
// Rows of the timeline beside the event lanes: the recorded ranges of a host thread, a counter series, and rows drawn
// from the analysis (communication, collectives, the critical path). Each kind of row says where it goes, draws
// itself, explains a point of itself in a tooltip and names the colours it draws with for the legend; LaneLayout
// places it in its process or GPU group. Adding a kind of row is one class and an add_X_rows helper in
// make_timeline_rows (timeline_rows.cpp); a row drawn from the analysis reads its data from OverlayData
// (overlay_data.h, filled in document_analysis.cpp), so neither make_timeline_rows's signature nor the legend's code
// changes for it.
#include <QRectF>
#include <QString>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gtv/ui/lane_layout.h"
#include "gtv/ui/legend_entry.h"
#include "gtv/ui/theme.h"
#include "gtv/ui/time_mapping.h"

class QPainter;

namespace gtv::ui {

struct OverlayData;

// What a row draws with: rect is the row's area in plot pixels (its depth rows, without the gap under it);
// x = rect.left() + map.x_of(t_ns) is time t_ns.
struct RowPaint {
  QPainter* painter = nullptr;
  const TimeMapping* map = nullptr;
  const Theme* theme = nullptr;
  QRectF rect;
  double depth_px = 0;
};

class TimelineRow {
 public:
  virtual ~TimelineRow() = default;
  // Where it goes and how it is listed; see OtherRowDesc.
  [[nodiscard]] virtual OtherRowDesc desc() const = 0;
  virtual void draw(const RowPaint& paint) const = 0;
  // The tooltip at time t_ns in depth row `depth` (pixel_ns: the time one pixel covers, for hit slop); times shown
  // from origin_ns. Empty where the row has nothing.
  [[nodiscard]] virtual QString tooltip_at(TimeNs t_ns, int depth, TimeNs pixel_ns, TimeNs origin_ns) const = 0;
  // Whether it shows anything in [t0_ns, t1_ns): a row with nothing there may give way in the first view.
  [[nodiscard]] virtual bool has_content_in(TimeNs /*t0_ns*/, TimeNs /*t1_ns*/) const { return true; }
  // The event a click at time t_ns in depth row `depth` selects, if the row stands for events.
  [[nodiscard]] virtual std::optional<EventRef> event_at(TimeNs /*t_ns*/, int /*depth*/, TimeNs /*pixel_ns*/) const {
    return std::nullopt;
  }
  // The colours it draws with, named, for the legend (legend_groups): rows of one kind give groups of one title,
  // which the legend merges. None by default.
  [[nodiscard]] virtual std::vector<LegendGroup> legend() const { return {}; }
};

using TimelineRows = std::vector<std::shared_ptr<const TimelineRow>>;

// Every row of a trace that is not an event lane, in this order: one range row per host thread that recorded ranges
// (forward ranges in their model's colour, from overlays.owners when set), one counter row per counter series, one
// communication row per GPU in overlays.communication, one collective row per rank in overlays.collectives (a merged
// run), and the critical-path row when overlays.critical_path holds a path. The rows point into trace and overlays:
// both must outlive them.
[[nodiscard]] TimelineRows make_timeline_rows(const Trace& trace, const OverlayData& overlays);
// The rows from the trace alone (no analysis yet): range rows in their own colours, counter rows. trace must outlive
// them.
[[nodiscard]] TimelineRows make_timeline_rows(const Trace& trace);
[[nodiscard]] std::vector<OtherRowDesc> row_descs(const TimelineRows& rows);

}  // namespace gtv::ui
