#include "gtv/ui/first_view.h"

#include <algorithm>

#include "gtv/analysis/compare.h"

namespace gtv::ui {

TimeWindow first_view_window(const Trace& trace, const analysis::Report& report) {
  if (report.region.from_measurements && report.region.length_ns() > 0)
    return fit_window(report.region.start_ns, report.region.end_ns, kFirstViewPadding);
  // A trace without measurements: skip the start-up (module loading, allocation, warm-up) to the steady work.
  if (const auto& steady = report.steady; steady && steady->length_ns() > 0)
    return fit_window(steady->start_ns, steady->end_ns, kFirstViewPadding);
  return fit_window(trace.start_ns(), trace.end_ns());
}

std::string verdict_line(const analysis::Report& report) {
  std::string line;
  const std::size_t n = std::min<std::size_t>(report.verdict.size(), 2);
  for (std::size_t i = 0; i < n; ++i) {
    if (!line.empty()) line += ' ';
    line += report.verdict[i];
  }
  return line;
}

}  // namespace gtv::ui
