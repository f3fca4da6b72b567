// What each host thread was doing while a GPU waited for its next work: blocked in a call, in first-use work, or
// launching work for another GPU. Spans are kept per host lane, sorted and disjoint, so a query costs one binary
// search plus the spans it touches.
#include <algorithm>
#include <cctype>
#include <limits>
#include <map>
#include <optional>

#include "gtv/model/collectives.h"
#include "idle_causes_parts.h"
#include "record_names.h"

namespace gtv::analysis::idle {
namespace {

// Each matched collective's kernel on each rank -> whom the rank waited for there: "rank 1 arrived last", or for
// the last rank itself "this rank arrived last".
std::map<std::pair<LaneIndex, std::uint32_t>, std::string> last_arrivals(const Stragglers* stragglers) {
  std::map<std::pair<LaneIndex, std::uint32_t>, std::string> out;
  if (stragglers == nullptr) return out;
  for (const CollectiveArrivals& c : stragglers->collectives)
    for (std::size_t r = 0; r < c.refs.size(); ++r)
      out[{c.refs[r].lane, c.refs[r].index}] =
          r == c.last ? "this rank arrived last"
                      : "rank " + std::to_string(stragglers->ranks[c.last]) + " arrived last";
  return out;
}

// The GPU activity ends of each device, sorted, to find what a blocking call was waiting for: the work that
// ended last before the call returned.
class ActivityEnds {
 public:
  // Nothing to index in a trace without communication kernels: no wait can have been for one.
  explicit ActivityEnds(const Trace& trace) {
    std::vector<std::int8_t> nccl_by_name(trace.strings().size(), -1);
    bool any_nccl = false;
    for (const Lane& lane : trace.lanes()) {
      if (!lane.is_gpu()) continue;
      for (const Event& e : lane.events) {
        std::int8_t& nccl = nccl_by_name[e.name];
        if (nccl < 0) nccl = is_communication_kernel(trace.name(e)) ? 1 : 0;
        any_nccl = any_nccl || (nccl == 1 && is_gpu_activity(e.kind));
      }
    }
    if (any_nccl) index(trace, nccl_by_name);
  }

  // The communication kernel a call over [start_ns, end_ns] waited for: the GPU work (on `device`, or any device
  // for -1) that ended last inside it, when that was one.
  [[nodiscard]] std::optional<EventRef> waited_for_nccl(std::int64_t device, TimeNs start_ns, TimeNs end_ns) const {
    std::optional<End> last;
    for (const auto& [d, ends] : by_device_) {
      if (device >= 0 && d != device) continue;
      auto it = std::upper_bound(ends.begin(), ends.end(), end_ns, [](TimeNs t, const End& e) { return t < e.end_ns; });
      if (it == ends.begin()) continue;
      --it;
      if (it->end_ns >= start_ns && (!last || it->end_ns > last->end_ns)) last = *it;
    }
    if (!last || !last->nccl) return std::nullopt;
    return last->ref;
  }

 private:
  struct End {
    TimeNs end_ns;
    bool nccl;
    EventRef ref;
  };
  void index(const Trace& trace, const std::vector<std::int8_t>& nccl_by_name) {
    for (LaneIndex l = 0; l < trace.lanes().size(); ++l) {
      const Lane& lane = trace.lane(l);
      if (!lane.is_gpu()) continue;
      std::vector<End>& ends = device_ends(lane.device());
      for (std::uint32_t i = 0; i < lane.events.size(); ++i)
        if (const Event& e = lane.events[i]; is_gpu_activity(e.kind))
          ends.push_back({e.end_ns(), nccl_by_name[e.name] == 1, EventRef{l, i}});
    }
    for (auto& [device, ends] : by_device_)
      std::sort(ends.begin(), ends.end(), [](const End& a, const End& b) { return a.end_ns < b.end_ns; });
  }
  std::vector<End>& device_ends(std::int64_t device) {
    for (auto& [d, ends] : by_device_)
      if (d == device) return ends;
    return by_device_.emplace_back(device, std::vector<End>{}).second;
  }
  std::vector<std::pair<std::int64_t, std::vector<End>>> by_device_;
};

// Cuts each part by the spans (sorted, disjoint): covered pieces go to emit, uncovered ones to rest.
template <class Emit>
void cut(const std::vector<Piece>& spans, const std::vector<Interval>& parts, std::vector<Interval>& rest, Emit emit) {
  for (const Interval& part : parts) {
    auto it =
        std::partition_point(spans.begin(), spans.end(), [&](const Piece& p) { return p.end_ns <= part.start_ns; });
    TimeNs cursor = part.start_ns;
    for (; it != spans.end() && it->start_ns < part.end_ns; ++it) {
      const TimeNs start = std::max(it->start_ns, cursor);
      const TimeNs end = std::min(it->end_ns, part.end_ns);
      if (start >= end) continue;
      if (start > cursor) rest.push_back({cursor, start});
      emit(*it, start, end);
      cursor = end;
    }
    if (cursor < part.end_ns) rest.push_back({cursor, part.end_ns});
  }
}

}  // namespace

std::uint32_t Details::id(const std::string& text) {
  auto [it, inserted] = ids_.try_emplace(text, static_cast<std::uint32_t>(texts_.size()));
  if (inserted) texts_.push_back(text);
  return it->second;
}

void make_disjoint(std::vector<Piece>& spans) {
  std::stable_sort(spans.begin(), spans.end(), [](const Piece& a, const Piece& b) { return a.start_ns < b.start_ns; });
  TimeNs covered = std::numeric_limits<TimeNs>::min();
  std::vector<Piece> out;
  out.reserve(spans.size());
  for (Piece p : spans) {
    p.start_ns = std::max(p.start_ns, covered);
    if (p.start_ns >= p.end_ns) continue;
    covered = p.end_ns;
    out.push_back(p);
  }
  spans = std::move(out);
}

HostThreads::HostThreads(const Trace& trace, const HostBlocking& blocking, const WarmUp& warmup, Details& details,
                         const Stragglers* stragglers)
    : lanes_(trace.lanes().size()), details_(details) {
  add_blocking(trace, blocking, stragglers);
  add_warmup(trace, warmup);
  add_launch_runs(trace);
  for (Layers& l : lanes_) {
    make_disjoint(l.blocked);
    make_disjoint(l.warmup);
    make_disjoint(l.launch_runs);
  }
  busy_detail_ = details_.id("the launching thread had not launched the next work yet");
}

void HostThreads::add_blocking(const Trace& trace, const HostBlocking& blocking, const Stragglers* stragglers) {
  const ActivityEnds ends(trace);
  const std::map<std::pair<LaneIndex, std::uint32_t>, std::string> last_rank = last_arrivals(stragglers);
  for (const BlockingCall& c : blocking.calls) {
    const auto lane = trace.find_lane(host_lane_key(c.pid, c.tid));
    if (!lane || c.duration_ns <= 0) continue;
    // A thread that waits for a communication kernel waits for the other ranks to reach the collective.
    const std::optional<EventRef> collective = ends.waited_for_nccl(c.device, c.start_ns, c.start_ns + c.duration_ns);
    std::string what = describe_blocking(c);
    if (collective) {
      what += " waiting for an NCCL kernel";
      if (const auto it = last_rank.find({collective->lane, collective->index}); it != last_rank.end())
        what += " (" + it->second + ")";
    }
    lanes_[*lane].blocked.push_back({c.start_ns, c.start_ns + c.duration_ns,
                                     collective ? IdleCause::PeerRank : IdleCause::HostBlocked, details_.id(what)});
  }
}

void HostThreads::add_warmup(const Trace& trace, const WarmUp& warmup) {
  for (const WarmUpFinding& f : warmup.findings) {
    if (f.on_gpu) continue;  // a slow first kernel is GPU busy time, not a reason for idleness
    const auto lane = trace.find_lane(host_lane_key(f.pid, f.tid));
    if (!lane) continue;
    const std::uint32_t detail = details_.id(std::string(to_string(f.cause)));
    for (const Interval& span : f.spans)
      lanes_[*lane].warmup.push_back({span.start_ns, span.end_ns, IdleCause::WarmUp, detail});
  }
}

// Consecutive launches for one GPU form a run, from the first launch's start to the last one's end: while the
// thread is inside a run for GPU 0 it is launching GPU 0's work, gaps between those launches included.
void HostThreads::add_launch_runs(const Trace& trace) {
  std::vector<std::vector<Piece>> launches(lanes_.size());
  for (const Flow& f : trace.flows()) {
    if (trace.lane(f.from.lane).is_gpu() || !trace.lane(f.to.lane).is_gpu()) continue;
    const Event& call = trace.event(f.from);
    launches[f.from.lane].push_back({call.start_ns, call.end_ns(), IdleCause::HostLaunchingOther,
                                     static_cast<std::uint32_t>(trace.lane(f.to.lane).device())});
  }
  for (std::size_t l = 0; l < launches.size(); ++l) {
    std::vector<Piece>& calls = launches[l];
    auto by_start = [](const Piece& a, const Piece& b) { return a.start_ns < b.start_ns; };
    if (!std::is_sorted(calls.begin(), calls.end(), by_start)) std::sort(calls.begin(), calls.end(), by_start);
    std::vector<Piece>& runs = lanes_[l].launch_runs;
    for (const Piece& c : calls) {
      if (!runs.empty() && runs.back().detail == c.detail)
        runs.back().end_ns = std::max(runs.back().end_ns, c.end_ns);
      else
        runs.push_back(c);
    }
  }
}

std::uint32_t HostThreads::launching_detail(std::int64_t device) const {
  auto [it, inserted] = launching_ids_.try_emplace(device, 0);
  if (inserted) it->second = details_.id("launching work for GPU " + std::to_string(device));
  return it->second;
}

void HostThreads::explain(LaneIndex lane, std::int64_t device, TimeNs start_ns, TimeNs end_ns,
                          std::vector<Piece>& out) const {
  if (start_ns >= end_ns) return;
  const Layers& layers = lanes_[lane];
  std::vector<Interval> parts{{start_ns, end_ns}}, rest;
  auto keep = [&](const Piece& span, TimeNs s, TimeNs e) { out.push_back({s, e, span.cause, span.detail}); };
  cut(layers.blocked, parts, rest, keep);
  parts.swap(rest);
  rest.clear();
  cut(layers.warmup, parts, rest, keep);
  parts.swap(rest);
  rest.clear();
  cut(layers.launch_runs, parts, rest, [&](const Piece& run, TimeNs s, TimeNs e) {
    const auto run_device = static_cast<std::int64_t>(run.detail);
    if (run_device == device)
      out.push_back({s, e, IdleCause::HostBusy, busy_detail_});
    else
      out.push_back({s, e, IdleCause::HostLaunchingOther, launching_detail(run_device)});
  });
  for (const Interval& r : rest) out.push_back({r.start_ns, r.end_ns, IdleCause::HostBusy, busy_detail_});
}

}  // namespace gtv::analysis::idle
