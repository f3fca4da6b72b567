#pragma once
// Joining dependency links when a trace is built (TraceBuilder::build, after the lanes are sorted and have
// depths): the explicit pairs of a file, then the synchronizations' wait hints by the rule documented at
// TraceBuilder::WaitHint, each link kept once.
#include <vector>

#include "gtv/model/lane.h"
#include "gtv/model/records.h"
#include "gtv/model/trace_builder.h"

namespace gtv::dependency_join {

// Links for the hints, in hint order: the explicit pairs first (ends found as flow_join finds them), then the
// waits; a link with the same ends as an earlier one is dropped. O((events + hints) log events).
[[nodiscard]] std::vector<Flow> join(const std::vector<Lane>& lanes, const std::vector<TraceBuilder::FlowHint>& pairs,
                                     const std::vector<TraceBuilder::WaitHint>& waits);

}  // namespace gtv::dependency_join
