// Why the GPUs were idle: each idle instant of each GPU inside the region takes its cause from the region's critical
// path at that instant. What bounded the region then is what kept this GPU from being needed sooner, or from being
// given work: removing it would shorten the region, and this GPU's idle time with it.
#include "gtv/analysis/idle_causes.h"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <tuple>

#include "causes/idle_causes_parts.h"
#include "causes/silent_ranges.h"
#include "gtv/analysis/format.h"
#include "gtv/model/ranks.h"

namespace gtv::analysis {
namespace {

using causal::SegmentKind;
using idle::Details;
using idle::Piece;

struct DeviceWork {
  std::int64_t device = 0;
  std::vector<Interval> busy;  // merged, unclipped
};

std::vector<DeviceWork> collect_devices(const Trace& trace) {
  std::map<std::int64_t, DeviceWork> by_device;
  for (const Lane& lane : trace.lanes()) {
    if (!lane.is_gpu()) continue;
    const std::vector<Interval> busy = lane_busy_intervals(lane);
    if (busy.empty()) continue;
    DeviceWork& w = by_device[lane.device()];
    w.device = lane.device();
    w.busy.insert(w.busy.end(), busy.begin(), busy.end());  // merged once below: a GPU may have 100k streams
  }
  std::vector<DeviceWork> out;
  for (auto& [device, w] : by_device) {
    merge_in_place(w.busy);
    out.push_back(std::move(w));
  }
  return out;
}

// The idle pieces of one GPU inside the region, in time order.
std::vector<Interval> idle_pieces(const DeviceWork& w, const Region& region) {
  std::vector<Interval> out;
  TimeNs cursor = region.start_ns;
  for (const Interval& b : w.busy) {
    if (b.end_ns <= cursor) continue;
    if (b.start_ns >= region.end_ns) break;
    if (b.start_ns > cursor) out.push_back({cursor, b.start_ns});
    cursor = std::max(cursor, b.end_ns);
  }
  if (cursor < region.end_ns) out.push_back({cursor, region.end_ns});
  return out;
}

// A piece before the waits' budget is applied: the cause index of the wait it was reached through, if any.
struct RawPiece {
  Piece piece;
  int via_cause = -1;              // GPU work the host waited for in this cause's call
  int own_cause = -1;              // the cause's own time (a wait's return, a load, a tracer record)
  std::int64_t awaited_rank = -1;  // the path ran on this rank and came back to the GPU's rank through a collective
};

class DeviceExplainer {
 public:
  DeviceExplainer(const Trace& trace, const CriticalPathAnalysis& critical, const idle::Imbalance& imbalance,
                  const Stragglers* stragglers, Details& details)
      : trace_(trace), critical_(critical), imbalance_(imbalance), details_(details) {
    if (stragglers != nullptr) add_peer_waits(*stragglers);
    unknown_ = details_.id("no recorded input explains it");
    own_work_ = details_.id("the host's own work between CUDA calls");
    lead_in_ = details_.id("the thread's work before its first CUDA call, which no replay removes");
    tracing_ = details_.id("the tracer's own work on the host: CUPTI buffer requests, instrumentation");
    lazy_ = details_.id("lazy module loading");
    staging_ = details_.id(
        "staging a copy from pageable memory in a pinned buffer: its async copy call, from its start to the copy's "
        "start on the GPU");
  }

  // The pieces of one GPU's idle time, each with the cause of the path segment running then.
  [[nodiscard]] std::vector<Piece> explain(const DeviceWork& w, const Region& region) {
    std::vector<RawPiece> raw;
    const std::vector<PathSegment>& segs = critical_.segments;
    std::size_t k = 0;
    for (const Interval& idle : idle_pieces(w, region)) {
      while (k < segs.size() && segs[k].end_ns <= idle.start_ns) ++k;
      TimeNs cursor = idle.start_ns;
      for (std::size_t j = k; j < segs.size() && segs[j].start_ns < idle.end_ns; ++j) {
        const TimeNs a = std::max(cursor, segs[j].start_ns), b = std::min(idle.end_ns, segs[j].end_ns);
        if (a < b) {
          if (a > cursor) raw.push_back({{cursor, a, IdleCause::Unknown, unknown_}, -1});
          const RawPiece p = classify(segs[j], j, w.device, a, b);
          if (p.awaited_rank >= 0 && waits_known_)
            split_by_peer_waits(p, trace_.rank_of_device(w.device)->rank, raw);
          else
            raw.push_back(p);
          cursor = b;
        }
      }
      if (cursor < idle.end_ns) raw.push_back({{cursor, idle.end_ns, IdleCause::Unknown, unknown_}, -1});
    }
    return apply_wait_budgets(std::move(raw));
  }

  // The cause index (into critical_.causes) a piece's time counts for, for the savings shown beside totals.
  [[nodiscard]] int cause_index_of(IdleCause cause, std::uint32_t detail) const {
    const auto it = cause_index_.find({cause, detail});
    return it == cause_index_.end() ? -1 : it->second;
  }

 private:
  void add_peer_waits(const Stragglers& s) {
    peer_waits_ = peer_wait_intervals(s);
    for (const CollectiveArrivals& c : s.collectives)
      waits_known_ = waits_known_ || (c.analysed && !c.clock_inconsistent);
  }

  // A GPU's idle time while the path ran on the rank its own rank later waited for is waiting for that rank only
  // while its rank waited at a collective: removing the peer's lateness gives back that wait and no more. The rest
  // of the time its rank did its own work off the critical path.
  void split_by_peer_waits(const RawPiece& p, std::int64_t own, std::vector<RawPiece>& raw) {
    const std::vector<Interval>& waits = peer_waits_[{own, p.awaited_rank}];
    const std::uint32_t not_waiting = details_.id("rank " + std::to_string(p.awaited_rank) +
                                                  "'s work (the critical path was there; this rank was not waiting "
                                                  "for it then)");
    TimeNs cursor = p.piece.start_ns;
    auto it =
        std::upper_bound(waits.begin(), waits.end(), cursor, [](TimeNs t, const Interval& w) { return t < w.end_ns; });
    for (; it != waits.end() && it->start_ns < p.piece.end_ns; ++it) {
      const TimeNs a = std::max(cursor, it->start_ns), b = std::min(p.piece.end_ns, it->end_ns);
      if (a > cursor) raw.push_back({{cursor, a, IdleCause::OtherGpuBound, not_waiting}, -1, -1});
      raw.push_back({{a, b, IdleCause::PeerRank, p.piece.detail}, -1, -1});
      cursor = b;
    }
    if (cursor < p.piece.end_ns)
      raw.push_back({{cursor, p.piece.end_ns, IdleCause::OtherGpuBound, not_waiting}, -1, -1});
  }

  RawPiece classify(const PathSegment& s, std::size_t index, std::int64_t device, TimeNs a, TimeNs b) {
    // Host time's cause is its own (the saving of removing it); GPU time's is the wait that reached it, if any.
    auto piece = [&](IdleCause c, std::uint32_t d) {
      const int own = s.device < 0 ? s.cause : -1;
      if (own >= 0) cause_index_.try_emplace({c, d}, own);
      return RawPiece{{a, b, c, d}, -1, own};
    };
    if (const RankInfo* theirs = other_rank(s, device)) {
      // This rank waited for theirs only when the path comes back to it later (through a collective); otherwise
      // their work set the region's end and nothing of this rank was waited for.
      const RankInfo* own = trace_.rank_of_device(device);
      // Their thread silent inside a collective was waiting for the other ranks, this one among them: what held it
      // up is no recorded link (ranks meet at collectives the graph does not join across them).
      if (const auto waited = their_collective_wait(s, *theirs))
        return RawPiece{{a, b, IdleCause::Unknown, *waited}, -1, -1};
      if (returns_to(own, index))
        return RawPiece{{a, b, IdleCause::PeerRank, details_.id("waiting for rank " + std::to_string(theirs->rank))},
                        -1,
                        -1,
                        theirs->rank};
      // Where their thread recorded nothing, the path ran through time no record calls work.
      const char* what = s.kind == SegmentKind::NotRecorded ? "'s unrecorded time" : "'s work";
      return RawPiece{{a, b, IdleCause::OtherGpuBound,
                       details_.id("rank " + std::to_string(theirs->rank) + what +
                                   " (the critical path stayed there: nothing of this rank held it up)")},
                      -1,
                      -1};
    }
    const bool gpu_node = s.device >= 0;
    switch (s.kind) {
      case SegmentKind::Communication:
        return piece(IdleCause::PeerRank, details_.id("a collective's transfer after the last rank arrived"));
      case SegmentKind::HostLaunch:
        return piece(IdleCause::HostLaunching, launching_detail(s, device));
      case SegmentKind::HostSyncCall:
      case SegmentKind::SyncWake:
        return piece(IdleCause::HostBlocked, wait_detail(s));
      case SegmentKind::HostCall:
        if (s.first_use >= 0)
          return piece(IdleCause::WarmUp, details_.id(std::string(to_string(static_cast<WarmUpCause>(s.first_use)))));
        return piece(IdleCause::HostBusy, details_.id("in " + std::string(trace_.name(trace_.event(s.event)))));
      case SegmentKind::LazyLoading:
        return piece(IdleCause::WarmUp, lazy_);
      case SegmentKind::TracingOverhead:
        return piece(IdleCause::TracingOverhead, tracing_);
      case SegmentKind::HostOwnWork:
        return piece(IdleCause::HostBusy, s.cause < 0 ? lead_in_ : own_work_);
      case SegmentKind::NotRecorded:
        return piece(IdleCause::Unknown, gpu_node || !s.has_event ? unknown_ : silent_thread(s));
      default:
        break;
    }
    if (!gpu_node) return piece(IdleCause::Unknown, unknown_);
    if (s.device == device) {
      const std::string stream = "stream " + std::to_string(trace_.lane(s.event.lane).stream());
      if (s.kind == SegmentKind::EventWait)
        return piece(IdleCause::WaitingOnDependency, details_.id(stream + ", an event wait"));
      if (s.kind == SegmentKind::LaunchLatency) {
        if (s.start_wait == GpuStartWait::StagedCopy) return piece(IdleCause::HostBusy, staging_);
        return piece(IdleCause::QueuedGap, details_.id(stream + ", the GPU starting work after its launch"));
      }
      return piece(IdleCause::QueuedGap, details_.id(stream + queued_detail(s.start_wait)));
    }
    // Another GPU's work (or its start) bounded the region: through a wait, the wait is blamed up to its budget.
    return RawPiece{{a, b, IdleCause::OtherGpuBound, details_.id(imbalance_.detail(device, s.device))}, s.cause, -1};
  }

  // A cause is blamed for at most what removing it gives back (its saving) of one GPU's idle time: its own time
  // first (a wait's return, the load itself, the host's work), the latest first, then the GPU work the host waited
  // for in it, counted from the wait backwards (the time nearest the waiting call first); the rest of that work is
  // its own time, and the rest of a cause's own time is idle time no single removal gives back.
  std::vector<Piece> apply_wait_budgets(std::vector<RawPiece> raw) {
    std::map<int, TimeNs> own_budget, budget;
    for (const RawPiece& r : raw)
      if (r.own_cause >= 0) own_budget.try_emplace(r.own_cause, saving_of(r.own_cause));
    std::vector<Piece> out;
    out.reserve(raw.size());
    for (auto it = raw.rbegin(); it != raw.rend(); ++it) {
      if (it->own_cause < 0) continue;
      Piece p = it->piece;
      TimeNs& left = own_budget[it->own_cause];
      const TimeNs take = std::min(left, p.end_ns - p.start_ns);
      left -= take;
      if (take > 0) out.push_back({p.end_ns - take, p.end_ns, p.cause, p.detail});
      if (p.end_ns - take > p.start_ns)
        out.push_back({p.start_ns, p.end_ns - take, IdleCause::Unknown, beyond_saving(it->own_cause)});
    }
    for (const RawPiece& r : raw)
      if (r.via_cause >= 0 && !budget.count(r.via_cause)) {
        const auto own = own_budget.find(r.via_cause);
        budget[r.via_cause] = own == own_budget.end() ? saving_of(r.via_cause) : own->second;
      }
    for (auto it = raw.rbegin(); it != raw.rend(); ++it) {
      if (it->own_cause >= 0) continue;
      Piece p = it->piece;
      if (it->via_cause < 0) {
        out.push_back(p);
        continue;
      }
      const CauseSaving& cause = critical_.causes[std::size_t(it->via_cause)];
      const auto b = budget.find(it->via_cause);
      const TimeNs take = std::min(b->second, p.end_ns - p.start_ns);
      b->second -= take;
      if (take > 0) {
        const std::uint32_t detail = details_.id(blocked_detail(cause));
        cause_index_.try_emplace({IdleCause::HostBlocked, detail}, it->via_cause);
        out.push_back({p.end_ns - take, p.end_ns, IdleCause::HostBlocked, detail});
      }
      if (p.end_ns - take > p.start_ns)
        out.push_back({p.start_ns, p.end_ns - take, IdleCause::OtherGpuBound, p.detail});
    }
    return out;  // add_intervals sorts them
  }

  [[nodiscard]] TimeNs saving_of(int cause) const {
    return std::max<TimeNs>(0, critical_.causes[std::size_t(cause)].saving_ns);
  }

  // The detail of idle time a cause was on the path for beyond what removing it gives back.
  std::uint32_t beyond_saving(int cause) {
    const CauseSaving& c = critical_.causes[std::size_t(cause)];
    // "the host's waits in cudaFree", "other CUDA calls", "the host's launch calls", "first-use calls": plural.
    const bool plural = c.key == "wait" || c.key == "host_call" || c.key == "host_launch" || c.key == "first_use";
    return details_.id("no one cause: " + c.cause + (plural ? " were" : " was") +
                       " on the critical path, but removing " + (plural ? "them" : "it") + " gives back only " +
                       format_duration(c.saving_ns) + " of " + critical_.region.name);
  }

  static std::string blocked_detail(const CauseSaving& c) {
    return c.key == "lazy_loading" ? "lazy module loading drained the GPU" : c.detail;
  }

  std::uint32_t wait_detail(const PathSegment& s) {
    if (s.cause >= 0) return details_.id(blocked_detail(critical_.causes[std::size_t(s.cause)]));
    return details_.id(std::string(trace_.name(trace_.event(s.event))));
  }

  // "thread 529 recorded nothing then: ...": the path ran through a stretch of a host thread with no recorded event.
  // Inside a range that says what the thread waited for (a collective on the thread that serves it, a
  // multiprocessing DataLoader's __next__), the range names it.
  std::uint32_t silent_thread(const PathSegment& s) {
    const Lane& lane = trace_.lane(s.event.lane);
    const std::string who = gtv::rank_prefix(trace_, lane) + "thread " + std::to_string(lane.key.tid);
    const detail::SilentContext inside = detail::silent_context(trace_, lane, s.start_ns);
    if (inside.event != nullptr)
      return details_.id(who + " recorded nothing inside " + std::string(trace_.name(*inside.event)) + ": " +
                         std::string(detail::silent_meaning(inside.range)));
    return details_.id(who + " recorded nothing then: waiting, or in code nobody recorded");
  }

  // The detail of another rank's thread silent inside a collective range, none when it is not.
  std::optional<std::uint32_t> their_collective_wait(const PathSegment& s, const RankInfo& theirs) {
    if (s.kind != SegmentKind::NotRecorded || !s.has_event) return std::nullopt;
    const Lane& lane = trace_.lane(s.event.lane);
    if (lane.is_gpu()) return std::nullopt;
    const detail::SilentContext inside = detail::silent_context(trace_, lane, s.start_ns);
    if (inside.range != ShareContext::InsideCollective) return std::nullopt;
    return details_.id("rank " + std::to_string(theirs.rank) + " · thread " + std::to_string(lane.key.tid) +
                       " waiting inside " + std::string(trace_.name(*inside.event)) +
                       " for the other ranks, this one among them; no recorded link between the ranks' collectives "
                       "says which held it up");
  }

  // What the recording shows of why the next work of a stream had not started when its previous work ended.
  static std::string queued_detail(GpuStartWait wait) {
    switch (wait) {
      case GpuStartWait::DispatchGap:
        return ", the GPU starting the next queued work: its dispatch gap, under " + format_duration(kDispatchGapNs) +
               " after the previous work ended";
      case GpuStartWait::LaunchStillRunning:
        return ", its launch call still running when the previous work ended";
      case GpuStartWait::QueuedLonger:
        return ", queued before the previous work ended but started more than " + format_duration(kDispatchGapNs) +
               " after it: no recorded input says why";
      case GpuStartWait::StagedCopy:
      case GpuStartWait::None:
        break;
    }
    return ", started after the previous work ended: no recorded input says why";
  }

  // "launching work for GPU 0", or "launching this GPU's next work".
  std::uint32_t launching_detail(const PathSegment& s, std::int64_t device) {
    std::int64_t target = -1;
    for (const Flow& f : trace_.flows_from(s.event)) {
      target = trace_.lane(f.to.lane).device();
      break;
    }
    if (target == device) return details_.id("launching this GPU's next work");
    if (target < 0) return details_.id("launching work");
    return details_.id("launching work for " + gtv::gpu_label(trace_, target));
  }

  // In a run merged from ranks: time on another rank's thread or GPU than this GPU's rank is waiting for that rank.
  // The rank of a path segment's event, nullptr when it has none or the trace is not a merged run.
  const RankInfo* rank_of_segment(const PathSegment& s) const {
    if (trace_.metadata().ranks.empty() || !s.has_event) return nullptr;
    const Lane& lane = trace_.lane(s.event.lane);
    return lane.is_gpu() ? trace_.rank_of_device(lane.device()) : trace_.rank_of_pid(lane.key.pid);
  }

  // The rank the path ran on at s when it is not the rank of `device`.
  const RankInfo* other_rank(const PathSegment& s, std::int64_t device) const {
    const RankInfo* theirs = rank_of_segment(s);
    const RankInfo* own = theirs == nullptr ? nullptr : trace_.rank_of_device(device);
    return own == nullptr || own == theirs ? nullptr : theirs;
  }

  // Whether a segment after `index` runs on rank `own`.
  bool returns_to(const RankInfo* own, std::size_t index) {
    if (last_segment_.empty() && !critical_.segments.empty()) {
      for (std::size_t j = 0; j < critical_.segments.size(); ++j)
        if (const RankInfo* r = rank_of_segment(critical_.segments[j])) last_segment_[r] = j;
      last_segment_.try_emplace(nullptr, 0);  // computed
    }
    const auto it = last_segment_.find(own);
    return it != last_segment_.end() && it->second > index;
  }

  const Trace& trace_;
  const CriticalPathAnalysis& critical_;
  const idle::Imbalance& imbalance_;
  Details& details_;
  std::map<std::pair<IdleCause, std::uint32_t>, int> cause_index_;
  std::map<const RankInfo*, std::size_t> last_segment_;  // per rank, its last segment on the path
  PeerWaitIntervals peer_waits_;
  bool waits_known_ = false;  // the run's collectives were matched and their waits told
  std::uint32_t unknown_ = 0, own_work_ = 0, lead_in_ = 0, tracing_ = 0, lazy_ = 0, staging_ = 0;
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

// Per cause and removal (one row per cause that removing gives back, so a row's total never mixes savings): the
// total, the number of intervals, the detail with the most time and, for a removable cause, the saving its removal
// was replayed to give. Idle time no removal explains has one row per detail: its detail is what the row claims
// (a thread's silence, a collective's transfer), so it names all of the row's time.
void add_totals(std::int64_t device, std::span<const IdleInterval> intervals, const Details& details,
                const DeviceExplainer& explainer, const CriticalPathAnalysis& critical, IdleCauses& out) {
  struct Sum {
    TimeNs total_ns = 0;
    std::size_t count = 0;
    std::map<std::string, TimeNs> by_detail;
  };
  std::map<std::tuple<int, int, std::string>, Sum> sums;  // (cause, index of its removal or -1, detail if -1)
  std::map<std::pair<int, std::string>, int> removal_of;  // (cause, detail) -> removal, looked up once each
  for (const IdleInterval& i : intervals) {
    auto [it, inserted] = removal_of.try_emplace({static_cast<int>(i.cause), i.detail}, -1);
    if (inserted) it->second = explainer.cause_index_of(i.cause, details.find(i.detail));
    Sum& s = sums[{static_cast<int>(i.cause), it->second, it->second < 0 ? i.detail : std::string()}];
    s.total_ns += i.end_ns - i.start_ns;
    ++s.count;
    s.by_detail[i.detail] += i.end_ns - i.start_ns;
  }
  std::vector<IdleCauseTotal> totals;
  for (const auto& [key, s] : sums) {
    auto top = std::max_element(s.by_detail.begin(), s.by_detail.end(),
                                [](const auto& a, const auto& b) { return a.second < b.second; });
    IdleCauseTotal t{device, static_cast<IdleCause>(std::get<0>(key)), top->first, s.total_ns, s.count, -1};
    if (std::get<1>(key) >= 0) t.saving_ns = critical.causes[std::size_t(std::get<1>(key))].saving_ns;
    totals.push_back(std::move(t));
  }
  std::stable_sort(totals.begin(), totals.end(),
                   [](const IdleCauseTotal& a, const IdleCauseTotal& b) { return a.total_ns > b.total_ns; });
  out.totals.insert(out.totals.end(), totals.begin(), totals.end());
}

}  // namespace

std::string_view to_string(IdleCause cause) { return entry_of(kIdleCauses, cause).words; }

std::string_view idle_cause_key(IdleCause cause) { return entry_of(kIdleCauses, cause).key; }

IdleCauses analyze_idle_causes(const Trace& trace, const Region& region, const CriticalPathAnalysis& critical,
                               const Stragglers* stragglers) {
  IdleCauses out;
  out.region = region;
  const std::vector<DeviceWork> devices = collect_devices(trace);
  for (const DeviceWork& w : devices) {
    const TimeNs busy_ns = length_within_ns(w.busy, region.start_ns, region.end_ns);
    out.gpus.push_back({w.device, busy_ns, region.length_ns() - busy_ns, gtv::gpu_label(trace, w.device)});
  }
  if (!devices.empty() && region.length_ns() > 0) {
    Details details;
    const idle::Imbalance imbalance(trace, region, out.gpus);
    DeviceExplainer explainer(trace, critical, imbalance, stragglers, details);
    for (const DeviceWork& w : devices) {
      const std::size_t first = out.intervals.size();
      add_intervals(w.device, explainer.explain(w, region), details, out);
      add_totals(w.device, std::span(out.intervals).subspan(first), details, explainer, critical, out);
    }
  }
  out.lines = idle::idle_lines(out);
  out.headline = idle::idle_headline(out);
  return out;
}

}  // namespace gtv::analysis
