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
#include "gtv/ui/kind_columns.h"
#include "gtv/ui/lane_layout.h"
#include "gtv/ui/overlay_data.h"
#include "gtv/ui/palette.h"
#include "gtv/ui/theme.h"
#include "gtv/ui/time_mapping.h"
#include "gtv/ui/timeline_row.h"
#include "gtv/ui/work_owner.h"

namespace gtv::ui {

// The busy-count steps of o.busy_gpus as runs (step i lasts until step i + 1; its kind is its count, at most
// o.gpu_count), summarised for drawing by pixel column.
[[nodiscard]] KindRun busy_run_at(const OverlayData& o, std::size_t i);
[[nodiscard]] KindColumns busy_kind_columns(const OverlayData& o);

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
  KindColumns busy_columns;  // overlays.busy_gpus by pixel column (busy_kind_columns)
  double top_band_px = 0;    // measurement brackets and ranges above the lanes
  int bracket_rows = 0;      // the bracket rows in it (fewer than the brackets want where the plot is short)
  // Bracket labels end before this time: the classroom fades what lies after its playback cursor.
  std::optional<TimeNs> labels_before_ns;
  // Under the lanes: the warm-up labels (while warm-up is in view), the GPUs-busy strip, then one idle-cause row per
  // GPU.
  double bottom_band_px = 0;
  double warmup_label_px = 0;
  bool warmup_labels = true;  // name warm-up spans in their band (the classroom shows the bands only)
  double busy_strip_px = 0;
  double idle_row_px = 0;
  std::map<GroupKey, std::string> group_summaries;  // said on a collapsed group's header (group_summaries)
  // A figure for a paper or a slide: the label column shows names only (no expand or collapse triangles).
  bool figure = false;

  // The lane area inside the axis rect (between the bands).
  [[nodiscard]] QRectF lane_rect(const QRectF& axis_rect) const {
    return axis_rect.adjusted(0, top_band_px, 0, -bottom_band_px);
  }
  // Where warm-up spans are named: a band of its own, so names never cover lanes or rows.
  [[nodiscard]] QRectF warmup_label_rect(const QRectF& axis_rect) const {
    return {axis_rect.left(), axis_rect.bottom() - bottom_band_px, axis_rect.width(), warmup_label_px};
  }
  [[nodiscard]] QRectF busy_strip_rect(const QRectF& axis_rect) const {
    return {axis_rect.left(), axis_rect.bottom() - bottom_band_px + warmup_label_px, axis_rect.width(), busy_strip_px};
  }
  // Row `index` of overlays.idle_devices, under the busy strip.
  [[nodiscard]] QRectF idle_row_rect(const QRectF& axis_rect, std::size_t index) const {
    const double top = axis_rect.bottom() - bottom_band_px + warmup_label_px + busy_strip_px +
                       static_cast<double>(index) * idle_row_px;
    return {axis_rect.left(), top, axis_rect.width(), idle_row_px};
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
