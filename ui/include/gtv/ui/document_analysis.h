#pragma once
// The analysis a document keeps beside its trace, and what the views draw from it.
#include <string>
#include <vector>

#include "gtv/model/trace.h"
#include "gtv/ui/overlay_data.h"

#if GTV_ANALYSIS_AVAILABLE
#include "gtv/analysis/concurrency.h"
#include "gtv/analysis/summary.h"
#include "gtv/analysis/timing_truth.h"
#include "gtv/analysis/warmup.h"
#endif

namespace gtv::ui {

// Per kernel name: how often and how long it ran (the kernel table).
struct KernelRow {
  std::string name;
  std::size_t count = 0;
  TimeNs total_ns = 0;
  TimeNs min_ns = 0;
  TimeNs max_ns = 0;
  [[nodiscard]] TimeNs mean_ns() const { return count ? total_ns / static_cast<TimeNs>(count) : 0; }
};

struct DocumentAnalysis {
  std::vector<KernelRow> kernels;  // by total time, largest first
  TimeNs kernel_total_ns = 0;
  std::vector<std::string> verdict;  // plain-language lines for the summary panel
  std::string summary_text;          // the full text summary
  OverlayData overlays;
#if GTV_ANALYSIS_AVAILABLE
  analysis::Concurrency concurrency;
  analysis::WarmUp warmup;
  analysis::TimingTruth timing;
#endif
};

[[nodiscard]] std::vector<KernelRow> kernel_rows(const Trace& trace);
[[nodiscard]] DocumentAnalysis analyse_document(const Trace& trace);

}  // namespace gtv::ui
