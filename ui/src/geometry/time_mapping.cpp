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

int exact_decimals(double step_units) {
  // A tick step is a clean mantissa (1, 2, 2.5, 5) times a power of ten: the first power of ten that makes it a
  // whole number writes every multiple exactly.
  int decimals = 0;
  while (decimals < 9) {
    const double scaled = std::fabs(step_units) * std::pow(10.0, decimals);
    if (scaled >= 0.999 && std::fabs(scaled - std::round(scaled)) < 1e-6 * std::max(scaled, 1.0)) break;
    ++decimals;
  }
  return decimals;
}

namespace {

std::string format_value(double value, int decimals, const char* suffix) {
  if (std::fabs(value) < 0.5 * std::pow(10.0, -decimals)) value = 0;  // no "-0"
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f %s", decimals, value, suffix);
  return buf;
}

// Labels wider than this many digits before the point count from a base instead.
constexpr double kMaxAbsoluteLabelUnits = 1e4;

}  // namespace

std::string format_axis_time(double t_ns, TimeUnit unit, double step_ns) {
  return format_value(t_ns / unit.ns_per_unit, exact_decimals(step_ns / unit.ns_per_unit), unit.suffix);
}

AxisLabeling choose_axis_labeling(double lower_ns, double upper_ns, double step_ns) {
  AxisLabeling out;
  const double span_ns = std::max(upper_ns - lower_ns, 1.0);
  out.unit = choose_time_unit(static_cast<TimeNs>(span_ns));
  out.step_ns = step_ns;
  const double far_units = std::max(std::fabs(lower_ns), std::fabs(upper_ns)) / out.unit.ns_per_unit;
  if (far_units < kMaxAbsoluteLabelUnits) return out;
  // The base: the tick at or before the range's start, so the offsets are whole steps ("+250 us") and stay under
  // the span's few digits.
  out.has_base = true;
  out.base_ns = std::floor(lower_ns / step_ns) * step_ns;
  const TimeUnit base_unit = choose_time_unit(static_cast<TimeNs>(std::fabs(out.base_ns)));
  std::string text = format_value(out.base_ns / base_unit.ns_per_unit, exact_decimals(step_ns / base_unit.ns_per_unit),
                                  base_unit.suffix);
  // One number, not a column of ticks: trailing zeros say nothing ("449.500 ms" -> "449.5 ms").
  const std::size_t space = text.find(' ');
  std::string number = text.substr(0, space);
  if (number.find('.') != std::string::npos) {
    while (number.back() == '0') number.pop_back();
    if (number.back() == '.') number.pop_back();
  }
  out.base_text = number + text.substr(space);
  return out;
}

std::string axis_tick_label(double t_ns, const AxisLabeling& labeling, bool first_visible) {
  if (!labeling.has_base) return format_axis_time(t_ns, labeling.unit, labeling.step_ns);
  const double offset_ns = t_ns - labeling.base_ns;
  const std::string offset = format_axis_time(offset_ns, labeling.unit, labeling.step_ns);
  if (!first_visible) return "+" + offset;
  // The tick on the base is the base itself; a later first tick says both.
  return std::fabs(offset_ns) < 1e-3 * labeling.step_ns ? labeling.base_text : labeling.base_text + " + " + offset;
}

std::vector<std::pair<double, double>> merge_pixel_runs(std::vector<std::pair<double, double>> runs) {
  std::sort(runs.begin(), runs.end());
  std::vector<std::pair<double, double>> merged;
  for (const auto& [x0, x1] : runs) {
    if (!merged.empty() && x0 <= merged.back().second + 1.0)
      merged.back().second = std::max(merged.back().second, x1);
    else
      merged.emplace_back(x0, x1);
  }
  return merged;
}

}  // namespace gtv::ui
