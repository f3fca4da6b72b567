#include "gtv/analysis/busy.h"

#include <gtest/gtest.h>

#include <limits>
#include <map>

#include "trace_helpers.h"

namespace gtv::analysis {
using namespace testing;

TEST(Busy, UnionOverStreamsOfOneGpuAndPerStream) {
  TraceBuilder b;
  kernel(b, 0, 7, "k1", 0, 100);                    // stream 7: [0,100)
  kernel(b, 0, 7, "k2", 150, 50);                   //           [150,200)
  memcpy_event(b, 0, 8, 80, 40);                    // stream 8: [80,120) overlaps k1 by 20
  memset_event(b, 1, 3, 500, 100);                  // GPU 1: [500,600)
  host_call(b, 1, 1, "cudaLaunchKernel", 0, 1000);  // host work widens the window to [0,1000)
  const Trace t = build(b);
  const BusyAnalysis a = analyze_busy(t);
  EXPECT_EQ(a.window_start_ns, 0);
  EXPECT_EQ(a.window_end_ns, 1000);
  ASSERT_EQ(a.gpus.size(), 2u);
  EXPECT_EQ(a.gpus[0].device, 0);
  EXPECT_EQ(a.gpus[0].busy_ns, 120 + 50);  // [0,120) + [150,200)
  EXPECT_EQ(a.gpus[0].idle_ns, 1000 - 170);
  EXPECT_DOUBLE_EQ(a.gpus[0].utilization, 0.17);
  EXPECT_EQ(a.gpus[0].kernel_ns, 150);
  EXPECT_EQ(a.gpus[0].kernel_count, 2u);
  EXPECT_EQ(a.gpus[0].activity_count, 3u);
  EXPECT_EQ(a.gpus[0].first_start_ns, 0);
  EXPECT_EQ(a.gpus[0].last_end_ns, 200);
  EXPECT_EQ(a.gpus[1].busy_ns, 100);
  ASSERT_EQ(a.streams.size(), 3u);
  EXPECT_EQ(a.streams[0].stream, 7);
  EXPECT_EQ(a.streams[0].busy_ns, 150);
  EXPECT_EQ(a.streams[1].stream, 8);
  EXPECT_EQ(a.streams[1].busy_ns, 40);
  EXPECT_EQ(a.any_busy, (std::vector<Interval>{{0, 120}, {150, 200}, {500, 600}}));
}

TEST(Busy, WindowClipsBusyTime) {
  TraceBuilder b;
  kernel(b, 0, 1, "k", 0, 100);
  const Trace t = build(b);
  const BusyAnalysis a = analyze_busy(t, 50, 250);
  EXPECT_EQ(a.gpus[0].busy_ns, 50);
  EXPECT_EQ(a.gpus[0].idle_ns, 150);
  EXPECT_DOUBLE_EQ(a.gpus[0].utilization, 0.25);
}

TEST(Busy, NoGpuActivityAndZeroLengthEvents) {
  TraceBuilder b;
  host_call(b, 1, 1, "cudaMalloc", 0, 10);
  kernel(b, 0, 1, "empty", 5, 0);  // zero length: counted, but covers no time
  const Trace t = build(b);
  const BusyAnalysis a = analyze_busy(t);
  ASSERT_EQ(a.gpus.size(), 1u);
  EXPECT_EQ(a.gpus[0].busy_ns, 0);
  EXPECT_EQ(a.gpus[0].kernel_count, 1u);
  EXPECT_TRUE(a.any_busy.empty());

  TraceBuilder empty;
  const Trace none = build(empty);
  const BusyAnalysis n = analyze_busy(none);
  EXPECT_TRUE(n.gpus.empty());
  EXPECT_EQ(n.window_ns(), 0);
}

TEST(Busy, ManyGpusAndStreamsGiveTheUnionOfTheirLanes) {
  TraceBuilder b;
  for (int i = 0; i < 60; ++i) {  // devices 0..4, streams 0..11, overlapping and touching spans
    kernel(b, i % 5, i % 12, "k", (i * 37) % 400, 10 + i % 30);
    if (i % 7 == 0) memcpy_event(b, i % 5, i % 12, (i * 37) % 400 + 40, 20);
  }
  const Trace t = build(b);
  const BusyAnalysis a = analyze_busy(t);
  // The same by a union per lane, device by device.
  std::map<std::int64_t, std::vector<Interval>> per_device;
  std::vector<Interval> any;
  for (const Lane& lane : t.lanes()) {
    per_device[lane.device()] = union_of(per_device[lane.device()], lane_busy_intervals(lane));
    any = union_of(any, lane_busy_intervals(lane));
  }
  ASSERT_EQ(a.gpus.size(), per_device.size());
  for (const GpuBusy& g : a.gpus) {
    EXPECT_EQ(g.busy, per_device[g.device]) << g.device;
    EXPECT_EQ(g.busy_ns, total_length_ns(per_device[g.device])) << g.device;
    EXPECT_EQ(g.stream_count, 12u);
  }
  for (std::size_t i = 1; i < a.gpus.size(); ++i) EXPECT_LT(a.gpus[i - 1].device, a.gpus[i].device);
  EXPECT_EQ(a.any_busy, any);
  EXPECT_EQ(a.streams.size(), 60u);
}

TEST(Busy, AWindowWiderThanAnInt64SaturatesInsteadOfOverflowing) {
  TraceBuilder b;
  kernel(b, 0, 1, "k", 0, 100);
  const Trace t = build(b);
  const BusyAnalysis a = analyze_busy(t, std::numeric_limits<TimeNs>::min(), std::numeric_limits<TimeNs>::max());
  EXPECT_EQ(a.window_ns(), std::numeric_limits<TimeNs>::max());
  EXPECT_EQ(a.gpus[0].busy_ns, 100);
  EXPECT_GT(a.gpus[0].idle_ns, 0);
  EXPECT_GE(a.gpus[0].utilization, 0.0);
}

}  // namespace gtv::analysis
