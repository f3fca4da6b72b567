#pragma once
// The analysis a document keeps beside its trace: the one analysis::Report (exactly what `gtv-cli analyze`
// prints), its text, and what the timeline draws from it. Computed once, in the loader's worker thread; the views
// only show it.
#include <string>
#include <vector>

#include "gtv/analysis/report.h"
#include "gtv/model/trace.h"
#include "gtv/ui/overlay_data.h"
#include "gtv/ui/palette.h"
#include "gtv/ui/work_owner.h"

namespace gtv::ui {

struct DocumentAnalysis {
  analysis::Report report;
  std::string report_text;         // format_report(report, Format::Text)
  std::vector<Rgb> kernel_colors;  // per report.kernels.kernels row: the colour its events have on the timeline
  std::shared_ptr<const WorkOwners> owners;  // the model or range that launched each GPU event (overlays share it)
  OverlayData overlays;
};

// What the timeline draws from a report: warm-up spans, idle intervals, brackets, the busy strip, and the trace's
// iteration ranges.
[[nodiscard]] OverlayData overlays_of(const Trace& trace, const analysis::Report& report);
[[nodiscard]] DocumentAnalysis analyse_document(const Trace& trace);

}  // namespace gtv::ui
