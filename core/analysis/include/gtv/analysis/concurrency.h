#pragma once
// Did the GPUs run at the same time? A step function of how many GPUs are busy at each instant, the time with
// two or more busy, and effective parallelism (sum of per-GPU busy time / union of busy time). Inside each GPU,
// whether its streams ran at the same time (stream_overlap.h), which the verdict of a one-GPU trace is about.
#include <string>
#include <vector>

#include "gtv/analysis/busy.h"
#include "gtv/analysis/stream_overlap.h"

namespace gtv::analysis {

struct ConcurrencyStep {
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  int busy_gpus = 0;
  friend bool operator==(const ConcurrencyStep&, const ConcurrencyStep&) = default;
};

struct Concurrency {
  std::size_t gpu_count = 0;  // GPUs with any busy time
  // Consecutive steps from the first busy instant to the last; neighbours always differ in busy_gpus.
  std::vector<ConcurrencyStep> steps;
  TimeNs any_busy_ns = 0;  // union over GPUs: time at least one GPU was busy
  TimeNs overlap_ns = 0;   // time with 2+ GPUs busy
  TimeNs sum_busy_ns = 0;  // sum of per-GPU busy time
  TimeNs ideal_ns = 0;     // largest single-GPU busy time: the union if all work overlapped perfectly
  std::int64_t busiest_device = -1;
  TimeNs wall_ns = 0;                // the analysis window
  double effective_parallelism = 0;  // sum_busy / any_busy; 1.0 = serial, gpu_count = perfect overlap
  double overlap_share = 0;          // overlap / any_busy
  StreamOverlap streams;             // the streams of each GPU in the same window; empty when not computed
  std::string verdict;               // one line with the numbers
};

// A trace of one rank of a distributed run (metadata.distributed.rank >= 0) says so where it speaks of one GPU;
// GPUs of a merged run are named with their rank. streams: the stream overlap of the same window, which the
// verdict of a one-GPU trace reports (without it the verdict says nothing about streams).
[[nodiscard]] Concurrency analyze_concurrency(const BusyAnalysis& busy, const TraceMetadata& metadata = {},
                                              StreamOverlap streams = {});
// Everything over the whole trace, streams included.
[[nodiscard]] Concurrency analyze_concurrency(const Trace& trace);
// The same inside [start_ns, end_ns) only: busy intervals are clipped to the window, which becomes wall_ns.
[[nodiscard]] Concurrency analyze_concurrency_within(const BusyAnalysis& busy, TimeNs start_ns, TimeNs end_ns,
                                                     const TraceMetadata& metadata = {}, StreamOverlap streams = {});

}  // namespace gtv::analysis
