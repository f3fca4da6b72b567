#pragma once
// What one rank of a merged run did on its own, apart from waiting: the lower bound no balancing can beat.
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
  TimeNs bound_ns = 0;     // the longest own work of one of its threads or GPUs in the window
  std::string bound_what;  // "thread 686's own work", "GPU 1's work"
};

// `rank` indexes the collectives' per-rank vectors; `window` bounds what counts.
[[nodiscard]] RankWork rank_work(const Trace& trace, const RankInfo& info, const analysis::Stragglers& s,
                                 std::size_t rank, analysis::Interval window);

}  // namespace gtv::whatif
