#include <algorithm>
#include <set>

#include "gtv/analysis/intervals.h"
#include "gtv/analysis/stragglers.h"
#include "gtv/causal/critical_path.h"
#include "gtv/causal/happens_before.h"
#include "gtv/ranks/summary.h"
#include "gtv/whatif/rank_work.h"
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

// The window's span and its measurements' names, as the what-if predictions of this trace measure them.
RankWindow window_of(const Trace& trace) {
  RankWindow out;
  // Without measurements the window is the activity's span (window_of returns it before using the graph); with
  // them, the graph says which GPU work they launched.
  out.start_ns = trace.activity_start_ns();
  out.end_ns = trace.activity_end_ns();
  if (!trace.measurements().empty()) {
    const causal::Window w = causal::window_of(causal::HappensBefore::build(trace));
    out.start_ns = w.start_ns;
    out.end_ns = w.end_ns;
  }
  std::set<std::string> seen;
  for (const Measurement& m : trace.measurements())
    if (seen.insert(m.name).second) out.measurements.push_back(m.name);
  return out;
}

// The rank's values in `window` (whatif::rank_work with the same inputs as the what-if of a merged run) and its own
// work during each of its collectives.
void rank_values(const Trace& trace, const RankInfo& info, std::span<const whatif::HostCollectiveWait> waits,
                 RankSummary& s) {
  RankWindow& w = s.window;
  for (const Measurement& m : trace.measurements())
    if (std::find(info.pids.begin(), info.pids.end(), m.pid) != info.pids.end() && m.host_end_ns <= w.end_ns)
      w.last_measurement_end_ns = std::max(w.last_measurement_end_ns, m.host_end_ns);
  const whatif::RankWork work = whatif::rank_work(trace, info, waits, {w.start_ns, w.end_ns});
  w.longest_own_work_ns = work.bound_ns;
  w.gpu_work_ns = work.gpu_work_ns;
  w.longest_own_work_device = work.bound_device;
  w.longest_own_work_tid = work.bound_tid;
  s.collective_own_work_ns.clear();
  for (const Collective& c : s.collectives)
    s.collective_own_work_ns.push_back(analysis::length_within_ns(work.host_busy, c.start_ns, c.end_ns));
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
    RankInfo self;
    std::set<std::int64_t> pids;
    for (const Lane& lane : trace.lanes())
      if (!lane.is_gpu()) pids.insert(lane.key.pid);
    self.pids.assign(pids.begin(), pids.end());
    self.devices = s.devices;
    std::vector<whatif::HostCollectiveWait> waits;
    for (const Collective& c : s.collectives)
      if (!c.on_gpu) waits.push_back({c.ref.lane, {c.start_ns, c.end_ns}});
    s.window = window_of(trace);
    rank_values(trace, self, waits, s);
    drop_refs(s.collectives);
    s.steps = detail::steps_of(trace, [](const Lane&) { return true; });
    out.push_back(std::move(s));
    return out;
  }
  std::vector<std::vector<Collective>> per_rank = collectives_by_rank(trace);
  const RankWindow window = window_of(trace);
  const analysis::Stragglers stragglers = analysis::analyze_stragglers(trace);
  for (std::size_t i = 0; i < meta.ranks.size(); ++i) {
    RankSummary s = common_part(trace, source);
    s.window = window;
    // Its host collectives as the stragglers matched them: what the what-if of the merged run counts as waiting.
    std::vector<whatif::HostCollectiveWait> waits;
    const auto index = std::find(stragglers.ranks.begin(), stragglers.ranks.end(), meta.ranks[i].rank);
    if (index != stragglers.ranks.end())
      waits = whatif::host_collective_waits(stragglers, static_cast<std::size_t>(index - stragglers.ranks.begin()));
    s.distributed.rank = meta.ranks[i].rank;
    s.devices = meta.ranks[i].local_devices;
    s.collectives = std::move(per_rank[i]);
    rank_values(trace, meta.ranks[i], waits, s);
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
