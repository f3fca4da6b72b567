#pragma once
// Time <-> pixel math of the timeline, kept out of the painter so it can be unit tested (hotspot's
// TimeLineData::mapTimeToX). A window is [t0, t1) in trace nanoseconds; x is pixels from the left edge of the
// data area.
#include <string>

#include "gtv/base/time.h"

namespace gtv::ui {

struct TimeWindow {
  TimeNs t0_ns = 0;
  TimeNs t1_ns = 1;
  [[nodiscard]] TimeNs span_ns() const { return t1_ns - t0_ns; }
  friend bool operator==(const TimeWindow&, const TimeWindow&) = default;
};

// Shortest window the view zooms to: a few nanoseconds over a screen is already below timer resolution.
inline constexpr TimeNs kMinSpanNs = 10;

class TimeMapping {
 public:
  TimeMapping(TimeWindow window, double width_px);
  [[nodiscard]] double x_of(TimeNs t_ns) const;
  [[nodiscard]] TimeNs time_at(double x_px) const;  // rounded to the nearest ns
  [[nodiscard]] double ns_per_px() const { return ns_per_px_; }
  [[nodiscard]] const TimeWindow& window() const { return window_; }
  [[nodiscard]] double width_px() const { return width_px_; }

 private:
  TimeWindow window_;
  double width_px_;
  double ns_per_px_;
};

// Zoom by factor (>1 zooms in) keeping anchor_ns at the same pixel:
// t0' = anchor - (anchor - t0) / factor, t1' = anchor + (t1 - anchor) / factor, rounded to ns.
[[nodiscard]] TimeWindow zoom_window(TimeWindow window, TimeNs anchor_ns, double factor);
// Moves the window by dx_px pixels of a view width_px wide (positive moves later in time).
[[nodiscard]] TimeWindow pan_window(TimeWindow window, double dx_px, double width_px);
// Keeps the window inside bounds: a wider window becomes bounds, otherwise it is shifted inside; a window under
// kMinSpanNs is widened around its centre.
[[nodiscard]] TimeWindow clamp_window(TimeWindow window, TimeWindow bounds);
// The window that shows [start, end] with a margin of margin_fraction of the span on each side.
[[nodiscard]] TimeWindow fit_window(TimeNs start_ns, TimeNs end_ns, double margin_fraction = 0.02);

// Axis units: chosen from the visible span so labels stay short ("12.5 ms", not "12500000 ns").
struct TimeUnit {
  double ns_per_unit = 1;
  const char* suffix = "ns";
};
[[nodiscard]] TimeUnit choose_time_unit(TimeNs span_ns);
// An axis label: value in unit with just enough decimals to tell ticks step_ns apart.
[[nodiscard]] std::string format_axis_time(double t_ns, TimeUnit unit, double step_ns);

}  // namespace gtv::ui
