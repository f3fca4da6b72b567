#include <algorithm>
#include <cmath>

#include "report_document.h"

namespace gtv::analysis::detail {

Section launch_section(const Report& r) {
  const LaunchAnalysis& a = r.launches;
  Section sec{"Launch latency and queues", a.findings, {}};
  if (!a.devices.empty()) {
    Table t{{"GPU", "launches", "min", "p50", "p90", "max", "mean"}, {false, true, true, true, true, true, true}, {}, {}};
    for (const DeviceLatency& d : a.devices)
      t.rows.push_back({std::to_string(d.device), std::to_string(d.stats.count), format_duration(d.stats.min_ns),
                        format_duration(d.stats.p50_ns), format_duration(d.stats.p90_ns),
                        format_duration(d.stats.max_ns), format_duration(d.stats.mean_ns)});
    sec.tables.push_back(std::move(t));
  }
  if (!a.streams.empty()) {
    Table t{{"GPU", "stream", "deepest queue", "at"}, {false, false, true, true}, {}, {}};
    for (const StreamQueue& q : a.streams)
      t.rows.push_back({std::to_string(q.device), std::to_string(q.stream), std::to_string(q.max_depth),
                        at(r, q.max_depth_at_ns)});
    sec.tables.push_back(std::move(t));
  }
  return sec;
}

Section timing_section(const Report& r) {
  const TimingTruth& tt = r.timing;
  Section sec{"Timing measurements against the truth", tt.findings, {}};
  if (tt.measurements.empty()) return sec;
  Table t{{"measurement", "method", "reported", "truth", "error", "error %"}, {false, false, true, true, true, true},
          {}, {}};
  for (std::size_t i = 0; i < tt.measurements.size() && i < kMaxTableRows; ++i) {
    const MeasurementTruth& m = tt.measurements[i];
    t.rows.push_back({m.name, std::string(to_string(m.method)), format_duration(m.reported_ns),
                      format_duration(m.truth_ns), format_duration(m.error_ns), percent(m.relative_error, 1)});
  }
  t.note = more_rows_note(tt.measurements.size(), kMaxTableRows, "measurements");
  sec.tables.push_back(std::move(t));
  return sec;
}

Section kernel_section(const Report& r) {
  const KernelStats& k = r.kernels;
  Section sec{"Kernels", {}, {}};
  if (k.kernels.empty()) {
    sec.lines.emplace_back("No kernels in this trace.");
    return sec;
  }
  sec.lines.push_back(std::to_string(k.kernel_count) + " kernel run(s) of " + std::to_string(k.kernels.size()) +
                      " distinct kernel(s), " + format_duration(k.total_kernel_ns) + " of kernel time in all.");
  Table t{{"kernel", "count", "total", "mean", "min", "max", "share"}, {false, true, true, true, true, true, true},
          {}, {}};
  for (std::size_t i = 0; i < k.kernels.size() && i < kMaxTableRows; ++i) {
    const KernelStat& s = k.kernels[i];
    t.rows.push_back({s.name, std::to_string(s.count), format_duration(s.total_ns), format_duration(s.mean_ns),
                      format_duration(s.min_ns), format_duration(s.max_ns), percent(s.share, 1)});
  }
  t.note = more_rows_note(k.kernels.size(), kMaxTableRows, "kernels");
  sec.tables.push_back(std::move(t));
  return sec;
}

Document report_document(const Report& r) {
  Document doc;
  doc.title = "GPU timeline analysis" + (r.summary.scenario.empty() ? std::string() : ": " + r.summary.scenario);
  doc.verdict = r.verdict;
  doc.sections = {overview_section(r),    busy_section(r),   concurrency_section(r), blocking_section(r),
                  warmup_section(r),      launch_section(r), timing_section(r),      kernel_section(r)};
  return doc;
}

}  // namespace gtv::analysis::detail
