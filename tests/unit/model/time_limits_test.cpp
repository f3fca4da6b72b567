// Times at the ends of the int64 range: hit tests and LOD queries saturate instead of overflowing (run under
// UBSan by the asan preset), and TraceBuilder refuses events outside the accepted range.
#include <gtest/gtest.h>

#include <limits>

#include "gtv/model/lod.h"
#include "gtv/model/trace_builder.h"

namespace gtv {
namespace {

constexpr TimeNs kMax = std::numeric_limits<TimeNs>::max();
constexpr TimeNs kMin = std::numeric_limits<TimeNs>::min();

Trace lane_with(TimeNs start_ns, TimeNs duration_ns) {
  TraceBuilder b;
  Event e;
  e.start_ns = start_ns;
  e.duration_ns = duration_ns;
  e.kind = EventKind::Kernel;
  b.add_event(b.lane(gpu_lane_key(0, 7)), e);
  return std::move(b.build().value());
}

}  // namespace

TEST(TimeLimits, SaturatingArithmetic) {
  EXPECT_EQ(saturating_add(kMax, 1), kMax);
  EXPECT_EQ(saturating_add(kMin, -1), kMin);
  EXPECT_EQ(saturating_add(5, -7), -2);
  EXPECT_EQ(saturating_sub(kMin, 1), kMin);
  EXPECT_EQ(saturating_sub(kMax, -1), kMax);
  EXPECT_EQ(saturating_sub(kMax, kMin), kMax);
  EXPECT_EQ(saturating_sub(kMin, kMax), kMin);
  EXPECT_EQ(saturating_sub(7, 9), -2);
  EXPECT_TRUE(in_trace_time_range(kMinTraceTimeNs));
  EXPECT_TRUE(in_trace_time_range(kMaxTraceTimeNs));
  EXPECT_FALSE(in_trace_time_range(kMinTraceTimeNs - 1));
  EXPECT_FALSE(in_trace_time_range(kMaxTraceTimeNs + 1));
}

TEST(TimeLimits, HitTestsNearTheEndsOfTheRangeDoNotOverflow) {
  const Trace t = lane_with(kMaxTraceTimeNs - 100, 50);
  const Lane& lane = t.lane(0);
  EXPECT_EQ(event_at(lane, 0, kMaxTraceTimeNs - 80), 0);
  EXPECT_EQ(event_at(lane, 0, kMax, kMax), 0);   // t + tolerance beyond int64: saturates
  EXPECT_EQ(event_at(lane, 0, kMin, kMax), -1);  // t - tolerance below int64; the window ends at -1
  EXPECT_EQ(event_at(lane, 0, kMin, 10), -1);
  const Trace early = lane_with(kMinTraceTimeNs, 50);
  EXPECT_EQ(event_at(early.lane(0), 0, kMin, kMax), 0);
  EXPECT_EQ(event_at(early.lane(0), 0, kMax, kMax), -1);
}

TEST(TimeLimits, LodQueryOverTheWholeInt64Range) {
  const Trace t = lane_with(kMaxTraceTimeNs - 100, 50);
  const std::vector<LodSpan> spans = query_lod(t.lane(0), LodRequest{kMin, kMax, 1000});
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_EQ(spans[0].start_ns, kMaxTraceTimeNs - 100);
}

TEST(TimeLimits, BuilderRefusesEventsOutsideTheAcceptedRange) {
  for (auto [start, dur] : {std::pair<TimeNs, TimeNs>{kMax - 10, 5},
                            {kMaxTraceTimeNs, 1},
                            {kMin, 0},
                            {kMinTraceTimeNs - 1, 10},
                            {0, kMax}}) {
    TraceBuilder b;
    Event e;
    e.start_ns = start;
    e.duration_ns = dur;
    b.add_event(b.lane(host_lane_key(1, 1)), e);
    Expected<Trace> r = b.build();
    ASSERT_FALSE(r.ok()) << start << " + " << dur;
    EXPECT_NE(r.error().message.find("outside the accepted time range"), std::string::npos) << r.error().message;
  }
  EXPECT_TRUE(lane_with(kMinTraceTimeNs, kMaxTraceTimeNs).lane(0).events.size() == 1);  // ends at -1: inside
}

}  // namespace gtv
