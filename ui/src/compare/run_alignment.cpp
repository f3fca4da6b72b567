#include "gtv/ui/run_alignment.h"

#include <algorithm>

#include "gtv/analysis/compare.h"

namespace gtv::ui {

std::optional<TimeNs> steady_state_anchor_ns(const Trace& trace) {
  if (const auto steady = analysis::steady_part(trace)) return steady->start_ns;
  return std::nullopt;
}

TimeNs alignment_anchor_ns(const Trace& trace) { return steady_state_anchor_ns(trace).value_or(trace.start_ns()); }

TimeNs alignment_anchor_ns(const Trace& trace, const analysis::Report& report) {
  return report.steady ? report.steady->start_ns : trace.start_ns();
}

TimeNs steady_span_ns(const Trace& trace) {
  const auto steady = analysis::steady_part(trace);
  return steady ? steady->length_ns() : 0;
}

std::vector<TimeNs> alignment_offsets_ns(const std::vector<TimeNs>& anchors_ns) {
  std::vector<TimeNs> offsets;
  offsets.reserve(anchors_ns.size());
  for (TimeNs a : anchors_ns) offsets.push_back(a - anchors_ns.front());
  return offsets;
}

}  // namespace gtv::ui
