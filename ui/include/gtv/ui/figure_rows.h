#pragma once
// What a figure (an exported picture for a paper or a slide) shows of the timeline: the rows that hold something in
// its window, each as deep as its events there nest, and none of the window's affordances (no expand triangles, no
// collapsed rows, no empty placeholder rows, no threads of the profiler's own records). Pure: tested on bundled
// recordings without drawing.
#include <string>
#include <vector>

#include "gtv/base/expected.h"
#include "gtv/model/trace.h"
#include "gtv/ui/lane_layout.h"
#include "gtv/ui/time_mapping.h"
#include "gtv/ui/timeline_row.h"

namespace gtv::ui {

// The rows of trace a figure on window (absolute times) shows: lanes and rows with nothing in the window are
// hidden, the profiler's own lanes and bookkeeping processes too, and a group left with nothing is left out; no
// lane or group is collapsed; each lane keeps the depth rows its events in the window use.
[[nodiscard]] LaneViewState figure_lane_state(const Trace& trace, const TimelineRows& rows, TimeWindow window);

// The font scale of a figure width_px wide: its smallest text (8 pt at scale 1, 10.7 px at 96 dpi) is 1/72 of the
// width, so a figure printed across a 6.5-inch text block shows it at 6.5 pt whatever its pixel size; never below
// the screen's size (1) nor above 4.
[[nodiscard]] double figure_font_scale(int width_px);

// The label column of a figure: the preset ("auto": as wide as the longest label needs, at most 30% of the width;
// "narrow": 12%; "wide": 30%; or a width in pixels), for a figure width_px wide whose longest label is
// longest_label_px wide. Errors name the value.
[[nodiscard]] Expected<double> figure_label_width_px(const std::string& preset, int width_px, double longest_label_px);

}  // namespace gtv::ui
