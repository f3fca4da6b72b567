#include "gtv/ui/document_analysis.h"

#include <algorithm>
#include <unordered_map>

#include "gtv/ui/event_text.h"

namespace gtv::ui {

std::vector<KernelRow> kernel_rows(const Trace& trace) {
  std::unordered_map<StringId, KernelRow> by_name;
  for (const Lane& lane : trace.lanes()) {
    if (!lane.is_gpu()) continue;
    for (const Event& e : lane.events) {
      if (e.kind != EventKind::Kernel) continue;
      KernelRow& row = by_name[e.name];
      if (row.count == 0) {
        row.name = std::string(trace.name(e));
        row.min_ns = row.max_ns = e.duration_ns;
      }
      ++row.count;
      row.total_ns += e.duration_ns;
      row.min_ns = std::min(row.min_ns, e.duration_ns);
      row.max_ns = std::max(row.max_ns, e.duration_ns);
    }
  }
  std::vector<KernelRow> rows;
  rows.reserve(by_name.size());
  for (auto& [id, row] : by_name) rows.push_back(std::move(row));
  std::sort(rows.begin(), rows.end(), [](const KernelRow& a, const KernelRow& b) {
    return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.name < b.name;
  });
  return rows;
}

namespace {

void add_iterations(const Trace& trace, OverlayData& o) {
  for (const Range& r : trace.ranges())
    if (r.kind == RangeKind::Iteration) o.iterations.push_back({r.start_ns, r.name});
}

#if GTV_ANALYSIS_AVAILABLE
void add_analysis(const Trace& trace, DocumentAnalysis& d) {
  d.concurrency = analysis::analyze_concurrency(trace);
  d.warmup = analysis::analyze_warmup(trace);
  d.timing = analysis::analyze_timing_truth(trace);
  d.summary_text = analysis::format_summary_text(analysis::summarize(trace));
  if (!d.concurrency.verdict.empty()) d.verdict.push_back(d.concurrency.verdict);
  for (const auto& f : d.warmup.findings) d.verdict.push_back(f);
  for (const auto& f : d.timing.findings) d.verdict.push_back(f);
  OverlayData& o = d.overlays;
  for (const auto& s : d.warmup.segments)
    o.warmup.push_back({s.start_ns, s.end_ns, std::string(analysis::to_string(s.cause))});
  for (const auto& step : d.concurrency.steps) {
    o.busy_gpus.push_back({step.start_ns, step.busy_gpus});
    if (&step == &d.concurrency.steps.back()) o.busy_gpus.push_back({step.end_ns, 0});
  }
  o.gpu_count = static_cast<int>(d.concurrency.gpu_count);
  for (const auto& m : d.timing.measurements) {
    const int method = static_cast<int>(m.method);
    o.brackets.push_back({m.host_start_ns, m.host_end_ns,
                          std::string(to_string(m.method)) + " reported " + format_duration(m.reported_ns), method});
    if (m.truth_ns > m.host_end_ns - m.host_start_ns)
      o.brackets.push_back({m.host_start_ns, m.host_start_ns + m.truth_ns, "truth " + format_duration(m.truth_ns), 3});
  }
}
#else
void add_analysis(const Trace& trace, DocumentAnalysis& d) {
  for (const Measurement& m : trace.measurements())
    d.overlays.brackets.push_back({m.host_start_ns, m.host_end_ns,
                                   std::string(to_string(m.method)) + " reported " + format_duration(m.reported_ns),
                                   static_cast<int>(m.method)});
}
#endif

}  // namespace

DocumentAnalysis analyse_document(const Trace& trace) {
  DocumentAnalysis d;
  d.kernels = kernel_rows(trace);
  for (const KernelRow& k : d.kernels) d.kernel_total_ns += k.total_ns;
  add_iterations(trace, d.overlays);
  add_analysis(trace, d);
  return d;
}

}  // namespace gtv::ui
