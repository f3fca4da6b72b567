// Why the GPUs were idle: each idle gap of each GPU inside the region is explained by the work that ended it. The
// next work on the GPU, joined to its launch through the flow, tells whether it was already queued (then the GPU
// or a dependency held it) or not yet launched (then what the launching thread was doing says why). A gap no
// later work ends inside the region is imbalance: nothing more was placed on that GPU.
#include "gtv/analysis/idle_causes.h"

#include <algorithm>
#include <array>
#include <limits>
#include <map>

#include "gtv/model/ranks.h"
#include "idle_causes_parts.h"

namespace gtv::analysis {
namespace {

using idle::Details;
using idle::HostThreads;
using idle::Piece;

constexpr TimeNs kMinTime = std::numeric_limits<TimeNs>::min();

struct Activity {
  TimeNs start_ns;
  EventRef ref;
};

// One GPU's work: merged busy intervals (unclipped) and its activities by start, to find the work that ends a gap.
struct DeviceWork {
  std::int64_t device = 0;
  std::vector<Interval> busy;
  std::vector<Activity> activities;
};

std::vector<DeviceWork> collect_devices(const Trace& trace) {
  std::map<std::int64_t, DeviceWork> by_device;
  for (LaneIndex l = 0; l < trace.lanes().size(); ++l) {
    const Lane& lane = trace.lane(l);
    if (!lane.is_gpu()) continue;
    std::vector<Activity> acts;
    for (std::uint32_t i = 0; i < lane.events.size(); ++i)
      if (is_gpu_activity(lane.events[i].kind) && lane.events[i].duration_ns > 0)
        acts.push_back({lane.events[i].start_ns, EventRef{l, i}});
    if (acts.empty()) continue;
    DeviceWork& w = by_device[lane.device()];
    w.device = lane.device();
    const std::vector<Interval> busy = lane_busy_intervals(lane);
    w.busy.insert(w.busy.end(), busy.begin(), busy.end());  // merged once below: a GPU may have 100k streams
    w.activities.insert(w.activities.end(), acts.begin(), acts.end());
  }
  std::vector<DeviceWork> out;
  for (auto& [device, w] : by_device) {
    merge_in_place(w.busy);
    std::stable_sort(w.activities.begin(), w.activities.end(),
                     [](const Activity& a, const Activity& b) { return a.start_ns < b.start_ns; });
    out.push_back(std::move(w));
  }
  return out;
}

// Was the previous work on the next activity's stream the work that ended at gap_start_ns? Then the next work sat
// in the same queue right behind it.
bool queued_behind_own_stream(const Trace& trace, EventRef next, TimeNs gap_start_ns) {
  const Lane& lane = trace.lane(next.lane);
  for (std::uint32_t i = next.index; i-- > 0;) {
    const Event& e = lane.events[i];
    if (!is_gpu_activity(e.kind) || e.duration_ns <= 0) continue;
    return e.end_ns() == gap_start_ns;
  }
  return false;
}

class DeviceExplainer {
 public:
  DeviceExplainer(const Trace& trace, const Region& region, const HostThreads& host, Details& details)
      : trace_(trace), region_(region), host_(host), details_(details) {
    unknown_ = details_.id("no launch recorded for the next work");
    dependency_ = details_.id("another stream or an event held it");
  }

  [[nodiscard]] std::vector<Piece> explain(const DeviceWork& w, std::uint32_t nothing_placed_detail) {
    std::vector<Piece> out;
    for (std::size_t i = 0; i <= w.busy.size(); ++i) {
      const TimeNs gap_start = i == 0 ? kMinTime : w.busy[i - 1].end_ns;
      const TimeNs gap_end = i < w.busy.size() ? w.busy[i].start_ns : std::numeric_limits<TimeNs>::max();
      const TimeNs s = std::max(gap_start, region_.start_ns), e = std::min(gap_end, region_.end_ns);
      if (s >= e) continue;
      if (gap_end >= region_.end_ns)
        out.push_back({s, e, IdleCause::NothingPlaced, nothing_placed_detail});
      else
        explain_gap(w, gap_start, s, e, out);
    }
    return out;
  }

 private:
  // [s, e) is the part inside the region of the gap that starts at gap_start_ns and ends when `next` starts.
  void explain_gap(const DeviceWork& w, TimeNs gap_start_ns, TimeNs s, TimeNs e, std::vector<Piece>& out) {
    auto it = std::lower_bound(w.activities.begin(), w.activities.end(), e,
                               [](const Activity& a, TimeNs t) { return a.start_ns < t; });
    const EventRef next = it->ref;  // a busy interval starts at an activity's start
    const auto flow = trace_.flow_of(next);
    if (!flow || !(flow->to == next) || trace_.lane(flow->from.lane).is_gpu()) {
      out.push_back({s, e, IdleCause::Unknown, unknown_});
      return;
    }
    // Until the launch call returned, the launching thread explains the wait; after it, the work sat queued.
    // (When exactly the driver handed it to the GPU inside the call is not recorded.)
    const TimeNs launch_end = trace_.event(flow->from).end_ns();
    const TimeNs split = std::clamp(launch_end, s, e);
    host_.explain(flow->from.lane, w.device, s, split, out);
    if (split >= e) return;
    // Launched while the GPU was idle: the GPU's start-up after the launch. Queued before, right behind work of
    // its own stream: the GPU's gap between consecutive work. Queued before while only other streams ran, and
    // still not started when the GPU went idle: something held it.
    if (launch_end > gap_start_ns)
      out.push_back({split, e, IdleCause::QueuedGap, stream_detail(next, ", after its launch returned")});
    else if (queued_behind_own_stream(trace_, next, gap_start_ns))
      out.push_back({split, e, IdleCause::QueuedGap, stream_detail(next, ", behind finished work")});
    else
      out.push_back({split, e, IdleCause::WaitingOnDependency, waited_on(next, gap_start_ns)});
  }

  // What held queued work: the stream named by the event wait it was the first work after (a dependency link
  // into it), when the work waited for was still running as the GPU went idle or ended in the gap, and the held
  // work started only after it; else the trace does not say which stream or event.
  std::uint32_t waited_on(EventRef next, TimeNs gap_start_ns) {
    for (const Flow& link : trace_.dependencies_of(next)) {
      if (!(link.to == next)) continue;
      const TimeNs source_end = trace_.event(link.from).end_ns();
      if (source_end < gap_start_ns || trace_.event(next).start_ns < source_end) continue;
      const Lane& source = trace_.lane(link.from.lane);
      const bool other_gpu = source.device() != trace_.lane(next.lane).device();
      return details_.id(std::string("on ") + (other_gpu ? gtv::gpu_label(trace_, source.device()) + " " : "") +
                         "stream " + std::to_string(source.stream()) + ", through an event wait");
    }
    return dependency_;
  }

  std::uint32_t stream_detail(EventRef ref, const char* where) {
    return details_.id("stream " + std::to_string(trace_.lane(ref.lane).stream()) + where);
  }

  const Trace& trace_;
  const Region& region_;
  const HostThreads& host_;
  Details& details_;
  std::uint32_t unknown_ = 0, dependency_ = 0;
};

// Sorts and merges touching pieces with the same cause and detail, then names their details.
void add_intervals(std::int64_t device, std::vector<Piece> pieces, const Details& details, IdleCauses& out) {
  std::sort(pieces.begin(), pieces.end(), [](const Piece& a, const Piece& b) { return a.start_ns < b.start_ns; });
  std::vector<Piece> merged;
  for (const Piece& p : pieces) {
    if (p.start_ns >= p.end_ns) continue;
    if (!merged.empty() && merged.back().end_ns == p.start_ns && merged.back().cause == p.cause &&
        merged.back().detail == p.detail)
      merged.back().end_ns = p.end_ns;
    else
      merged.push_back(p);
  }
  for (const Piece& p : merged)
    out.intervals.push_back({device, p.start_ns, p.end_ns, p.cause, details.text(p.detail)});
}

// Per cause: the total, the number of intervals and the detail with the most time.
void add_totals(std::int64_t device, std::span<const IdleInterval> intervals, IdleCauses& out) {
  struct Sum {
    TimeNs total_ns = 0;
    std::size_t count = 0;
    std::map<std::string, TimeNs> by_detail;
  };
  std::array<Sum, kIdleCauseCount> sums;
  for (const IdleInterval& i : intervals) {
    Sum& s = sums[static_cast<std::size_t>(i.cause)];
    s.total_ns += i.end_ns - i.start_ns;
    ++s.count;
    s.by_detail[i.detail] += i.end_ns - i.start_ns;
  }
  std::vector<IdleCauseTotal> totals;
  for (int c = 0; c < kIdleCauseCount; ++c) {
    const Sum& s = sums[static_cast<std::size_t>(c)];
    if (s.count == 0) continue;
    auto top = std::max_element(s.by_detail.begin(), s.by_detail.end(),
                                [](const auto& a, const auto& b) { return a.second < b.second; });
    totals.push_back({device, static_cast<IdleCause>(c), top->first, s.total_ns, s.count});
  }
  std::stable_sort(totals.begin(), totals.end(),
                   [](const IdleCauseTotal& a, const IdleCauseTotal& b) { return a.total_ns > b.total_ns; });
  out.totals.insert(out.totals.end(), totals.begin(), totals.end());
}

}  // namespace

std::string_view to_string(IdleCause cause) {
  static constexpr std::array<std::string_view, kIdleCauseCount> kNames{"host blocked",
                                                                        "host launching for another GPU",
                                                                        "host busy",
                                                                        "nothing placed on the GPU",
                                                                        "waiting on another stream or event",
                                                                        "warm-up",
                                                                        "waiting for a peer rank",
                                                                        "unknown",
                                                                        "queued work not started yet"};
  return kNames[static_cast<std::size_t>(cause)];
}

std::string_view idle_cause_key(IdleCause cause) {
  static constexpr std::array<std::string_view, kIdleCauseCount> kKeys{"host_blocked",
                                                                       "host_launching_other",
                                                                       "host_busy",
                                                                       "nothing_placed",
                                                                       "waiting_on_dependency",
                                                                       "warm_up",
                                                                       "peer_rank",
                                                                       "unknown",
                                                                       "queued_gap"};
  return kKeys[static_cast<std::size_t>(cause)];
}

IdleCauses analyze_idle_causes(const Trace& trace, const Region& region, const HostBlocking& blocking,
                               const WarmUp& warmup, const Stragglers* stragglers) {
  IdleCauses out;
  out.region = region;
  const std::vector<DeviceWork> devices = collect_devices(trace);
  for (const DeviceWork& w : devices) {
    const TimeNs busy_ns = length_within_ns(w.busy, region.start_ns, region.end_ns);
    out.gpus.push_back({w.device, busy_ns, region.length_ns() - busy_ns, gtv::gpu_label(trace, w.device)});
  }
  if (!devices.empty() && region.length_ns() > 0) {
    Details details;
    const HostThreads host(trace, blocking, warmup, details, stragglers);
    DeviceExplainer explainer(trace, region, host, details);
    const idle::Imbalance imbalance(trace, region, out.gpus);
    for (const DeviceWork& w : devices) {
      const std::uint32_t nothing = details.id(imbalance.detail(w.device));
      const std::size_t first = out.intervals.size();
      add_intervals(w.device, explainer.explain(w, nothing), details, out);
      add_totals(w.device, std::span(out.intervals).subspan(first), out);
    }
  }
  out.lines = idle::idle_lines(out);
  out.headline = idle::idle_headline(out);
  return out;
}

}  // namespace gtv::analysis
