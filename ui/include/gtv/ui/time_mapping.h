#pragma once
// Time <-> pixel math of the timeline, kept out of the painter so it can be unit tested (hotspot's
// TimeLineData::mapTimeToX). A window is [t0, t1) in trace nanoseconds; x is pixels from the left edge of the
// data area.
#include <string>
#include <utility>
#include <vector>

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

// Pixel intervals [x0, x1) merged where they overlap or meet within a pixel, sorted by x0: a band over many narrow
// spans is then filled once per run, never twice over one pixel.
[[nodiscard]] std::vector<std::pair<double, double>> merge_pixel_runs(std::vector<std::pair<double, double>> runs);

// Axis units: chosen from the visible span so labels stay short ("12.5 ms", not "12500000 ns").
struct TimeUnit {
  double ns_per_unit = 1;
  const char* suffix = "ns";
};
[[nodiscard]] TimeUnit choose_time_unit(TimeNs span_ns);
// An axis label: value in unit with the decimals that write a multiple of step_ns exactly (a 2.5 ms step reads
// "447.5 ms", never "448 ms").
[[nodiscard]] std::string format_axis_time(double t_ns, TimeUnit unit, double step_ns);
// Decimals that write every multiple of step_units exactly (2.5 -> 1, 0.05 -> 2, 5 -> 0); at most 9.
[[nodiscard]] int exact_decimals(double step_units);

// How the ticks of one view are labelled: at fine zoom far from the origin, absolute values would need six digits
// and more ("449750 us"), so the labels count from a base, the tick at or before the view's start, shown once on
// the first visible tick ("449.5 ms" or "449.5 ms + 250 us", then "+500 us", ...).
struct AxisLabeling {
  TimeUnit unit;  // of the tick labels (the offsets when there is a base)
  double step_ns = 1;
  bool has_base = false;
  double base_ns = 0;     // the base, in ns since the origin
  std::string base_text;  // "449.5 ms"
};
// lower_ns/upper_ns: the visible range in ns since the origin; step_ns: the tick step.
[[nodiscard]] AxisLabeling choose_axis_labeling(double lower_ns, double upper_ns, double step_ns);
// The label of the tick at t_ns (since the origin); the first visible tick carries the base.
[[nodiscard]] std::string axis_tick_label(double t_ns, const AxisLabeling& labeling, bool first_visible);

}  // namespace gtv::ui
