#include <algorithm>

#include "report/report_document.h"

namespace gtv::analysis::detail {
namespace {

// Where the step's GPU work ended against the step's own end: work launched late in a step runs after it.
std::string gpu_end_words(const StepWindow& s) {
  if (s.launches == 0) return "-";
  if (s.gpu_end_ns <= s.end_ns) return "inside the step";
  return format_duration(s.gpu_end_ns - s.end_ns) + " after the step";
}

Table steps_table(const Report& r, Listing listing) {
  Table t{{"thread", "step", "starts at", "window", "GPU work launched in it", "launches", "that work ends"},
          {false, false, true, true, true, true, false},
          {},
          {}};
  std::size_t total = 0;
  for (const ProcessSteps& p : r.steps.processes) total += p.steps.size();
  const std::size_t shown = listed_count(total, listing, kMaxTableRows);
  std::size_t n = 0;
  for (const ProcessSteps& p : r.steps.processes)
    for (const StepWindow& s : p.steps) {
      if (n++ >= shown) break;
      t.rows.push_back({std::to_string(p.tid), s.name, at(r, s.start_ns), format_duration(s.length_ns()),
                        format_duration(s.gpu_ns), std::to_string(s.launches), gpu_end_words(s)});
    }
  t.note = more_rows_note(total, shown, "steps");
  return t;
}

Table ranges_table(const Report& r, Listing listing) {
  Table t{{"thread", "record_function range", "count", "host time", "GPU work launched in them", "launches"},
          {false, false, true, true, true, true},
          {},
          {}};
  const std::size_t shown = listed_count(r.steps.ranges.size(), listing, kMaxTableRows);
  for (std::size_t i = 0; i < shown; ++i) {
    const AnnotatedRanges& a = r.steps.ranges[i];
    t.rows.push_back({std::to_string(a.tid), a.name, std::to_string(a.count), format_duration(a.host_ns),
                      format_duration(a.gpu_ns), std::to_string(a.launches)});
  }
  t.note = more_rows_note(r.steps.ranges.size(), shown, "ranges");
  return t;
}

}  // namespace

Section steps_section(const Report& r, Listing listing) {
  if (r.steps.processes.empty() && r.steps.ranges.empty()) return {};
  Section sec{"Profiler steps and record_function ranges", r.steps.lines, {}};
  if (!r.steps.processes.empty()) sec.tables.push_back(steps_table(r, listing));
  if (!r.steps.ranges.empty()) sec.tables.push_back(ranges_table(r, listing));
  return sec;
}

void steps_json(JsonWriter& w, const Report& r) {
  const ProfilerSteps& s = r.steps;
  w.key("profiler_steps").begin_object().key("processes").begin_array();
  for (const ProcessSteps& p : s.processes) {
    w.begin_object().field("pid", p.pid).field("tid", p.tid).key("steps").begin_array();
    for (std::size_t i = 0; i < p.steps.size() && i < kMaxJsonRows; ++i) {
      const StepWindow& st = p.steps[i];
      w.begin_object()
          .field("name", st.name)
          .field("start_ns", st.start_ns)
          .field("end_ns", st.end_ns)
          .field("gpu_ns", st.gpu_ns)
          .field("gpu_end_ns", st.gpu_end_ns)
          .field("launches", U(st.launches))
          .end_object();
    }
    w.end_array().end_object();
  }
  w.end_array().field("range_count", U(s.range_count)).key("ranges").begin_array();
  for (std::size_t i = 0; i < s.ranges.size() && i < kMaxJsonRows; ++i) {
    const AnnotatedRanges& a = s.ranges[i];
    w.begin_object()
        .field("name", a.name)
        .field("pid", a.pid)
        .field("tid", a.tid)
        .field("count", U(a.count))
        .field("host_ns", a.host_ns)
        .field("gpu_ns", a.gpu_ns)
        .field("launches", U(a.launches))
        .end_object();
  }
  w.end_array();
  json_strings(w, "lines", s.lines);
  w.end_object();
}

}  // namespace gtv::analysis::detail
