#pragma once
// Every analysis of one trace in one value, and its text / Markdown / JSON forms. The text puts the verdict
// first, in words a teacher can read aloud, then the numbers.
#include <cstdint>
#include <optional>
#include <string>

#include "gtv/analysis/busy.h"
#include "gtv/analysis/communication.h"
#include "gtv/analysis/compare.h"
#include "gtv/analysis/concurrency.h"
#include "gtv/analysis/critical_path.h"
#include "gtv/analysis/format.h"
#include "gtv/analysis/host_blocking.h"
#include "gtv/analysis/idle_causes.h"
#include "gtv/analysis/kernel_stats.h"
#include "gtv/analysis/launch.h"
#include "gtv/analysis/region.h"
#include "gtv/analysis/steps.h"
#include "gtv/analysis/stragglers.h"
#include "gtv/analysis/summary.h"
#include "gtv/analysis/timing_truth.h"
#include "gtv/analysis/tracing_cost.h"
#include "gtv/analysis/warmup.h"

namespace gtv::analysis {

// The one analysis product: computed once per trace (off the UI thread in the GUI) and shown by every front end.
struct Report {
  TraceSummary summary;
  BusyAnalysis busy;
  Concurrency concurrency;         // over the whole trace
  Concurrency region_concurrency;  // inside the region of interest (equal to the above when that is the whole trace)
  TimingTruth timing;
  Region region;
  ProfilerSteps steps;  // the profiler steps and record_function ranges, each on its own window
  WarmUp warmup;
  CriticalPathAnalysis critical;  // what bounds the region, and the causes on it checked by removal
  HostBlocking blocking;
  IdleCauses idle;
  LaunchAnalysis launches;
  KernelStats kernels;
  Communication communication;
  Stragglers stragglers;  // merged runs
  TracingCost tracing;
  std::optional<SteadyPart> steady;  // where runs are aligned and compared (compare.h)
  SingleGpuStreams single_gpu;       // one GPU: its streams busy step by step (stream_overlap.h); else empty
  std::vector<std::string> verdict;  // the headline sentences, most important first
};

// Threads: the happens-before graph and the parts that need only the trace are computed on two threads beside the
// caller's; Serial: all in the calling thread. The report is the same either way.
enum class Parallelism : std::uint8_t { Threads, Serial };
// The report of a trace with a graph built for this call and dropped. Front ends hold an AnalysedTrace
// (analysed_trace.h), whose report() is this and whose graph the what-ifs share.
[[nodiscard]] Report analyze(const Trace& trace, Parallelism parallelism = Parallelism::Threads);

// Rows shown per ranked table (kernels, blocking calls, idle causes, ...) in text and Markdown unless Listing::All
// (JSON lists everything up to kMaxJsonRows). Lists of GPUs and streams show kMaxListedEntries (format.h).
inline constexpr std::size_t kMaxTableRows = 15;
inline constexpr std::size_t kMaxJsonRows = 1000;

// listing applies to text and Markdown only: JSON is the same for both.
[[nodiscard]] std::string format_report(const Report& report, Format format, Listing listing = Listing::Capped);

// The cross-rank part of a report alone, as format_report writes it: the straggler headline as the verdict and the
// "Ranks and collectives" section (text, Markdown), or {"summary": {the ranks, world and clock}, "stragglers": ...}
// (JSON). It reads only summary.{distributed, ranks, clock, start_ns} and stragglers, so a reduction of rank
// summaries, which has nothing else, writes it exactly as the analysis of the merged run does. basis, when not
// empty, says what the report was computed from: a paragraph after the verdict (text, Markdown), "basis" (JSON).
[[nodiscard]] std::string format_ranks(const Report& report, Format format, Listing listing = Listing::Capped,
                                       const std::string& basis = {});

}  // namespace gtv::analysis
