#pragma once
// The analysis a document keeps beside its trace: the analysed trace (its one analysis::Report, exactly what
// `gtv-cli analyze` prints, and the happens-before graph the what-ifs share), the report's text, and what the
// timeline draws from it. Computed once, in the loader's worker thread; the views only show it.
#include <memory>
#include <string>
#include <vector>

#include "gtv/analysis/analysed_trace.h"
#include "gtv/analysis/report.h"
#include "gtv/model/trace.h"
#include "gtv/ui/overlay_data.h"
#include "gtv/ui/palette.h"
#include "gtv/ui/work_owner.h"

namespace gtv::ui {

struct DocumentAnalysis {
  std::shared_ptr<const analysis::AnalysedTrace> analysed;
  // The analysed trace's report; an empty report when nothing was analysed (a default DocumentAnalysis).
  [[nodiscard]] const analysis::Report& report() const;
  std::string report_text;         // format_report(report, Format::Text)
  std::vector<Rgb> kernel_colors;  // per report.kernels.kernels row: the colour its events have on the timeline
  std::shared_ptr<const WorkOwners> owners;  // the model or range that launched each GPU event (overlays share it)
  OverlayData overlays;
};

// What the timeline draws from a report: warm-up spans, idle intervals, brackets, the busy strip, and the trace's
// iteration ranges.
[[nodiscard]] OverlayData overlays_of(const Trace& trace, const analysis::Report& report);
[[nodiscard]] DocumentAnalysis analyse_document(std::shared_ptr<const analysis::AnalysedTrace> analysed);
[[nodiscard]] DocumentAnalysis analyse_document(std::shared_ptr<const Trace> trace);
// A trace the caller keeps alive longer than the result (tests, benchmarks): analysed without being owned.
[[nodiscard]] DocumentAnalysis analyse_document(const Trace& trace);

}  // namespace gtv::ui
