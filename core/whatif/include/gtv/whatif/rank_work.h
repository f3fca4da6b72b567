#pragma once
// What one rank did on its own, apart from waiting: the lower bound no balancing can beat, and what it did while it
// waited at a collective (balanced_ranks.h). From a merged run's trace or from a rank's own file.
#include <span>
#include <string>
#include <vector>

#include "gtv/analysis/intervals.h"
#include "gtv/analysis/stragglers.h"
#include "gtv/model/trace.h"

namespace gtv::whatif {

struct RankWork {
  // The rank's host threads' own work, merged over its threads: framework ops, CUDA calls and other recorded
  // work, less the time inside calls that wait (synchronizations, blocking copies, host collectives).
  std::vector<analysis::Interval> host_busy;
  TimeNs bound_ns = 0;             // the longest own work of one of its threads or GPUs in the window
  TimeNs gpu_work_ns = 0;          // the time any of its GPUs ran its work in the window (the same GPU work)
  std::string bound_what;          // "thread 686's own work", "GPU 1's work"
  std::int64_t bound_device = -1;  // the GPU of bound_ns, as the trace numbers it; -1: a thread's
  std::int64_t bound_tid = -1;     // the thread of bound_ns; -1: a GPU's
};

// A host collective (a Gloo range) the rank waited in, on its thread's lane.
struct HostCollectiveWait {
  LaneIndex lane = 0;
  analysis::Interval span;
};

// The host collectives of the stragglers' rank index `rank` (on_gpu false).
[[nodiscard]] std::vector<HostCollectiveWait> host_collective_waits(const analysis::Stragglers& s, std::size_t rank);

// `info` names the rank's host processes (pids) and GPUs (devices); `waits`: its host collectives, whose time is
// waiting, not work; `window` bounds what counts.
[[nodiscard]] RankWork rank_work(const Trace& trace, const RankInfo& info, std::span<const HostCollectiveWait> waits,
                                 analysis::Interval window);

// "GPU 1's work", "thread 686's own work": what RankWork::bound_ns measured.
[[nodiscard]] std::string bound_text(std::int64_t device, std::int64_t tid);

}  // namespace gtv::whatif
