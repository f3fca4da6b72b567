#include "dependency_join.h"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

#include "flow_join.h"

namespace gtv::dependency_join {
namespace {

// One GPU work item of a lane, in launch order.
struct Launched {
  std::uint64_t correlation_id;
  TimeNs start_ns;
  std::uint32_t index;
  friend bool operator<(const Launched& a, const Launched& b) {
    if (a.correlation_id != b.correlation_id) return a.correlation_id < b.correlation_id;
    return a.start_ns < b.start_ns;
  }
};

// The GPU lanes by device and by stream, and each lane's work in launch order, built on first use.
class GpuWork {
 public:
  explicit GpuWork(const std::vector<Lane>& lanes) : lanes_(lanes), by_lane_(lanes.size()), built_(lanes.size()) {
    for (LaneIndex l = 0; l < lanes.size(); ++l) {
      if (!lanes[l].is_gpu()) continue;
      by_device_[lanes[l].device()].push_back(l);
      by_stream_[lanes[l].stream()].push_back(l);
    }
  }

  // The lanes of (device, stream) with the fallbacks of TraceBuilder::WaitHint.
  [[nodiscard]] std::vector<LaneIndex> lanes_of(std::int64_t device, std::int64_t stream) const {
    if (stream < 0) {
      if (device < 0) return all_gpu_lanes();
      auto it = by_device_.find(device);
      return it == by_device_.end() ? std::vector<LaneIndex>{} : it->second;
    }
    auto it = by_stream_.find(stream);
    if (it == by_stream_.end()) return {};
    std::vector<LaneIndex> on_device;
    for (LaneIndex l : it->second)
      if (lanes_[l].device() == device) on_device.push_back(l);
    return device < 0 || on_device.empty() ? it->second : on_device;
  }

  // Of the work launched before `correlation` on these lanes, the one that ends last.
  [[nodiscard]] std::optional<EventRef> last_launched_before(const std::vector<LaneIndex>& lanes,
                                                             std::uint64_t correlation) {
    std::optional<EventRef> best;
    for (LaneIndex l : lanes) {
      const std::vector<Launched>& work = launched(l);
      // Sorted by correlation id, then start: the element before the first with this id or a later one. On one
      // stream the work launched last ends last.
      auto it = std::lower_bound(work.begin(), work.end(), correlation,
                                 [](const Launched& w, std::uint64_t id) { return w.correlation_id < id; });
      if (it == work.begin()) continue;
      const EventRef candidate{l, std::prev(it)->index};
      if (!best || end_of(candidate) > end_of(*best)) best = candidate;
    }
    return best;
  }

  // last_launched_before(lanes_of(device, -1), correlation) for each wait on every stream of a device, all at
  // once: the device's work is swept once in launch order, each lane's last work so far kept by its end, so a GPU
  // with many streams and many context synchronizes costs (work + waits) x log, not their product. Other waits:
  // nullopt.
  [[nodiscard]] std::vector<std::optional<EventRef>> last_on_every_stream(
      const std::vector<TraceBuilder::WaitHint>& waits) {
    std::vector<std::optional<EventRef>> out(waits.size());
    std::map<std::int64_t, std::vector<std::size_t>> by_device;
    for (std::size_t i = 0; i < waits.size(); ++i)
      if (waits[i].source_stream < 0) by_device[waits[i].source_device].push_back(i);
    for (auto& [device, ids] : by_device) {
      const std::vector<LaneIndex> lanes = lanes_of(device, -1);
      std::vector<Item> items;
      for (std::uint32_t p = 0; p < lanes.size(); ++p) {
        const std::vector<Launched>& work = launched(lanes[p]);
        for (std::uint32_t q = 0; q < work.size(); ++q)
          items.push_back({work[q].correlation_id, work[q].start_ns, p, q});
      }
      std::sort(items.begin(), items.end());
      std::stable_sort(ids.begin(), ids.end(), [&](std::size_t a, std::size_t b) {
        return waits[a].source_before_correlation < waits[b].source_before_correlation;
      });
      constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
      std::vector<std::uint32_t> current(lanes.size(), kNone);  // per lane: its last work so far
      // The lanes' last works by end, ties to the lane listed first (as last_launched_before keeps the first).
      std::set<std::pair<TimeNs, std::int64_t>> ends;
      const auto end_at = [&](std::uint32_t p) {
        return std::make_pair(end_of({lanes[p], launched(lanes[p])[current[p]].index}), -std::int64_t(p));
      };
      std::size_t next = 0;
      for (const std::size_t i : ids) {
        for (; next < items.size() && items[next].correlation_id < waits[i].source_before_correlation; ++next) {
          const std::uint32_t p = items[next].lane;
          if (current[p] != kNone) ends.erase(end_at(p));
          current[p] = items[next].position;
          ends.insert(end_at(p));
        }
        if (ends.empty()) continue;
        const auto p = std::uint32_t(-ends.rbegin()->second);
        out[i] = EventRef{lanes[p], launched(lanes[p])[current[p]].index};
      }
    }
    return out;
  }

  // Of the work launched after `correlation` on these lanes, the one launched first.
  [[nodiscard]] std::optional<EventRef> first_launched_after(const std::vector<LaneIndex>& lanes,
                                                             std::uint64_t correlation) {
    std::optional<std::pair<Launched, LaneIndex>> best;
    for (LaneIndex l : lanes) {
      const std::vector<Launched>& work = launched(l);
      auto it = std::upper_bound(work.begin(), work.end(), correlation,
                                 [](std::uint64_t id, const Launched& w) { return id < w.correlation_id; });
      if (it == work.end()) continue;
      if (!best || *it < best->first) best = std::make_pair(*it, l);
    }
    if (!best) return std::nullopt;
    return EventRef{best->second, best->first.index};
  }

 private:
  // One work item of a set of lanes: in launch order, then by lane and by its place in the lane's launch order.
  struct Item {
    std::uint64_t correlation_id;
    TimeNs start_ns;
    std::uint32_t lane;      // index into the set
    std::uint32_t position;  // index into the lane's launched()
    friend bool operator<(const Item& a, const Item& b) {
      return std::tie(a.correlation_id, a.start_ns, a.lane, a.position) <
             std::tie(b.correlation_id, b.start_ns, b.lane, b.position);
    }
  };

  [[nodiscard]] std::vector<LaneIndex> all_gpu_lanes() const {
    std::vector<LaneIndex> out;
    for (const auto& [device, lanes] : by_device_) out.insert(out.end(), lanes.begin(), lanes.end());
    return out;
  }
  [[nodiscard]] TimeNs end_of(EventRef ref) const { return lanes_[ref.lane].events[ref.index].end_ns(); }
  const std::vector<Launched>& launched(LaneIndex l) {
    if (built_[l]) return by_lane_[l];
    built_[l] = true;
    std::vector<Launched>& work = by_lane_[l];
    const std::vector<Event>& events = lanes_[l].events;
    for (std::uint32_t i = 0; i < events.size(); ++i)
      if (is_gpu_activity(events[i].kind) && events[i].correlation_id != kNoCorrelation)
        work.push_back({events[i].correlation_id, events[i].start_ns, i});
    std::sort(work.begin(), work.end());
    return work;
  }

  const std::vector<Lane>& lanes_;
  std::map<std::int64_t, std::vector<LaneIndex>> by_device_;
  std::map<std::int64_t, std::vector<LaneIndex>> by_stream_;
  std::vector<std::vector<Launched>> by_lane_;
  std::vector<bool> built_;
};

// The event of a host lane that starts at ts_ns: a Sync event if one does, else the deepest.
std::optional<std::uint32_t> host_waiter(const Lane& lane, TimeNs ts_ns) {
  const std::vector<Event>& events = lane.events;
  auto it =
      std::lower_bound(events.begin(), events.end(), ts_ns, [](const Event& e, TimeNs t) { return e.start_ns < t; });
  std::optional<std::uint32_t> found;
  for (; it != events.end() && it->start_ns == ts_ns; ++it) {
    const auto i = static_cast<std::uint32_t>(it - events.begin());
    const bool sync = it->kind == EventKind::Sync;
    const bool found_sync = found && events[*found].kind == EventKind::Sync;
    const bool better = !found || (sync && !found_sync) || (sync == found_sync && it->depth > events[*found].depth);
    if (better) found = i;
  }
  return found;
}

}  // namespace

std::vector<Flow> join(const std::vector<Lane>& lanes, const std::vector<TraceBuilder::FlowHint>& pairs,
                       const std::vector<TraceBuilder::WaitHint>& waits) {
  std::vector<Flow> links = flow_join::join_hints(lanes, pairs, FlowKind::Dependency);
  if (!waits.empty()) {
    std::map<LaneKey, LaneIndex> lane_by_key;
    for (LaneIndex l = 0; l < lanes.size(); ++l) lane_by_key.emplace(lanes[l].key, l);
    GpuWork work(lanes);
    const std::vector<std::optional<EventRef>> on_every_stream = work.last_on_every_stream(waits);
    for (std::size_t i = 0; i < waits.size(); ++i) {
      const TraceBuilder::WaitHint& w = waits[i];
      const std::optional<EventRef> from =
          w.source_stream < 0
              ? on_every_stream[i]
              : work.last_launched_before(work.lanes_of(w.source_device, w.source_stream), w.source_before_correlation);
      if (!from) continue;
      std::optional<EventRef> to;
      if (w.waiter == TraceBuilder::Waiter::StreamWork) {
        if (w.waiter_stream >= 0)
          to = work.first_launched_after(work.lanes_of(w.waiter_device, w.waiter_stream), w.wait_correlation);
      } else if (auto lane = lane_by_key.find(w.waiter_lane); lane != lane_by_key.end()) {
        if (auto index = host_waiter(lanes[lane->second], w.waiter_ts_ns)) to = EventRef{lane->second, *index};
      }
      if (to && !(*to == *from)) links.push_back({w.wait_correlation, *from, *to, FlowKind::Dependency});
    }
  }
  // Each pair of ends once, the first link that joined it kept.
  std::set<std::pair<std::pair<LaneIndex, std::uint32_t>, std::pair<LaneIndex, std::uint32_t>>> seen;
  std::vector<Flow> unique;
  unique.reserve(links.size());
  for (const Flow& link : links)
    if (seen.insert({{link.from.lane, link.from.index}, {link.to.lane, link.to.index}}).second) unique.push_back(link);
  return unique;
}

}  // namespace gtv::dependency_join
