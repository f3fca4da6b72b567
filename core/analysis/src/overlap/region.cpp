#include "gtv/analysis/region.h"

#include <algorithm>
#include <set>
#include <string_view>

namespace gtv::analysis {
namespace {

// "worker 1 (cuda:1): timed loop" -> "timed loop": the part after the last ": " names the work.
std::string_view base_name(std::string_view name) {
  const std::size_t colon = name.rfind(": ");
  return colon == std::string_view::npos ? name : name.substr(colon + 2);
}

// "the timed loop"; the same measured work in several processes: "the timed loops of 2 processes".
std::string region_name(const TimingTruth& timing, const Trace& trace) {
  const std::string_view base = base_name(timing.measurements.front().name);
  std::set<std::int64_t> pids;
  for (const Measurement& m : trace.measurements()) pids.insert(m.pid);
  for (const MeasurementTruth& m : timing.measurements)
    if (base_name(m.name) != base) return "the timed measurements";
  if (pids.size() > 1) return "the " + std::string(base) + "s of " + std::to_string(pids.size()) + " processes";
  return "the " + std::string(base);
}

}  // namespace

Region region_of_interest(const Trace& trace, const TimingTruth& timing) {
  Region r;
  if (timing.measurements.empty()) {
    r.start_ns = trace.activity_start_ns();
    r.end_ns = trace.activity_end_ns();
    r.name = r.measured_name = "the whole trace";
    if (r.end_ns > r.start_ns) r.measured.push_back({r.start_ns, r.end_ns});
    return r;
  }
  r.from_measurements = true;
  r.start_ns = timing.measurements.front().host_start_ns;
  r.end_ns = r.start_ns;
  std::vector<Interval> spans;
  spans.reserve(timing.measurements.size());
  for (const MeasurementTruth& m : timing.measurements) {
    const TimeNs end_ns = std::max(m.host_end_ns, m.host_start_ns + m.truth_ns);
    r.start_ns = std::min(r.start_ns, m.host_start_ns);
    r.end_ns = std::max(r.end_ns, end_ns);
    spans.push_back({m.host_start_ns, end_ns});
  }
  r.measured = merged(std::move(spans));
  r.measured_name = region_name(timing, trace);
  r.name = r.has_gaps() ? "the span of " + r.measured_name : r.measured_name;
  return r;
}

}  // namespace gtv::analysis
