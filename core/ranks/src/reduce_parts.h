#pragma once
// Between the checks of a reduction and its clock alignment.
#include <span>
#include <string>
#include <vector>

#include "gtv/model/collective_clock.h"
#include "gtv/model/rank_merge.h"
#include "gtv/ranks/summary.h"

namespace gtv::ranks::detail {

// One rank of the run, in rank order.
struct Part {
  const RankSummary* summary = nullptr;
  std::int64_t rank = 0;
  TimeNs shift_ns = 0;   // onto the earliest origin, wall clock
  TimeNs offset_ns = 0;  // the method's alignment on top of it
  TimeNs manual_ns = 0;  // and the shift given by hand
};

struct Aligned {
  ClockAlignment clock;
  CollectiveMatch match;  // the parts' collectives matched (ranks named "rank R"), before alignment
  std::vector<std::string> warnings;
};

// Moves the parts onto one clock as merging the rank files does (origins, then the method, then the shifts by
// hand), checks the result stays in the trace time range, and says how, in the merge's words.
[[nodiscard]] Expected<Aligned> align_clocks(std::vector<Part>& parts, const RankMergeOptions& options);

[[nodiscard]] TimeNs total_shift(const Part& p);

}  // namespace gtv::ranks::detail
