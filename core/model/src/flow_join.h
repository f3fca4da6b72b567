#pragma once
// Joining flows when a trace is built (TraceBuilder::build, after the lanes are sorted and have depths): host
// launches to their GPU work by correlation id, then the explicit hints (Kineto's "ac2g" pairs) that name a pair
// not joined yet; and the two orders of the flows that Trace::flow_of searches.
//
// Linear or near-linear in the number of events: an open-addressing table for correlation ids, searches that start
// where the previous one on the same lane ended (hints come mostly in time order), counting sorts for the orders.
#include <cstdint>
#include <vector>

#include "gtv/model/lane.h"
#include "gtv/model/records.h"
#include "gtv/model/trace_builder.h"

namespace gtv::flow_join {

// Flows by correlation id (in GPU event order), then those of the hints whose `to` event was not joined yet (in
// hint order). A hint end names the deepest event of its lane that starts exactly at its time, else the deepest
// one that contains it; a hint with an end that names no event is dropped.
[[nodiscard]] std::vector<Flow> join(const std::vector<Lane>& lanes, const std::vector<TraceBuilder::FlowHint>& hints);

// Flows of the given kind from hints alone, in hint order (ends found as by join); a hint with an end that names
// no event is dropped.
[[nodiscard]] std::vector<Flow> join_hints(const std::vector<Lane>& lanes,
                                           const std::vector<TraceBuilder::FlowHint>& hints, FlowKind kind);

// Indices of flows ordered by their `from` (or `to`) event, by lane then index; ties keep flow order.
[[nodiscard]] std::vector<std::uint32_t> order_by_from(const std::vector<Lane>& lanes, const std::vector<Flow>& flows);
[[nodiscard]] std::vector<std::uint32_t> order_by_to(const std::vector<Lane>& lanes, const std::vector<Flow>& flows);

}  // namespace gtv::flow_join
