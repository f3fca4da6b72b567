#include <algorithm>

#include "report/report_document.h"

namespace gtv::analysis::detail {
namespace {

// The program's time, and the file's when the profiler's markers reach beyond it: the whole-trace numbers are on
// the first.
std::string time_span_words(const TraceSummary& s) {
  if (!s.markers_outside_activity()) return format_duration(s.duration_ns());
  return format_duration(s.activity_ns()) + " of recorded activity, " +
         format_duration(s.activity_start_ns - s.start_ns) + " to " + format_duration(s.activity_end_ns - s.start_ns) +
         " (the whole trace in this report; the file runs " + format_duration(s.duration_ns()) +
         " with the profiler's own markers, such as Kineto's Record Window End, which are not program time)";
}

// gtv's ranges, then the profiler's: "9 ranges (3 profiler steps, 6 record_function ranges)".
std::string ranges_words(const Report& r) {
  const std::size_t steps = r.steps.step_count(), annotations = r.steps.range_count;
  const std::size_t total = r.summary.range_count + steps + annotations;
  if (steps == 0 && annotations == 0) return std::to_string(total) + " ranges";
  std::vector<std::string> parts;
  if (r.summary.range_count > 0) parts.push_back(std::to_string(r.summary.range_count) + " gtv ranges");
  if (steps > 0) parts.push_back(std::to_string(steps) + " profiler step" + (steps == 1 ? "" : "s"));
  if (annotations > 0)
    parts.push_back(std::to_string(annotations) + " record_function range" + (annotations == 1 ? "" : "s"));
  std::string out = std::to_string(total) + " ranges (";
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i == 0 ? "" : ", ") + parts[i];
  return out + ")";
}

}  // namespace

Section overview_section(const Report& r, Listing) {
  const TraceSummary& s = r.summary;
  Section sec{"Overview", {}, {}};
  sec.lines.push_back("Source: " + (s.source_tool.empty() ? std::string("unknown") : s.source_tool));
  if (!s.scenario.empty()) sec.lines.push_back("Scenario: " + s.scenario);
  if (s.distributed.rank >= 0 && s.distributed.world_size == 1)
    sec.lines.push_back("Rank: this trace is " + rank_text(s.distributed) +
                        ", the only rank of its distributed run: there are no other ranks' files.");
  else if (s.distributed.rank >= 0)
    sec.lines.push_back(
        "Rank: this trace is " + rank_text(s.distributed) +
        " in a distributed run; the other ranks' work is in their own files (open them together to see one run).");
  sec.lines.push_back("Time span: " + time_span_words(s));
  sec.lines.push_back("Events: " + std::to_string(s.event_count) + " on " + std::to_string(s.processes.size()) +
                      " process(es) and " + std::to_string(s.gpus.size()) + " GPU(s); " + std::to_string(s.flow_count) +
                      " launch-to-GPU flows, " + ranges_words(r) + ", " + std::to_string(s.measurement_count) +
                      " measurements");
  for (const std::string& note : s.notes) sec.lines.push_back("Note: " + note);
  if (s.dropped_records > 0)
    sec.lines.push_back("Warning: " + std::to_string(s.dropped_records) +
                        " trace records were dropped while recording.");
  return sec;
}

}  // namespace gtv::analysis::detail
