#include "flow_join.h"

#include <algorithm>
#include <bit>

namespace gtv::flow_join {
namespace {

// Host launches are preferred in this order when several host events share a correlation id.
int launch_priority(EventKind kind) {
  switch (kind) {
    case EventKind::Runtime:
      return 3;
    case EventKind::Driver:
      return 2;
    case EventKind::CpuOp:
      return 0;  // Kineto's cpu_op carries External id, not correlation: never a launch
    default:
      return 1;
  }
}

// One number per event over all lanes (lane by lane), for flat per-event tables.
class EventNumbers {
 public:
  explicit EventNumbers(const std::vector<Lane>& lanes) {
    first_.reserve(lanes.size());
    for (const Lane& lane : lanes) {
      first_.push_back(total_);
      total_ += lane.events.size();
    }
  }
  [[nodiscard]] std::size_t of(EventRef ref) const { return first_[ref.lane] + ref.index; }
  [[nodiscard]] std::size_t total() const { return total_; }

 private:
  std::vector<std::size_t> first_;
  std::size_t total_ = 0;
};

// Correlation id -> launching host event. Correlation ids from CUPTI and Kineto count up from a small number, so
// they usually index a flat array (cache-friendly: launches and GPU work come in id order); sparse ids go to an
// open-addressing hash table with linear probing instead.
class LaunchTable {
 public:
  explicit LaunchTable(const std::vector<Lane>& lanes) : lanes_(lanes) {
    std::size_t launches = 0;
    std::uint64_t lo = ~std::uint64_t{0}, hi = 0;
    for_each_launch([&](const Event& e, EventRef) {
      ++launches;
      lo = std::min(lo, e.correlation_id);
      hi = std::max(hi, e.correlation_id);
    });
    if (launches == 0) return;
    dense_ = hi - lo < 4 * static_cast<std::uint64_t>(launches);
    first_id_ = dense_ ? lo : 0;
    const std::size_t capacity = dense_ ? static_cast<std::size_t>(hi - lo + 1) : std::bit_ceil(launches * 2);
    if (!dense_) shift_ = 64 - std::countr_zero(capacity);  // hash to the top log2(capacity) bits
    slots_.assign(capacity, Slot{});
    for_each_launch([&](const Event& e, EventRef ref) {
      Slot& slot = slot_for(e.correlation_id);
      if (slot.id == e.correlation_id && launch_priority(e.kind) <= launch_priority(event(slot.ref).kind)) return;
      slot = Slot{e.correlation_id, ref};
    });
  }
  // The launch with this correlation id, or nullptr.
  [[nodiscard]] const EventRef* find(std::uint64_t id) const {
    if (slots_.empty() || (dense_ && (id < first_id_ || id - first_id_ >= slots_.size()))) return nullptr;
    const Slot& slot = slots_[slot_index(id)];
    return slot.id == id ? &slot.ref : nullptr;
  }

 private:
  struct Slot {
    std::uint64_t id = kNoCorrelation;  // kNoCorrelation: free
    EventRef ref;
  };
  template <typename Visit>
  void for_each_launch(Visit visit) const {
    for (LaneIndex l = 0; l < lanes_.size(); ++l) {
      if (lanes_[l].is_gpu()) continue;
      const std::vector<Event>& events = lanes_[l].events;
      for (std::uint32_t i = 0; i < events.size(); ++i)
        if (events[i].correlation_id != kNoCorrelation && launch_priority(events[i].kind) > 0)
          visit(events[i], EventRef{l, i});
    }
  }
  // The slot holding id, or the free slot where it belongs (for a dense table, id must be within its range).
  [[nodiscard]] std::size_t slot_index(std::uint64_t id) const {
    if (dense_) return static_cast<std::size_t>(id - first_id_);
    const std::size_t mask = slots_.size() - 1;
    std::size_t s = (id * 0x9E3779B97F4A7C15ull) >> shift_;
    while (slots_[s].id != id && slots_[s].id != kNoCorrelation) s = (s + 1) & mask;
    return s;
  }
  Slot& slot_for(std::uint64_t id) { return slots_[slot_index(id)]; }
  [[nodiscard]] const Event& event(EventRef ref) const { return lanes_[ref.lane].events[ref.index]; }

  const std::vector<Lane>& lanes_;
  bool dense_ = false;
  std::uint64_t first_id_ = 0;
  int shift_ = 0;
  std::vector<Slot> slots_;
};

// std::lower_bound of ts by start, searched outward from cursor (galloping), which then moves to the result.
std::size_t lower_bound_near(const std::vector<Event>& events, TimeNs ts, std::size_t& cursor) {
  const std::size_t n = events.size();
  std::size_t lo = 0, hi = 0;  // the result is in [lo, hi]
  if (std::size_t c = std::min(cursor, n); c < n && events[c].start_ns < ts) {
    lo = hi = c + 1;
    for (std::size_t step = 1; hi < n && events[hi].start_ns < ts; step *= 2) {
      lo = hi + 1;
      hi = std::min(n, lo + step);
    }
  } else {
    lo = hi = c;
    for (std::size_t step = 1; lo > 0 && events[lo - 1].start_ns >= ts; step *= 2) {
      hi = lo - 1;
      lo = hi > step ? hi - step : 0;
    }
  }
  const auto first = events.begin() + static_cast<std::ptrdiff_t>(lo);
  const auto last = events.begin() + static_cast<std::ptrdiff_t>(hi);
  cursor = static_cast<std::size_t>(
      std::partition_point(first, last, [ts](const Event& e) { return e.start_ns < ts; }) - events.begin());
  return cursor;
}

// The deepest event of lane that starts exactly at ts, else the deepest one containing ts; -1 if none.
std::int64_t event_for_flow_end(const Lane& lane, TimeNs ts, std::size_t& cursor) {
  const std::vector<Event>& events = lane.events;
  const std::size_t first = lower_bound_near(events, ts, cursor);
  std::int64_t found = -1;
  auto deeper = [&](std::size_t i) {
    return found < 0 || events[i].depth > events[static_cast<std::size_t>(found)].depth;
  };
  for (std::size_t i = first; i < events.size() && events[i].start_ns == ts; ++i)
    if (deeper(i)) found = static_cast<std::int64_t>(i);
  if (found >= 0) return found;
  // Walk back over the events that may contain ts. All events before a depth-0 event ended by its start, so none
  // of them contains ts unless it ends exactly where that depth-0 event starts, which then contains ts as well.
  for (std::size_t i = first; i > 0;) {
    --i;
    const Event& e = events[i];
    if (e.start_ns <= ts && e.end_ns() >= ts && deeper(i)) found = static_cast<std::int64_t>(i);
    if (e.depth == 0) break;
  }
  return found;
}

template <typename Endpoint>
std::vector<std::uint32_t> order_by(const std::vector<Lane>& lanes, const std::vector<Flow>& flows, Endpoint endpoint) {
  const EventNumbers numbers(lanes);
  std::vector<std::uint32_t> order(flows.size());
  auto key = [&](std::uint32_t f) { return numbers.of(endpoint(flows[f])); };
  bool sorted = true;
  for (std::uint32_t f = 1; f < flows.size() && sorted; ++f) sorted = key(f - 1) <= key(f);
  if (sorted) {
    for (std::uint32_t f = 0; f < flows.size(); ++f) order[f] = f;
    return order;
  }
  std::vector<std::uint32_t> next(numbers.total() + 1, 0);  // counting sort: first position of each event
  for (std::uint32_t f = 0; f < flows.size(); ++f) ++next[key(f) + 1];
  for (std::size_t i = 1; i < next.size(); ++i) next[i] += next[i - 1];
  for (std::uint32_t f = 0; f < flows.size(); ++f) order[next[key(f)]++] = f;
  return order;
}

}  // namespace

std::vector<Flow> join(const std::vector<Lane>& lanes, const std::vector<TraceBuilder::FlowHint>& hints) {
  const LaunchTable launches(lanes);
  const EventNumbers numbers(lanes);
  std::vector<bool> joined(numbers.total(), false);  // `to` events of the flows joined by correlation id
  std::vector<Flow> flows;
  std::size_t gpu_events = 0;
  for (const Lane& lane : lanes)
    if (lane.is_gpu()) gpu_events += lane.events.size();
  flows.reserve(gpu_events);  // about one flow per GPU event in profiler traces
  for (LaneIndex l = 0; l < lanes.size(); ++l) {
    const Lane& lane = lanes[l];
    if (!lane.is_gpu()) continue;
    for (std::uint32_t i = 0; i < lane.events.size(); ++i) {
      const Event& e = lane.events[i];
      if (e.correlation_id == kNoCorrelation) continue;
      const EventRef* launch = launches.find(e.correlation_id);
      if (launch == nullptr) continue;
      flows.push_back({e.correlation_id, *launch, EventRef{l, i}});
      joined[numbers.of(EventRef{l, i})] = true;
    }
  }
  std::vector<std::size_t> cursors(lanes.size(), 0);
  for (const TraceBuilder::FlowHint& hint : hints) {
    // The `to` end first: most hints (Kineto's ac2g pairs) repeat a correlation join, and then `from` is not needed.
    const std::int64_t to = event_for_flow_end(lanes[hint.to_lane], hint.to_ts_ns, cursors[hint.to_lane]);
    if (to < 0) continue;
    const EventRef to_ref{hint.to_lane, static_cast<std::uint32_t>(to)};
    if (joined[numbers.of(to_ref)]) continue;  // already joined by correlation id
    const std::int64_t from = event_for_flow_end(lanes[hint.from_lane], hint.from_ts_ns, cursors[hint.from_lane]);
    if (from < 0) continue;
    flows.push_back({hint.id, EventRef{hint.from_lane, static_cast<std::uint32_t>(from)}, to_ref});
  }
  return flows;
}

std::vector<Flow> join_hints(const std::vector<Lane>& lanes, const std::vector<TraceBuilder::FlowHint>& hints,
                             FlowKind kind) {
  std::vector<Flow> flows;
  std::vector<std::size_t> cursors(lanes.size(), 0);
  for (const TraceBuilder::FlowHint& hint : hints) {
    const std::int64_t from = event_for_flow_end(lanes[hint.from_lane], hint.from_ts_ns, cursors[hint.from_lane]);
    const std::int64_t to = event_for_flow_end(lanes[hint.to_lane], hint.to_ts_ns, cursors[hint.to_lane]);
    if (from < 0 || to < 0) continue;
    flows.push_back({hint.id, EventRef{hint.from_lane, static_cast<std::uint32_t>(from)},
                     EventRef{hint.to_lane, static_cast<std::uint32_t>(to)}, kind});
  }
  return flows;
}

std::vector<std::uint32_t> order_by_from(const std::vector<Lane>& lanes, const std::vector<Flow>& flows) {
  return order_by(lanes, flows, [](const Flow& f) { return f.from; });
}

std::vector<std::uint32_t> order_by_to(const std::vector<Lane>& lanes, const std::vector<Flow>& flows) {
  return order_by(lanes, flows, [](const Flow& f) { return f.to; });
}

}  // namespace gtv::flow_join
