#pragma once
// What is in a trace, at a glance (`gtv-cli info`): source, span, processes and threads, GPUs and streams, event
// counts per category, kernel and busy time per GPU.
#include <cstdint>
#include <string>
#include <vector>

#include "gtv/analysis/format.h"
#include "gtv/model/trace.h"

namespace gtv::analysis {

struct ThreadSummary {
  std::int64_t tid = 0;
  std::string name;
  std::size_t event_count = 0;
};

struct ProcessSummary {
  std::int64_t pid = 0;
  std::string name;                    // from process_name metadata; empty if unknown
  std::vector<ThreadSummary> threads;  // by tid
};

struct StreamSummary {
  std::int64_t stream = 0;
  std::string name;
  std::size_t event_count = 0;  // all events on the lane
};

struct GpuSummary {
  std::int64_t index = 0;
  std::string label;                   // "GPU 1"; in a merged run "rank 1 · GPU 0" (the rank's own numbering)
  std::string name;                    // from DeviceInfo; empty if unknown
  std::vector<StreamSummary> streams;  // by stream id
  std::size_t kernel_count = 0;
  TimeNs kernel_ns = 0;  // sum of kernel durations
  TimeNs busy_ns = 0;    // union of kernels, copies and memsets
};

struct CategoryCount {
  std::string category;  // Trace::category text ("kernel", "cuda_runtime", or an unknown category as written)
  std::size_t count = 0;
};

struct TraceSummary {
  std::string source_tool;
  std::string scenario;
  DistributedInfo distributed;     // rank -1: not a rank of a distributed run (or the trace does not say)
  std::vector<RankInfo> ranks;     // a run merged from per-rank files
  ClockAlignment clock;            // how their clocks were aligned
  std::vector<std::string> notes;  // what the recorder or the reader said ("no CUDA GPU: running on the CPU ...")
  TimeNs origin_unix_ns = 0;
  TimeNs start_ns = 0;  // the file's extent, profiler markers included: times are said from start_ns
  TimeNs end_ns = 0;
  TimeNs activity_start_ns = 0;  // the program's time (Trace::activity_start_ns): what "the whole trace" covers
  TimeNs activity_end_ns = 0;
  std::size_t event_count = 0;
  std::size_t flow_count = 0;
  std::size_t range_count = 0;
  std::size_t measurement_count = 0;
  std::int64_t dropped_records = 0;
  std::vector<ProcessSummary> processes;  // by pid; processes with host lanes
  std::vector<GpuSummary> gpus;           // by index; GPUs with lanes or DeviceInfo
  std::vector<CategoryCount> categories;  // by category text
  [[nodiscard]] TimeNs duration_ns() const { return end_ns - start_ns; }
  [[nodiscard]] TimeNs activity_ns() const { return activity_end_ns - activity_start_ns; }
  // Whether profiler markers reach beyond the recorded activity (Kineto's "Record Window End").
  [[nodiscard]] bool markers_outside_activity() const {
    return activity_start_ns != start_ns || activity_end_ns != end_ns;
  }
};

struct BusyAnalysis;

[[nodiscard]] TraceSummary summarize(const Trace& trace);
// The same, reusing busy times already computed for the whole trace (analyze_busy(trace)).
[[nodiscard]] TraceSummary summarize(const Trace& trace, const BusyAnalysis& busy);

// listing: every process, thread, GPU, stream and category, or the first kMaxListedEntries of each list.
[[nodiscard]] std::string format_summary_text(const TraceSummary& summary, Listing listing = Listing::Capped);
// "rank 1 of 4 (nccl)".
[[nodiscard]] std::string rank_text(const DistributedInfo& distributed);
// "2 of world size 2 (nccl): rank 0 from a.json (GPU 0), rank 1 from b.json (GPU 1)".
[[nodiscard]] std::string ranks_text(const TraceSummary& summary);
[[nodiscard]] std::string format_summary_json(const TraceSummary& summary);
// Text, Markdown (same content as text, in a code block) or JSON; listing applies to text and Markdown (JSON lists
// every entry).
[[nodiscard]] std::string format_summary(const TraceSummary& summary, Format format, Listing listing = Listing::Capped);

}  // namespace gtv::analysis
