#pragma once
// The rows of the timeline: an event lane of the trace (EventLaneRow), the recorded ranges of a host thread, a
// counter series, rows drawn from the analysis (communication, collectives, the critical path) and the bands across
// the plot above and below the lanes (measurement brackets, warm-up labels, the GPUs-busy strip, the idle rows:
// band_rows.h). Each kind of row says where it goes, draws itself, explains a point of itself in a tooltip and names
// the colours it draws with for the legend; LaneLayout places it in its process or GPU group, fit_bands a band. Adding
// a kind of row is one class and an add_X_rows helper in make_timeline_rows (timeline_rows.cpp); a row drawn from the
// analysis reads its data from OverlayData (overlay_data.h, filled in document_analysis.cpp), so neither
// make_timeline_rows's signature nor the legend's code changes for it.
#include <QPointF>
#include <QRect>
#include <QRectF>
#include <QString>
#include <QtGlobal>
#include <algorithm>
#include <cmath>
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
struct TimelineState;
struct RowDrawCache;

// What a row draws with: rect is the row's area in plot pixels (its depth rows, without the gap under it);
// x = rect.left() + map.x_of(t_ns) is time t_ns. state gives the view's window, colour mode and search; cache is
// the view's scratch space, kept across paints so a frame allocates nothing (event lanes use both).
struct RowPaint {
  QPainter* painter = nullptr;
  const TimeMapping* map = nullptr;
  const Theme* theme = nullptr;
  QRectF rect;
  double depth_px = 0;
  int depth_rows = 1;  // the depth rows rect holds (1 for a collapsed row)
  const TimelineState* state = nullptr;
  RowDrawCache* cache = nullptr;
  // A band's: what the painter is clipped to when it is called; a band that clips elsewhere sets it back.
  QRectF clip{};
};

// A rectangle in whole pixels, each edge rounded as QPainter rounds a QRectF it fills without antialiasing. Rows
// batch many rectangles into one QPainter::drawRects(const QRect*, n), which the raster engine fills as it fills each
// rectangle alone; its QRectF overload goes through the general rasterizer, several times slower.
[[nodiscard]] inline QRect pixel_rect(const QRectF& r) {
  const int x0 = qRound(r.left()), x1 = qRound(r.right()), y0 = qRound(r.top()), y1 = qRound(r.bottom());
  return {std::min(x0, x1), std::min(y0, y1), std::abs(x1 - x0), std::abs(y1 - y0)};
}

// A point of a row under the pointer, with the view it is seen in: what an event lane's merged blocks depend on.
struct RowHit {
  TimeNs t_ns = 0;
  int depth = 0;
  double ns_per_px = 1;  // the time one pixel covers
  TimeNs origin_ns = 0;  // times are shown from here
  TimeWindow window;     // the visible window, width_px wide
  double width_px = 1;
  // Where it is in plot pixels, in the row's area as drawn (its depth rows), with the view's state: what a band's
  // labels, laid out per paint, are hit against.
  QPointF pos_px;
  QRectF rect;
  int depth_rows = 1;
  const TimelineState* state = nullptr;
  // The time one pixel covers, rounded up, for hit slop.
  [[nodiscard]] TimeNs pixel_ns() const { return static_cast<TimeNs>(std::ceil(ns_per_px)); }
};

class TimelineRow {
 public:
  virtual ~TimelineRow() = default;
  // Where it goes and how it is listed; see RowDesc.
  [[nodiscard]] virtual RowDesc desc() const = 0;
  virtual void draw(const RowPaint& paint) const = 0;
  // The tooltip at time t_ns in depth row `depth` (pixel_ns: the time one pixel covers, for hit slop); times shown
  // from origin_ns. Empty where the row has nothing.
  [[nodiscard]] virtual QString tooltip_at(TimeNs t_ns, int depth, TimeNs pixel_ns, TimeNs origin_ns) const = 0;
  // Whether it shows anything in [t0_ns, t1_ns): a row with nothing there may give way in the first view.
  [[nodiscard]] virtual bool has_content_in(TimeNs /*t0_ns*/, TimeNs /*t1_ns*/) const { return true; }
  // In a figure of `window`: the depth rows it keeps (0: it gives way), or none for a row of one depth row that stays
  // where has_content_in says it shows something. Event lanes answer with the depths their events there use.
  [[nodiscard]] virtual std::optional<int> figure_depths_in(const Trace& /*trace*/, TimeWindow /*window*/) const {
    return std::nullopt;
  }
  // The event a click at time t_ns in depth row `depth` selects, if the row stands for events.
  [[nodiscard]] virtual std::optional<EventRef> event_at(TimeNs /*t_ns*/, int /*depth*/, TimeNs /*pixel_ns*/) const {
    return std::nullopt;
  }
  // The tooltip and the clicked event at a point seen in a view; by default tooltip_at and event_at there.
  [[nodiscard]] virtual QString tooltip_under(const RowHit& hit) const {
    return tooltip_at(hit.t_ns, hit.depth, hit.pixel_ns(), hit.origin_ns);
  }
  [[nodiscard]] virtual std::optional<EventRef> event_under(const RowHit& hit) const {
    return event_at(hit.t_ns, hit.depth, hit.pixel_ns());
  }
  // A band (RowDesc::place above or below the lanes): the room it wants in the view's state (none: no depth rows),
  // at the view's theme and window. A band's draw gets the depth rows it was given (RowPaint::depth_rows).
  [[nodiscard]] virtual BandSize band_size(const TimelineState& /*state*/) const { return {}; }
  // The colours it draws with, named, for the legend (legend_groups): rows of one kind give groups of one title,
  // which the legend merges. None by default.
  [[nodiscard]] virtual std::vector<LegendGroup> legend() const { return {}; }
};

using TimelineRows = std::vector<std::shared_ptr<const TimelineRow>>;

// Every row of a trace, in this order: one event lane row per lane (in Trace::lanes() order), one range row per host
// thread that recorded ranges (forward ranges in their model's colour, from overlays.owners when set), one counter
// row per counter series, one communication row per GPU in overlays.communication, one collective row per rank in
// overlays.collectives (a merged run), the critical-path row when overlays.critical_path holds a path, then the bands
// the overlays hold (band_rows.h: brackets above the lanes; warm-up labels, GPUs-busy strip, idle rows below). The
// rows point into trace and overlays: both must outlive them.
[[nodiscard]] TimelineRows make_timeline_rows(const Trace& trace, const OverlayData& overlays);
// The rows from the trace alone (no analysis yet): event lanes, range rows in their own colours, counter rows. trace
// must outlive them.
[[nodiscard]] TimelineRows make_timeline_rows(const Trace& trace);
[[nodiscard]] std::vector<RowDesc> row_descs(const TimelineRows& rows);

}  // namespace gtv::ui
