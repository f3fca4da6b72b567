#include "trace_checks.h"

#include <algorithm>

namespace gtv::exp::test {

int count_ranges(const Trace& trace, RangeKind kind) {
  return static_cast<int>(
      std::count_if(trace.ranges().begin(), trace.ranges().end(), [&](const Range& r) { return r.kind == kind; }));
}

int count_ranges_named(const Trace& trace, RangeKind kind, std::string_view name) {
  return static_cast<int>(std::count_if(trace.ranges().begin(), trace.ranges().end(),
                                        [&](const Range& r) { return r.kind == kind && r.name == name; }));
}

int count_measurements(const Trace& trace, MeasurementMethod method) {
  return static_cast<int>(std::count_if(trace.measurements().begin(), trace.measurements().end(),
                                        [&](const Measurement& m) { return m.method == method; }));
}

int count_events(const Trace& trace, EventKind kind, std::string_view name) {
  int count = 0;
  for (const auto& lane : trace.lanes())
    for (const auto& e : lane.events)
      if (e.kind == kind && (name.empty() || trace.name(e) == name)) ++count;
  return count;
}

bool has_note_containing(const Trace& trace, std::string_view text) {
  const auto& notes = trace.metadata().notes;
  return std::any_of(notes.begin(), notes.end(), [&](const std::string& n) { return n.find(text) != n.npos; });
}

bool inside_some(const Trace& trace, const Range& range, RangeKind outer_kind) {
  return std::any_of(trace.ranges().begin(), trace.ranges().end(), [&](const Range& outer) {
    return outer.kind == outer_kind && outer.start_ns <= range.start_ns && range.end_ns <= outer.end_ns;
  });
}

}  // namespace gtv::exp::test
