#include "gtv/whatif/rank_work.h"

#include <algorithm>
#include <map>
#include <set>

#include "gtv/analysis/host_blocking.h"
#include "gtv/model/collectives.h"

namespace gtv::whatif {
namespace {

using analysis::Interval;

// Framework ops and CUDA calls. Annotations (ProfilerStep#N, record_function) and Python functions span whatever
// runs inside them, waits included: not work of their own.
bool is_own_work(EventKind kind) {
  return kind == EventKind::CpuOp || kind == EventKind::Runtime || kind == EventKind::Driver;
}

Interval clipped(TimeNs start_ns, TimeNs end_ns, Interval window) {
  return {std::max(start_ns, window.start_ns), std::min(end_ns, window.end_ns)};
}

}  // namespace

std::vector<HostCollectiveWait> host_collective_waits(const analysis::Stragglers& s, std::size_t rank) {
  std::vector<HostCollectiveWait> out;
  for (const analysis::CollectiveArrivals& c : s.collectives)
    if (!c.on_gpu && rank < c.refs.size()) out.push_back({c.refs[rank].lane, {c.arrival_ns[rank], c.end_ns[rank]}});
  return out;
}

std::string bound_text(std::int64_t device, std::int64_t tid) {
  return device >= 0 ? "GPU " + std::to_string(device) + "'s work" : "thread " + std::to_string(tid) + "'s own work";
}

RankWork rank_work(const Trace& trace, const RankInfo& info, std::span<const HostCollectiveWait> waits_in,
                   Interval window) {
  RankWork out;
  const std::set<std::int64_t> pids(info.pids.begin(), info.pids.end());
  const std::set<std::int64_t> devices(info.devices.begin(), info.devices.end());
  // The host collectives (Gloo's ranges) the rank waited in, by lane.
  std::map<LaneIndex, std::vector<Interval>> collective_waits;
  for (const HostCollectiveWait& w : waits_in)
    collective_waits[w.lane].push_back(clipped(w.span.start_ns, w.span.end_ns, window));
  std::map<StringId, bool> waits_by_name;
  const auto waits = [&](const Event& e) {
    if (e.kind == EventKind::Sync) return true;
    const auto [it, fresh] = waits_by_name.try_emplace(e.name, false);
    analysis::BlockingKind kind{};
    if (fresh) it->second = analysis::blocking_kind_of_call(trace.strings().view(e.name), kind);
    return it->second;
  };
  std::vector<Interval> all_host;
  const auto keep_longest = [&](TimeNs own_ns, std::int64_t device, std::int64_t tid) {
    if (own_ns <= out.bound_ns) return;
    out.bound_ns = own_ns;
    out.bound_device = device;
    out.bound_tid = tid;
    out.bound_what = bound_text(device, tid);
  };
  // A GPU's work: its kernels, copies and memsets on any stream, communication kernels left out (they last as long
  // as the peers keep them waiting).
  std::map<std::int64_t, std::vector<Interval>> gpu_work;
  for (const Lane& lane : trace.lanes()) {
    if (!lane.is_gpu() || !devices.count(lane.device())) continue;
    for (const Event& e : lane.events)
      if (is_gpu_activity(e.kind) && e.end_ns() > window.start_ns && e.start_ns < window.end_ns &&
          !(e.kind == EventKind::Kernel && is_communication_kernel(trace.strings().view(e.name))))
        gpu_work[lane.device()].push_back(clipped(e.start_ns, e.end_ns(), window));
  }
  std::vector<Interval> any_gpu;
  for (auto& [device, spans] : gpu_work) {
    any_gpu.insert(any_gpu.end(), spans.begin(), spans.end());
    keep_longest(analysis::total_length_ns(analysis::merged(std::move(spans))), device, -1);
  }
  out.gpu_work_ns = analysis::total_length_ns(analysis::merged(std::move(any_gpu)));
  for (LaneIndex l = 0; l < trace.lanes().size(); ++l) {
    const Lane& lane = trace.lane(l);
    if (lane.is_gpu() || !pids.count(lane.key.pid)) continue;
    std::vector<Interval> work, waited;
    for (const Event& e : lane.events) {
      if (e.end_ns() <= window.start_ns || e.start_ns >= window.end_ns) continue;
      if (waits(e))
        waited.push_back(clipped(e.start_ns, e.end_ns(), window));
      else if (is_own_work(e.kind))
        work.push_back(clipped(e.start_ns, e.end_ns(), window));
    }
    if (const auto it = collective_waits.find(l); it != collective_waits.end())
      waited.insert(waited.end(), it->second.begin(), it->second.end());
    const std::vector<Interval> own =
        analysis::difference_of(analysis::merged(std::move(work)), analysis::merged(std::move(waited)));
    keep_longest(analysis::total_length_ns(own), -1, lane.key.tid);
    all_host.insert(all_host.end(), own.begin(), own.end());
  }
  out.host_busy = analysis::merged(std::move(all_host));
  return out;
}

}  // namespace gtv::whatif
