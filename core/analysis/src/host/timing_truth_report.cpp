#include <algorithm>

#include "report/report_document.h"

namespace gtv::analysis::detail {

Section timing_section(const Report& r, Listing listing) {
  const TimingTruth& tt = r.timing;
  // One verdict per measurement, in the order they were recorded.
  Section sec{"Timing measurements against the truth",
              listed_lines(tt.findings, 0, listing, "measurement", "measurements"),
              {}};
  if (tt.measurements.empty()) return sec;
  Table t{{"measurement", "method", "reported", "truth", "error", "error %"},
          {false, false, true, true, true, true},
          {},
          {}};
  const std::size_t shown = listed_count(tt.measurements.size(), listing, kMaxTableRows);
  for (std::size_t i = 0; i < shown; ++i) {
    const MeasurementTruth& m = tt.measurements[i];
    t.rows.push_back({m.name, std::string(to_string(m.method)), format_duration(m.reported_ns),
                      format_duration(m.truth_ns), format_duration(m.error_ns), percent(m.relative_error, 1)});
  }
  t.note = more_rows_note(tt.measurements.size(), shown, "measurements");
  sec.tables.push_back(std::move(t));
  return sec;
}

void timing_json(JsonWriter& w, const Report& r) {
  const TimingTruth& t = r.timing;
  w.key("timing").begin_object().key("measurements").begin_array();
  for (const MeasurementTruth& m : t.measurements)
    w.begin_object()
        .field("name", m.name)
        .field("method", to_string(m.method))
        .field("reported_ns", m.reported_ns)
        .field("host_start_ns", m.host_start_ns)
        .field("host_end_ns", m.host_end_ns)
        .field("by_flows", m.by_flows)
        .field("gpu_activity_count", U(m.gpu_activity_count))
        .field("gpu_busy_ns", m.gpu_busy_ns)
        .field("truth_ns", m.truth_ns)
        .field("error_ns", m.error_ns)
        .field("relative_error", m.relative_error, 4)
        .field("verdict", m.verdict)
        .end_object();
  w.end_array().key("methods").begin_array();
  for (const MethodError& e : t.methods)
    w.begin_object()
        .field("method", to_string(e.method))
        .field("count", U(e.count))
        .field("mean_relative_error", e.mean_relative_error, 4)
        .field("mean_abs_relative_error", e.mean_abs_relative_error, 4)
        .end_object();
  w.end_array().end_object();
}

}  // namespace gtv::analysis::detail
