#include <set>

#include "gtv/ranks/summary.h"
#include "steps.h"

namespace gtv::ranks {
namespace {

RankSummary common_part(const Trace& trace, const std::string& source) {
  RankSummary s;
  s.source = source;
  s.source_tool = trace.metadata().source_tool;
  s.distributed = trace.metadata().distributed;
  s.origin_unix_ns = trace.metadata().origin_unix_ns;
  s.start_ns = trace.start_ns();
  s.end_ns = trace.end_ns();
  return s;
}

void drop_refs(std::vector<Collective>& collectives) {
  for (Collective& c : collectives) c.ref = EventRef{};
}

}  // namespace

std::vector<RankSummary> summarize(const Trace& trace, const std::string& source) {
  const TraceMetadata& meta = trace.metadata();
  std::vector<RankSummary> out;
  if (meta.ranks.empty()) {
    RankSummary s = common_part(trace, source);
    // The GPUs the rank ran work on: a file lists every GPU of its host, and only these are the rank's.
    std::set<std::int64_t> devices;
    for (const Lane& lane : trace.lanes())
      if (lane.is_gpu()) devices.insert(lane.key.pid);
    s.devices.assign(devices.begin(), devices.end());
    s.collectives = find_collectives(trace);
    drop_refs(s.collectives);
    s.steps = detail::steps_of(trace, [](const Lane&) { return true; });
    out.push_back(std::move(s));
    return out;
  }
  std::vector<std::vector<Collective>> per_rank = collectives_by_rank(trace);
  for (std::size_t i = 0; i < meta.ranks.size(); ++i) {
    RankSummary s = common_part(trace, source);
    s.distributed.rank = meta.ranks[i].rank;
    s.devices = meta.ranks[i].local_devices;
    s.collectives = std::move(per_rank[i]);
    drop_refs(s.collectives);
    const RankInfo* self = &meta.ranks[i];
    s.steps = detail::steps_of(trace, [&](const Lane& lane) {
      return (lane.is_gpu() ? trace.rank_of_device(lane.device()) : trace.rank_of_pid(lane.key.pid)) == self;
    });
    s.from_merged_run = true;
    s.merged_rank = meta.ranks[i];
    s.merged_clock = meta.clock;
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace gtv::ranks
