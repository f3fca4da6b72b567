#pragma once
// Between summarize and the step table.
#include <functional>
#include <vector>

#include "gtv/ranks/summary.h"

namespace gtv::ranks::detail {

// The steps on the rank's host lanes (the lane with the most), with its GPU lanes' work in each; is_rank_lane says
// which lanes are the rank's (all of a rank's own file; one rank's of a merged run).
[[nodiscard]] std::vector<StepWork> steps_of(const Trace& trace, const std::function<bool(const Lane&)>& is_rank_lane);

}  // namespace gtv::ranks::detail
