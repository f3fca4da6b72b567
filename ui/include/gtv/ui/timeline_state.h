#pragma once
// What the timeline's painters share: the trace, its layout, the visible window, the theme, selection, search
// and analysis overlays. Owned by TimelineView; the plottable and layers only read it.
#include <QRectF>
#include <memory>
#include <optional>
#include <vector>

#include "gtv/model/trace.h"
#include "gtv/ui/lane_layout.h"
#include "gtv/ui/overlay_data.h"
#include "gtv/ui/palette.h"
#include "gtv/ui/theme.h"
#include "gtv/ui/time_mapping.h"

namespace gtv::ui {

struct TimelineState {
  std::shared_ptr<const Trace> trace;
  LaneViewState lane_state;
  LaneLayout layout;
  TimeWindow window;
  double scroll_px = 0;  // vertical scroll of the lane area
  Theme theme;
  std::vector<Rgb> name_colors;    // per StringId: the kernel colour of that name
  std::vector<char> name_matches;  // per StringId: matches the search text
  bool search_active = false;
  std::optional<EventRef> selected;
  std::optional<TimeWindow> measure;  // shift-drag range
  std::optional<QRectF> box;          // ctrl-drag box zoom, in plot pixels
  OverlayData overlays;
  double top_band_px = 0;     // measurement brackets and ranges above the lanes
  double bottom_band_px = 0;  // overlap strip under the lanes

  // The lane area inside the axis rect (between the bands).
  [[nodiscard]] QRectF lane_rect(const QRectF& axis_rect) const {
    return axis_rect.adjusted(0, top_band_px, 0, -bottom_band_px);
  }
  [[nodiscard]] double row_y(const QRectF& lane_area, double layout_y_px) const {
    return lane_area.top() + layout_y_px - scroll_px;
  }
  [[nodiscard]] Rgb color_of(const Event& e) const {
    return e.kind == EventKind::Kernel && e.name < name_colors.size() ? name_colors[e.name] : kind_color(e.kind);
  }
};

}  // namespace gtv::ui
