#include "causes/silent_ranges.h"

#include <algorithm>
#include <iterator>

#include "gtv/model/collectives.h"
#include "gtv/model/kineto_names.h"

namespace gtv::analysis::detail {
namespace {

// The collective range at the top level of a host lane that holds time_ns, nullptr when none.
const Event* collective_range_at(const Trace& trace, const Lane& lane, TimeNs time_ns) {
  if (lane.by_depth.empty()) return nullptr;
  const std::vector<std::uint32_t>& top = lane.by_depth[0];
  const auto it = std::upper_bound(top.begin(), top.end(), time_ns,
                                   [&](TimeNs t, std::uint32_t i) { return t < lane.events[i].start_ns; });
  if (it == top.begin()) return nullptr;
  const Event& e = lane.events[*std::prev(it)];
  if ((e.kind != EventKind::Annotation && e.kind != EventKind::CpuOp) || e.end_ns() <= time_ns) return nullptr;
  return is_collective_range_name(trace.name(e)) ? &e : nullptr;
}

// The multiprocessing DataLoader's __next__ ("enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__"), at
// any depth of a host lane, that holds time_ns; nullptr when none.
const Event* data_loader_wait_at(const Trace& trace, const Lane& lane, TimeNs time_ns) {
  for (const std::vector<std::uint32_t>& level : lane.by_depth) {
    const auto it = std::upper_bound(level.begin(), level.end(), time_ns,
                                     [&](TimeNs t, std::uint32_t i) { return t < lane.events[i].start_ns; });
    if (it == level.begin()) continue;
    const Event& e = lane.events[*std::prev(it)];
    if (e.end_ns() > time_ns && kineto::is_data_loader_next(trace.name(e))) return &e;
  }
  return nullptr;
}

}  // namespace

SilentContext silent_context(const Trace& trace, const Lane& lane, TimeNs time_ns) {
  if (const Event* e = collective_range_at(trace, lane, time_ns)) return {ShareContext::InsideCollective, e};
  if (const Event* e = data_loader_wait_at(trace, lane, time_ns)) return {ShareContext::InsideDataLoaderWait, e};
  return {};
}

std::string_view silent_meaning(ShareContext range) {
  switch (range) {
    case ShareContext::InsideCollective:
      return "the collective's transfer and its wait for the other ranks";
    case ShareContext::InsideDataLoaderWait:
      return "waiting for the DataLoader's worker processes to deliver the next batch, or receiving it";
    case ShareContext::None:
    case ShareContext::BeforeFirstCall:
      break;
  }
  return {};
}

}  // namespace gtv::analysis::detail
