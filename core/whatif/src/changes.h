#pragma once
// Each change as an edit of the plan. An error says why the change does not apply to this trace.
#include "gtv/whatif/change.h"
#include "plan.h"

namespace gtv::whatif {

[[nodiscard]] Expected<Ok> apply_streams(Plan& plan);
[[nodiscard]] Expected<Ok> apply_placement(Plan& plan, const std::vector<int>& placement);
[[nodiscard]] Expected<Ok> apply_pinned(Plan& plan, Bound bound);
[[nodiscard]] Expected<Ok> apply_graphs(Plan& plan, Bound bound);
[[nodiscard]] Expected<Ok> apply_no_launch_blocking(Plan& plan);
[[nodiscard]] Expected<Ok> apply_processes(Plan& plan, Bound bound);
[[nodiscard]] Expected<Ok> apply_no_sync(Plan& plan, const std::string& name);

// The share of its GPU's multiprocessors each kernel's grid fills, from its launch configuration and the GPU's
// multiprocessor count; 1 where the trace lacks them (said in the plan's assumptions).
void fill_sm_shares(Plan& plan);

// Moves GPU nodes to new streams: `key` per node (host nodes ignored), `order` the launch order that a shared
// stream runs its work in. Stream order is rebuilt, synchronizations that waited for a stream wait for every
// stream its work went to, and the plan notes when kernels of one GPU now run on several streams.
void remap_streams(Plan& plan, const std::vector<StreamKey>& key, const std::vector<TimeNs>& order);

// The launch order of every GPU node (its launch call's start; its own start when no launch is recorded).
[[nodiscard]] std::vector<TimeNs> launch_order(const causal::HappensBefore& g);

}  // namespace gtv::whatif
