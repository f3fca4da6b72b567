// The steps of one rank and its GPUs' work in each: the annotations PyTorch's profiler writes for each step, and the
// union of the GPU activity on the rank's GPU lanes clipped to each.
#include "steps.h"

#include <algorithm>
#include <cctype>

#include "gtv/analysis/intervals.h"
#include "gtv/model/collectives.h"

namespace gtv::ranks::detail {
namespace {

bool is_step_name(std::string_view name) {
  constexpr std::string_view kPrefix = "ProfilerStep#";
  if (name.size() < kPrefix.size()) return false;
  for (std::size_t i = 0; i < kPrefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(name[i])) != std::tolower(static_cast<unsigned char>(kPrefix[i])))
      return false;
  return true;
}

// Length of the merged (sorted, disjoint) intervals inside [start, end).
TimeNs length_within(const std::vector<analysis::Interval>& merged, TimeNs start_ns, TimeNs end_ns) {
  TimeNs out = 0;
  auto it = std::upper_bound(merged.begin(), merged.end(), start_ns,
                             [](TimeNs t, const analysis::Interval& i) { return t < i.end_ns; });
  for (; it != merged.end() && it->start_ns < end_ns; ++it)
    out = saturating_add(out, std::min(end_ns, it->end_ns) - std::max(start_ns, it->start_ns));
  return out;
}

}  // namespace

std::vector<StepWork> steps_of(const Trace& trace, const std::function<bool(const Lane&)>& is_rank_lane) {
  std::vector<StepWork> steps;
  std::vector<analysis::Interval> busy, communication;
  for (const Lane& lane : trace.lanes()) {
    if (!is_rank_lane(lane)) continue;
    if (lane.is_gpu()) {
      for (const Event& e : lane.events) {
        if (!is_gpu_activity(e.kind)) continue;
        busy.push_back({e.start_ns, e.end_ns()});
        if (e.kind == EventKind::Kernel && is_communication_kernel(trace.name(e)))
          communication.push_back({e.start_ns, e.end_ns()});
      }
      continue;
    }
    if (lane.by_depth.empty()) continue;
    std::vector<StepWork> found;
    for (std::uint32_t i : lane.by_depth[0]) {
      const Event& e = lane.events[i];
      if (e.kind == EventKind::Annotation && is_step_name(trace.name(e)))
        found.push_back({std::string(trace.name(e)), e.start_ns, e.end_ns(), 0, 0});
    }
    if (found.size() > steps.size()) steps = std::move(found);
  }
  busy = analysis::merged(std::move(busy));
  communication = analysis::merged(std::move(communication));
  for (StepWork& s : steps) {
    s.gpu_busy_ns = length_within(busy, s.start_ns, s.end_ns);
    s.communication_ns = length_within(communication, s.start_ns, s.end_ns);
  }
  return steps;
}

}  // namespace gtv::ranks::detail
