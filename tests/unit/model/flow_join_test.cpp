// Flows joined at build() against a plain reference (ordered maps, full scans) on random lanes: nesting, partial
// overlaps, equal start times, gaps, dense and sparse correlation ids, priorities, and hints in any order.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

#include "gtv/model/trace_builder.h"

namespace gtv {
namespace {

struct Hint {
  std::uint64_t id;
  LaneIndex from_lane;
  TimeNs from_ts;
  LaneIndex to_lane;
  TimeNs to_ts;
};

int priority(EventKind kind) {
  switch (kind) {
    case EventKind::Runtime:
      return 3;
    case EventKind::Driver:
      return 2;
    case EventKind::CpuOp:
      return 0;
    default:
      return 1;
  }
}

// The deepest event starting exactly at ts (the first of equal depth), else the deepest containing ts (the last of
// equal depth before the first event starting at or after ts); -1 if none. Scans the whole lane.
std::int64_t reference_end(const Lane& lane, TimeNs ts) {
  const auto& ev = lane.events;
  std::int64_t found = -1;
  auto deeper = [&](std::size_t i) { return found < 0 || ev[i].depth > ev[static_cast<std::size_t>(found)].depth; };
  std::size_t first = 0;
  while (first < ev.size() && ev[first].start_ns < ts) ++first;
  for (std::size_t i = first; i < ev.size() && ev[i].start_ns == ts; ++i)
    if (deeper(i)) found = static_cast<std::int64_t>(i);
  if (found >= 0) return found;
  for (std::size_t i = first; i-- > 0;)
    if (ev[i].start_ns <= ts && ev[i].end_ns() >= ts && deeper(i)) found = static_cast<std::int64_t>(i);
  return found;
}

std::vector<Flow> reference_flows(const Trace& t, const std::vector<Hint>& hints) {
  std::map<std::uint64_t, EventRef> launch;
  for (LaneIndex l = 0; l < t.lanes().size(); ++l) {
    if (t.lane(l).is_gpu()) continue;
    for (std::uint32_t i = 0; i < t.lane(l).events.size(); ++i) {
      const Event& e = t.lane(l).events[i];
      if (e.correlation_id == kNoCorrelation || priority(e.kind) == 0) continue;
      auto it = launch.find(e.correlation_id);
      if (it == launch.end() || priority(e.kind) > priority(t.event(it->second).kind))
        launch[e.correlation_id] = {l, i};
    }
  }
  std::vector<Flow> flows;
  for (LaneIndex l = 0; l < t.lanes().size(); ++l) {
    if (!t.lane(l).is_gpu()) continue;
    for (std::uint32_t i = 0; i < t.lane(l).events.size(); ++i) {
      const Event& e = t.lane(l).events[i];
      if (auto it = launch.find(e.correlation_id); e.correlation_id != kNoCorrelation && it != launch.end())
        flows.push_back({e.correlation_id, it->second, EventRef{l, i}});
    }
  }
  const std::size_t by_correlation = flows.size();
  for (const Hint& h : hints) {
    const std::int64_t to = reference_end(t.lane(h.to_lane), h.to_ts);
    if (to < 0) continue;
    const EventRef to_ref{h.to_lane, static_cast<std::uint32_t>(to)};
    if (std::any_of(flows.begin(), flows.begin() + static_cast<std::ptrdiff_t>(by_correlation),
                    [&](const Flow& f) { return f.to == to_ref; }))
      continue;
    const std::int64_t from = reference_end(t.lane(h.from_lane), h.from_ts);
    if (from >= 0) flows.push_back({h.id, EventRef{h.from_lane, static_cast<std::uint32_t>(from)}, to_ref});
  }
  return flows;
}

// flow_of: the first flow (in flow order) leaving the event, else the first arriving at it.
std::optional<Flow> reference_flow_of(const std::vector<Flow>& flows, EventRef ref) {
  for (const Flow& f : flows)
    if (f.from == ref) return f;
  for (const Flow& f : flows)
    if (f.to == ref) return f;
  return std::nullopt;
}

void run_case(std::uint32_t seed, bool sparse_ids) {
  std::mt19937 rng(seed);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  auto correlation = [&]() -> std::uint64_t {
    if (pick(0, 5) == 0) return kNoCorrelation;
    const auto small = static_cast<std::uint64_t>(pick(1, 120));
    return sparse_ids ? small * (std::uint64_t{1} << 40) + 3 : small;
  };
  TraceBuilder b;
  // Created in the order build() sorts them in, so lane indices stay what the hints say.
  const std::vector<LaneKey> keys = {host_lane_key(1, 1), host_lane_key(1, 2), gpu_lane_key(0, 7), gpu_lane_key(0, 13),
                                     gpu_lane_key(1, 7)};
  for (const LaneKey& key : keys) {
    const LaneIndex lane = b.lane(key);
    const EventKind host_kinds[] = {EventKind::Runtime, EventKind::Driver, EventKind::CpuOp, EventKind::Sync};
    for (int n = pick(0, 120); n > 0; --n) {
      Event e;
      e.start_ns = pick(0, 1000);
      e.duration_ns = pick(0, 3) == 0 ? 0 : pick(1, 60);
      e.kind = key.kind == LaneKind::GpuStream ? EventKind::Kernel : host_kinds[pick(0, 3)];
      e.correlation_id = correlation();
      b.add_event(lane, e);
    }
  }
  std::vector<Hint> hints;
  for (int n = pick(0, 150); n > 0; --n)
    hints.push_back({static_cast<std::uint64_t>(pick(1, 500)), static_cast<LaneIndex>(pick(0, 4)), pick(-10, 1070),
                     static_cast<LaneIndex>(pick(0, 4)), pick(-10, 1070)});
  for (const Hint& h : hints) b.add_flow_hint(h.id, h.from_lane, h.from_ts, h.to_lane, h.to_ts);
  Expected<Trace> t = b.build();
  ASSERT_TRUE(t.ok()) << t.error().message;
  for (LaneIndex l = 0; l < keys.size(); ++l) ASSERT_EQ(t->lane(l).key, keys[l]);
  const std::vector<Flow> expected = reference_flows(*t, hints);
  ASSERT_EQ(t->flows(), expected) << "seed " << seed;
  for (LaneIndex l = 0; l < keys.size(); ++l)
    for (std::uint32_t i = 0; i < t->lane(l).events.size(); ++i)
      ASSERT_EQ(t->flow_of(EventRef{l, i}), reference_flow_of(expected, EventRef{l, i})) << "seed " << seed;
}

TEST(FlowJoin, MatchesTheReferenceWithDenseCorrelationIds) {
  for (std::uint32_t seed = 1; seed <= 300; ++seed) run_case(seed, false);
}

TEST(FlowJoin, MatchesTheReferenceWithSparseCorrelationIds) {
  for (std::uint32_t seed = 1; seed <= 300; ++seed) run_case(seed, true);
}

TEST(FlowJoin, HintsInAnyOrderFindTheSameEvents) {
  // One kernel per 10 ns on a stream and a launch 5 ns before each: hints given backwards, then shuffled.
  for (const bool shuffled : {false, true}) {
    TraceBuilder b;
    const LaneIndex host = b.lane(host_lane_key(1, 1));
    const LaneIndex gpu = b.lane(gpu_lane_key(0, 7));
    std::vector<Hint> hints;
    for (int i = 0; i < 1000; ++i) {
      Event launch, kernel;
      launch.start_ns = 10 * i;
      launch.duration_ns = 2;
      launch.kind = EventKind::Runtime;
      kernel.start_ns = 10 * i + 5;
      kernel.duration_ns = 4;
      kernel.kind = EventKind::Kernel;
      b.add_event(host, launch);
      b.add_event(gpu, kernel);
      hints.push_back({static_cast<std::uint64_t>(i + 1), host, 10 * i + 1, gpu, 10 * i + 5});
    }
    std::reverse(hints.begin(), hints.end());
    if (shuffled) std::shuffle(hints.begin(), hints.end(), std::mt19937(7));
    for (const Hint& h : hints) b.add_flow_hint(h.id, h.from_lane, h.from_ts, h.to_lane, h.to_ts);
    Expected<Trace> t = b.build();
    ASSERT_TRUE(t.ok());
    ASSERT_EQ(t->flows().size(), 1000u);
    for (std::size_t k = 0; k < hints.size(); ++k) {
      const Flow& f = t->flows()[k];
      EXPECT_EQ(f.correlation_id, hints[k].id);
      EXPECT_EQ(f.from, (EventRef{host, static_cast<std::uint32_t>(hints[k].id - 1)}));
      EXPECT_EQ(f.to, (EventRef{gpu, static_cast<std::uint32_t>(hints[k].id - 1)}));
      EXPECT_EQ(t->flow_of(f.to), f);
    }
  }
}

}  // namespace
}  // namespace gtv
