#include "gtv/ui/figure_rows.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>

namespace gtv::ui {

namespace {

// The depth rows lane's events overlapping [t0_ns, t1_ns) use; 0 when none overlaps.
int depths_in(const Lane& lane, TimeWindow window) {
  int depths = 0;
  for (const Event& e : lane.events) {
    if (e.start_ns >= window.t1_ns) break;  // events are in start order
    if (e.end_ns() > window.t0_ns) depths = std::max(depths, e.depth + 1);
  }
  return depths;
}

}  // namespace

LaneViewState figure_lane_state(const Trace& trace, const TimelineRows& rows, TimeWindow window) {
  LaneViewState state;
  std::map<GroupKey, bool> group_shows;  // whether a group keeps a lane or a row
  const std::vector<LaneDesc> descs = lane_descs(trace);
  for (LaneIndex i = 0; i < trace.lanes().size(); ++i) {
    const Lane& lane = trace.lane(i);
    const GroupKey group = group_of(lane.key);
    const int depths = depths_in(lane, window);
    const bool shown = depths > 0 && !descs[i].bookkeeping && !holds_only_profiler_records(trace, lane);
    if (shown)
      state.shown_depths[i] = depths;
    else
      state.hidden_lanes.insert(i);
    group_shows[group] = group_shows[group] || shown;
  }
  for (const auto& row : rows) {
    const OtherRowDesc d = row->desc();
    const bool shown = row->has_content_in(window.t0_ns, window.t1_ns);
    if (!shown) state.hidden_rows.insert(d.id);
    group_shows[d.group] = group_shows[d.group] || shown;
  }
  for (const auto& [group, shows] : group_shows)
    if (!shows) state.hidden_groups.insert(group);
  return state;
}

double figure_font_scale(int width_px) {
  constexpr double kSmallestTextPx = 8.0 * 96 / 72;  // 8 pt at 96 dpi
  constexpr double kWidthPerSmallestText = 72;
  return std::clamp(width_px / kWidthPerSmallestText / kSmallestTextPx, 1.0, 4.0);
}

Expected<double> figure_label_width_px(const std::string& preset, int width_px, double longest_label_px) {
  const double width = width_px;
  if (preset.empty() || preset == "auto") return std::min(std::ceil(longest_label_px), 0.3 * width);
  if (preset == "narrow") return 0.12 * width;
  if (preset == "wide") return 0.3 * width;
  int px = 0;
  const char* end = preset.data() + preset.size();
  const auto [ptr, ec] = std::from_chars(preset.data(), end, px);
  if (ec != std::errc() || ptr != end || px < 40 || px > width_px / 2)
    return Error{"--label-width '" + preset +
                 "' must be auto, narrow, wide or a width in pixels (40 up to half the image)"};
  return static_cast<double>(px);
}

}  // namespace gtv::ui
