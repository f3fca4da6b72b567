#pragma once
// What the timeline's painters share: the trace, its layout, the visible window, the theme, selection, search
// and analysis overlays. Owned by TimelineView; the plottable and layers only read it.
#include <QRectF>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "gtv/model/lod.h"
#include "gtv/model/trace.h"
#include "gtv/ui/lane_layout.h"
#include "gtv/ui/overlay_data.h"
#include "gtv/ui/palette.h"
#include "gtv/ui/theme.h"
#include "gtv/ui/time_mapping.h"
#include "gtv/ui/timeline_row.h"
#include "gtv/ui/work_owner.h"

namespace gtv::ui {

struct TimelineState {
  std::shared_ptr<const Trace> trace;
  LaneViewState lane_state;
  TimelineRows rows;  // every row: event lanes, ranges, counters; LaneRow::row indexes them
  LaneLayout layout;
  TimeWindow window;
  double scroll_px = 0;  // vertical scroll of the lane area
  Theme theme;
  std::vector<Rgb> name_colors;  // per StringId: the kernel colour of that name
  std::vector<Rgb> lane_colors;  // per lane: its stream colour (GPU lanes)
  // Per lane: its summarise_lod, with which frames zoomed far out pass whole blocks of sub-pixel events.
  std::vector<LodSummary> lod_summaries;
  ColorMode color_mode = ColorMode::KernelName;
  std::vector<char> name_matches;  // per StringId: matches the search text
  bool search_active = false;
  std::optional<EventRef> selected;
  std::optional<TimeWindow> measure;  // shift-drag range
  std::optional<QRectF> box;          // ctrl-drag box zoom, in plot pixels
  OverlayData overlays;
  // Where the bands (rows placed above or below the lanes) go at the plot's height (fit_bands).
  BandLayout bands;
  // Bracket labels end before this time: the classroom fades what lies after its playback cursor.
  std::optional<TimeNs> labels_before_ns;
  bool warmup_labels = true;  // name warm-up spans in their band (the classroom shows the bands only)
  std::map<GroupKey, std::string> group_summaries;  // said on a collapsed group's header (group_summaries)
  // A figure for a paper or a slide: the label column shows names only (no expand or collapse triangles).
  bool figure = false;

  // The lane area inside the axis rect (between the bands).
  [[nodiscard]] QRectF lane_rect(const QRectF& axis_rect) const {
    return axis_rect.adjusted(0, bands.above_px, 0, -bands.below_px);
  }
  // Band `index` of bands.rows in plot pixels: the bands above the lanes stack down from the axis rect's top, those
  // below down from the lanes' bottom.
  [[nodiscard]] QRectF band_rect(const QRectF& axis_rect, std::size_t index) const {
    const RowPlace place = bands.rows[index].place;
    double top = place == RowPlace::AboveLanes ? axis_rect.top() : axis_rect.bottom() - bands.below_px;
    for (std::size_t i = 0; i < index; ++i)
      if (bands.rows[i].place == place) top += bands.rows[i].height_px;
    return {axis_rect.left(), top, axis_rect.width(), bands.rows[index].height_px};
  }
  // The band of the row with this id, if it was given room.
  [[nodiscard]] std::optional<std::size_t> band_index(const std::string& id) const {
    for (std::size_t i = 0; i < bands.rows.size(); ++i)
      if (bands.rows[i].row < rows.size() && rows[bands.rows[i].row]->desc().id == id) return i;
    return std::nullopt;
  }
  // The rectangle of the band of the row with this id, if it was given room.
  [[nodiscard]] std::optional<QRectF> band_rect(const QRectF& axis_rect, const std::string& id) const {
    const std::optional<std::size_t> index = band_index(id);
    return index ? std::optional<QRectF>(band_rect(axis_rect, *index)) : std::nullopt;
  }
  // The TimelineRow of a layout row of kind Row.
  [[nodiscard]] const TimelineRow* row(const LaneRow& row) const {
    return row.kind == RowKind::Row && row.row < rows.size() ? rows[row.row].get() : nullptr;
  }
  [[nodiscard]] double row_y(const QRectF& lane_area, double layout_y_px) const {
    return lane_area.top() + layout_y_px - scroll_px;
  }
  // Event `index` of `lane` (e) in the current colour mode; table lookups only, as it runs per drawn span.
  [[nodiscard]] Rgb color_of(LaneIndex lane, std::uint32_t index, const Event& e) const {
    switch (color_mode) {
      case ColorMode::Owner:
        if (const WorkOwners* o = overlays.owners.get()) {
          const std::uint16_t owner = o->owner_of(lane, index);
          if (owner < o->colors.size()) return o->colors[owner];
        }
        return kind_color(e.kind);
      case ColorMode::Kind:
        return kind_color(e.kind);
      case ColorMode::Stream:
        return is_gpu_activity(e.kind) && lane < lane_colors.size() ? lane_colors[lane] : kind_color(e.kind);
      case ColorMode::KernelName:
        break;
    }
    return e.kind == EventKind::Kernel && e.name < name_colors.size() ? name_colors[e.name] : kind_color(e.kind);
  }
};

}  // namespace gtv::ui
