#include "gtv/analysis/tracing_cost.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <vector>

#include "gtv/analysis/intervals.h"
#include "report/record_names.h"

namespace gtv::analysis {
namespace {

using detail::lower_case;

bool is_tracer_event(const Trace& trace, const Event& e) {
  return e.kind == EventKind::Overhead && is_tracer_record(trace.name(e));
}

// One host thread's tracer overhead, merged, and whether the thread did anything else.
struct LaneOverhead {
  std::vector<Interval> merged;
  std::size_t records = 0;
  std::size_t flushes = 0;
  bool only_tracer = true;
};

LaneOverhead lane_overhead(const Trace& trace, const Lane& lane) {
  LaneOverhead out;
  std::vector<Interval> spans;
  for (const Event& e : lane.events) {
    if (!is_tracer_event(trace, e)) {
      out.only_tracer = false;
      continue;
    }
    ++out.records;
    out.flushes += lower_case(trace.name(e)).find("buffer flush") != std::string::npos ? 1 : 0;
    spans.push_back({e.start_ns, e.end_ns()});
  }
  out.merged = merged(std::move(spans));
  return out;
}

// gtv recordings report their dropped records (in the metadata and a note); other traces say nothing of them.
bool reports_dropped(const TraceMetadata& m) {
  if (m.dropped_records > 0 || m.source_tool.rfind("gtv", 0) == 0) return true;
  return std::any_of(m.notes.begin(), m.notes.end(),
                     [](const std::string& n) { return n.find("dropped") != std::string::npos; });
}

std::string count_of(std::size_t n, const std::string& one, const std::string& many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string where_it_went(const TracingCost& c, const Region& region) {
  std::vector<std::string> parts;
  if (c.on_traced_threads_ns > 0 || (c.tracer_threads == 0 && c.on_unnamed_threads_ns == 0)) {
    std::string traced = format_duration(c.on_traced_threads_ns) + " on the traced threads";
    if (region.from_measurements)
      traced += " (" + (c.inside_region_ns == 0 ? std::string("none") : format_duration(c.inside_region_ns)) +
                " inside " + region.name + ")";
    parts.push_back(std::move(traced));
  }
  if (c.tracer_threads > 0)
    parts.push_back(format_duration(c.on_tracer_threads_ns) + " on its own " +
                    (c.tracer_threads == 1 ? std::string("thread") : count_of(c.tracer_threads, "", "threads")));
  if (c.on_unnamed_threads_ns > 0)
    parts.push_back(format_duration(c.on_unnamed_threads_ns) + " on a thread the trace does not name");
  std::string out = parts[0];
  for (std::size_t i = 1; i < parts.size(); ++i) out += (i + 1 == parts.size() ? " and " : ", ") + parts[i];
  return out;
}

// What the recorder of gtv-cli record measured on itself, summed over the processes it recorded; empty when the
// trace does not say.
std::string recorder_sentence(const std::vector<RecorderCost>& costs) {
  if (costs.empty()) return {};
  RecorderCost sum;
  for (const RecorderCost& c : costs) {
    sum.startup_ns += c.startup_ns;
    sum.buffer_handling_ns += c.buffer_handling_ns;
    sum.exit_ns += c.exit_ns;
    sum.traced_ns += c.traced_ns;
  }
  std::string share;
  if (sum.traced_ns > 0) {
    char text[32];
    std::snprintf(text, sizeof text, " (%.2f%% of it)",
                  100.0 * static_cast<double>(sum.buffer_handling_ns) / static_cast<double>(sum.traced_ns));
    share = text;
  }
  return " The recorder measured itself (gtv-cli record, " + count_of(costs.size(), "process", "processes") +
         "): start-up " + format_duration(sum.startup_ns) + " inside the first CUDA call, " +
         format_duration(sum.buffer_handling_ns) + " handling CUPTI's buffers on CUPTI's thread during " +
         format_duration(sum.traced_ns) + " traced" + share + ", " + format_duration(sum.exit_ns) +
         " flushing at exit.";
}

std::string line_for(const TracingCost& c, const Region& region, const TraceMetadata& metadata) {
  const std::string dropped =
      c.dropped_known ? count_of(static_cast<std::size_t>(c.dropped_records), "record dropped", "records dropped")
                      : "dropped records not recorded";
  const std::string recorder = recorder_sentence(metadata.recorder_costs);
  if (!c.known)
    return (recorder.empty() ? "Tracing cost: not recorded in this trace"
                             : "Tracing cost: no CUPTI overhead records in this trace") +
           (c.dropped_known ? " (" + dropped + ")." : std::string(".")) + recorder;
  std::string line = "Tracing cost: CUPTI's own overhead records total " + where_it_went(c, region);
  if (c.buffer_flushes > 0) line += "; " + count_of(c.buffer_flushes, "buffer flush", "buffer flushes");
  return line + "; " + dropped + "." + recorder;
}

}  // namespace

bool is_tracer_record(std::string_view name) {
  static constexpr std::array<std::string_view, 4> kKinetoNames{"activity buffer request", "buffer flush",
                                                                "instrumentation", "resource"};
  const std::string l = lower_case(name);
  return l.rfind("cupti", 0) == 0 || std::find(kKinetoNames.begin(), kKinetoNames.end(), l) != kKinetoNames.end();
}

TracingCost analyze_tracing_cost(const Trace& trace, const Region& region) {
  TracingCost c;
  for (const Lane& lane : trace.lanes()) {
    if (lane.is_gpu()) continue;
    const LaneOverhead o = lane_overhead(trace, lane);
    if (o.records == 0) continue;
    c.overhead_records += o.records;
    c.buffer_flushes += o.flushes;
    if (lane.key.pid < 0) {  // not a host thread: Kineto's home for records without one
      c.on_unnamed_threads_ns += total_length_ns(o.merged);
      continue;
    }
    if (o.only_tracer) {
      ++c.tracer_threads;
      c.on_tracer_threads_ns += total_length_ns(o.merged);
      continue;
    }
    c.on_traced_threads_ns += total_length_ns(o.merged);
    if (region.from_measurements) c.inside_region_ns += length_within_ns(o.merged, region.start_ns, region.end_ns);
  }
  c.known = c.overhead_records > 0;
  c.dropped_known = reports_dropped(trace.metadata());
  c.dropped_records = trace.metadata().dropped_records;
  c.line = line_for(c, region, trace.metadata());
  return c;
}

}  // namespace gtv::analysis
