#pragma once
// What happened in a time range the user selected (the timeline's shift-drag, as Perfetto's area selection): each
// GPU's busy time and the kernels, copies and memsets that ran in it, the time two or more GPUs were busy at once,
// and the host's CUDA calls. Every number is on the selected range and the words say so.
#include <string>
#include <vector>

#include "gtv/model/trace.h"

namespace gtv::analysis {

struct GpuRangeStats {
  std::int64_t device = 0;
  std::string label;        // "GPU 0", "rank 1 · GPU 0"
  TimeNs busy_ns = 0;       // union of its kernels, copies and memsets inside the range
  std::size_t kernels = 0;  // running in the range, wholly or in part
  std::size_t copies = 0;
  std::size_t memsets = 0;
};

struct RangeStats {
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  std::vector<GpuRangeStats> gpus;  // by device; only devices with GPU lanes
  TimeNs any_busy_ns = 0;           // at least one GPU busy, inside the range
  TimeNs overlap_ns = 0;            // two or more GPUs busy at once, inside the range
  std::size_t host_calls = 0;       // CUDA runtime and driver calls and syncs running in the range
  [[nodiscard]] TimeNs span_ns() const { return end_ns - start_ns; }
};

// [start_ns, end_ns) in the trace's time (events' start_ns); an empty or reversed range gives zeros.
[[nodiscard]] RangeStats range_stats(const Trace& trace, TimeNs start_ns, TimeNs end_ns);

// The statistics as lines: "In the 12.3 ms selected (355 ms to 367 ms after the trace start):", then one line per
// GPU, the overlap (two GPUs or more) and the host's calls. origin_ns: what the "after" times count from.
[[nodiscard]] std::vector<std::string> range_stats_lines(const RangeStats& stats, TimeNs origin_ns);

}  // namespace gtv::analysis
