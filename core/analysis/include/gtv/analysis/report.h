#pragma once
// Every analysis of one trace in one value, and its text / Markdown / JSON forms. The text puts the verdict
// first, in words a teacher can read aloud, then the numbers.
#include <string>

#include "gtv/analysis/busy.h"
#include "gtv/analysis/concurrency.h"
#include "gtv/analysis/format.h"
#include "gtv/analysis/host_blocking.h"
#include "gtv/analysis/kernel_stats.h"
#include "gtv/analysis/launch.h"
#include "gtv/analysis/summary.h"
#include "gtv/analysis/timing_truth.h"
#include "gtv/analysis/warmup.h"

namespace gtv::analysis {

struct Report {
  TraceSummary summary;
  BusyAnalysis busy;
  Concurrency concurrency;
  WarmUp warmup;
  HostBlocking blocking;
  LaunchAnalysis launches;
  TimingTruth timing;
  KernelStats kernels;
  std::vector<std::string> verdict;  // the headline sentences, most important first
};

[[nodiscard]] Report analyze(const Trace& trace);

// Rows shown per table in text and Markdown (JSON lists everything up to kMaxJsonRows).
inline constexpr std::size_t kMaxTableRows = 15;
inline constexpr std::size_t kMaxJsonRows = 1000;

[[nodiscard]] std::string format_report(const Report& report, Format format);

}  // namespace gtv::analysis
