#pragma once
// Each change as an edit of the plan. An error says why the change does not apply to this trace.
#include "gtv/whatif/change.h"
#include "plan.h"

namespace gtv::whatif {

[[nodiscard]] Expected<Ok> apply_streams(Plan& plan, Bound bound);
[[nodiscard]] Expected<Ok> apply_placement(Plan& plan, const std::vector<int>& placement);
[[nodiscard]] Expected<Ok> apply_pinned(Plan& plan, Bound bound);
[[nodiscard]] Expected<Ok> apply_graphs(Plan& plan, Bound bound);
[[nodiscard]] Expected<Ok> apply_no_launch_blocking(Plan& plan, Bound bound);
[[nodiscard]] Expected<Ok> apply_processes(Plan& plan, Bound bound);
[[nodiscard]] Expected<Ok> apply_no_sync(Plan& plan, const std::string& name);

// A change applied for one bound of the band: the one dispatch from a ChangeKind to its edit (a change that is not
// replayed is predicted apart, before any plan is made).
[[nodiscard]] inline Expected<Ok> apply(Plan& plan, const Change& c, Bound bound) {
  switch (c.kind) {
    case ChangeKind::Streams:
      return apply_streams(plan, bound);
    case ChangeKind::Placement:
      return apply_placement(plan, c.placement);
    case ChangeKind::Pinned:
      return apply_pinned(plan, bound);
    case ChangeKind::Graphs:
      return apply_graphs(plan, bound);
    case ChangeKind::NoLaunchBlocking:
      return apply_no_launch_blocking(plan, bound);
    case ChangeKind::Processes:
      return apply_processes(plan, bound);
    case ChangeKind::NoSync:
      return apply_no_sync(plan, c.name);
    case ChangeKind::BalancedRanks:
      break;
  }
  return Error{"unknown change"};
}

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
