#include "gtv/ui/time_mapping.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace gtv::ui {

TimeMapping::TimeMapping(TimeWindow window, double width_px)
    : window_(window),
      width_px_(std::max(width_px, 1.0)),
      ns_per_px_(static_cast<double>(std::max<TimeNs>(window.span_ns(), 1)) / width_px_) {}

double TimeMapping::x_of(TimeNs t_ns) const { return static_cast<double>(t_ns - window_.t0_ns) / ns_per_px_; }

TimeNs TimeMapping::time_at(double x_px) const {
  return window_.t0_ns + static_cast<TimeNs>(std::llround(x_px * ns_per_px_));
}

TimeWindow zoom_window(TimeWindow window, TimeNs anchor_ns, double factor) {
  if (!(factor > 0)) return window;
  const double left = static_cast<double>(anchor_ns - window.t0_ns) / factor;
  const double right = static_cast<double>(window.t1_ns - anchor_ns) / factor;
  TimeWindow out{anchor_ns - static_cast<TimeNs>(std::llround(left)),
                 anchor_ns + static_cast<TimeNs>(std::llround(right))};
  if (out.span_ns() < kMinSpanNs) return window;
  return out;
}

TimeWindow pan_window(TimeWindow window, double dx_px, double width_px) {
  const TimeMapping map(window, width_px);
  const auto shift = static_cast<TimeNs>(std::llround(dx_px * map.ns_per_px()));
  return {window.t0_ns + shift, window.t1_ns + shift};
}

TimeWindow clamp_window(TimeWindow window, TimeWindow bounds) {
  if (window.span_ns() < kMinSpanNs) {
    const TimeNs centre = window.t0_ns + window.span_ns() / 2;
    window = {centre - kMinSpanNs / 2, centre - kMinSpanNs / 2 + kMinSpanNs};
  }
  if (window.span_ns() >= bounds.span_ns()) return bounds;
  if (window.t0_ns < bounds.t0_ns) return {bounds.t0_ns, bounds.t0_ns + window.span_ns()};
  if (window.t1_ns > bounds.t1_ns) return {bounds.t1_ns - window.span_ns(), bounds.t1_ns};
  return window;
}

TimeWindow fit_window(TimeNs start_ns, TimeNs end_ns, double margin_fraction) {
  const TimeNs span = std::max<TimeNs>(end_ns - start_ns, kMinSpanNs);
  const auto margin = static_cast<TimeNs>(std::llround(static_cast<double>(span) * margin_fraction));
  return {start_ns - margin, start_ns + span + margin};
}

TimeUnit choose_time_unit(TimeNs span_ns) {
  const TimeNs abs_ns = span_ns < 0 ? -span_ns : span_ns;
  // Two units or more: ticks then fall on 0.5-unit steps or coarser ("0.5 ms", not "500 us").
  if (abs_ns >= 2 * kNsPerS) return {1e9, "s"};
  if (abs_ns >= 2 * kNsPerMs) return {1e6, "ms"};
  if (abs_ns >= 2 * kNsPerUs) return {1e3, "us"};
  return {1.0, "ns"};
}

std::string format_axis_time(double t_ns, TimeUnit unit, double step_ns) {
  // Enough decimals that two neighbouring ticks differ in their text.
  const double step_units = step_ns / unit.ns_per_unit;
  int decimals = 0;
  while (decimals < 9 && step_units * std::pow(10.0, decimals) < 0.999) ++decimals;
  double value = t_ns / unit.ns_per_unit;
  if (std::fabs(value) < 0.5 * std::pow(10.0, -decimals)) value = 0;  // no "-0"
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f %s", decimals, value, unit.suffix);
  return buf;
}

}  // namespace gtv::ui
