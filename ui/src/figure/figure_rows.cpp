#include "gtv/ui/figure_rows.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>

namespace gtv::ui {

LaneViewState figure_lane_state(const Trace& trace, const TimelineRows& rows, TimeWindow window) {
  LaneViewState state;
  std::map<GroupKey, bool> group_shows;  // whether a group keeps a lane or a row
  for (const auto& row : rows) {
    const RowDesc d = row->desc();
    if (is_band(d.place)) continue;  // bands are fitted to the figure's height, not chosen by content
    bool shown = false;
    if (const std::optional<int> depths = row->figure_depths_in(trace, window)) {
      // A row of depth rows (an event lane) keeps those it uses in the window.
      shown = *depths > 0;
      if (shown) state.shown_depths[d.id] = *depths;
    } else {
      shown = row->has_content_in(window.t0_ns, window.t1_ns);
    }
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
