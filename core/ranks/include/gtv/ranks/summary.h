#pragma once
// What the cross-rank analysis needs from one rank, and nothing else: who the rank is, where its clock stands, its
// GPUs, its collectives (kind, process group, sequence number, size, root, arrival, end) and its steps with its GPUs'
// work in each. A summary is made where
// the rank's file lives (`gtv-cli summarize`), is small enough to gather thousands of (docs/summary-format.md), and
// is reduced with the others into the cross-rank report (reduce.h) without any trace being loaded again.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "gtv/model/collectives.h"
#include "gtv/model/trace.h"

namespace gtv::ranks {

// The version of the summary this build writes and the only one it reads.
inline constexpr std::int64_t kSummaryVersion = 2;

// One training step of the rank, as PyTorch's profiler marks it ("ProfilerStep#N" record_function annotations at
// depth 0 on the thread with the most of them), and what the rank's GPUs did in it: busy is the time at least one of
// its GPUs ran a kernel, copy or memset; communication the time a NCCL kernel ran. Idle is the step's length minus
// busy.
struct StepWork {
  std::string name;  // "ProfilerStep#3"
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  TimeNs gpu_busy_ns = 0;
  TimeNs communication_ns = 0;
};

// What the balanced-ranks prediction (gtv/whatif/balanced_ranks.h) needs of the rank beyond its collectives, on the
// window the rank's predictions measure (causal::window_of): its measurements' span with the GPU work launched in
// them, or its activity's span when it has none. For a rank of a merged run: the merged run's window, and the rank's
// values in it.
struct RankWindow {
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  std::vector<std::string> measurements;  // the names of the trace's measurements, each once, in order
  TimeNs last_measurement_end_ns = std::numeric_limits<TimeNs>::min();  // min: the rank has none in the window
  // The longest own work of one of the rank's threads or GPUs in the window (whatif::rank_work): its GPU as the
  // rank's file numbers it, or its thread.
  TimeNs longest_own_work_ns = 0;
  std::int64_t longest_own_work_device = -1;
  std::int64_t longest_own_work_tid = -1;
  // The time any of the rank's GPUs ran its work in the window (communication kernels left out); 0 in summaries
  // written without it.
  TimeNs gpu_work_ns = 0;
};

struct RankSummary {
  std::string source;           // the trace file the summary was made from (where to open the rank's own trace)
  std::string source_tool;      // TraceMetadata::source_tool
  DistributedInfo distributed;  // the file's distributedInfo: rank -1 when it does not say
  // Clock anchor: the file's time 0 on its host's wall clock; every time below is relative to it.
  TimeNs origin_unix_ns = 0;
  TimeNs start_ns = 0;  // first and last recorded activity (Trace::start_ns, end_ns)
  TimeNs end_ns = 0;
  std::vector<std::int64_t> devices;    // GPUs the rank ran work on, as its file numbers them, ascending
  std::vector<Collective> collectives;  // in start order; EventRef is not kept (default)
  std::vector<StepWork> steps;          // in start order; empty when the trace marks no steps
  RankWindow window;
  // Per collective: the rank's own work between its start and its end (its threads' recorded ops and calls, waits
  // left out), what it did while it waited there.
  std::vector<TimeNs> collective_own_work_ns;
  // A rank taken from a run that was already merged: its times are on the run's one clock (shift 0), and the
  // merge's record of it and of the clock alignment is kept as it was, so reducing gives what the merge gave.
  bool from_merged_run = false;
  RankInfo merged_rank;         // rank, source, pids, devices, local_devices, shift_ns, clock_offset_ns
  ClockAlignment merged_clock;  // the merged run's TraceMetadata::clock
  // Not part of the summary: the .gtvsum it was read from (read_summary_file), which errors name; empty otherwise.
  std::string file;
};

// One summary for a rank's own file; one per rank for a run merged from rank files (TraceMetadata::ranks), in rank
// order. source names the file.
[[nodiscard]] std::vector<RankSummary> summarize(const Trace& trace, const std::string& source);

}  // namespace gtv::ranks
