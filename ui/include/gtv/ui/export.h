#pragma once
// Image export of a timeline: PNG and JPG (raster, with a scale factor for print), PDF (vector, through
// QCustomPlot) and SVG (QSvgGenerator). The format follows the file extension; files are written to a
// temporary name and renamed, so a failed export never leaves half a file.
#include <QString>
#include <optional>
#include <string_view>
#include <utility>

#include "gtv/base/expected.h"
#include "gtv/ui/time_mapping.h"

namespace gtv::ui {

class TimelineView;

struct ExportOptions {
  QString path;
  double scale = 1.0;  // raster formats: pixels per layout pixel
  int width_px = 0;    // 0: 1600
  int height_px = 0;   // 0: tall enough for every lane (capped)
  std::optional<TimeWindow>
      range;  // relative to the trace start; else the visible window, or the whole trace with whole_trace
  bool whole_trace = false;
  int jpg_quality = 92;
};

[[nodiscard]] Status export_timeline(TimelineView& view, const ExportOptions& options);

// "12.5ms", "300us", "2s", "1500ns"; a bare number is milliseconds.
[[nodiscard]] Expected<TimeNs> parse_time(std::string_view text);
// "T0:T1" with the units of parse_time; T1 must be after T0.
[[nodiscard]] Expected<TimeWindow> parse_time_range(std::string_view text);
// "WxH" in pixels, each 16..20000.
[[nodiscard]] Expected<std::pair<int, int>> parse_size(std::string_view text);

}  // namespace gtv::ui
