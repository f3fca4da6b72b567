#include "gtv/analysis/launch.h"

#include <gtest/gtest.h>

#include "trace_helpers.h"

namespace gtv::analysis {
using namespace testing;

TEST(Launch, LatencyPercentilesAndQueueDepth) {
  TraceBuilder b;
  host_call(b, 1, 1, "cudaLaunchKernel", 0, 5, EventKind::Runtime, 1);
  host_call(b, 1, 1, "cudaLaunchKernel", 10, 5, EventKind::Runtime, 2);
  host_call(b, 1, 1, "cudaLaunchKernel", 20, 5, EventKind::Runtime, 3);
  kernel(b, 0, 7, "A", 100, 100, 1);
  kernel(b, 0, 7, "B", 200, 100, 2);
  kernel(b, 1, 7, "C", 50, 10, 3);
  memset_event(b, 0, 7, 400, 10);  // no launch in the trace
  const Trace t = build(b);
  const LaunchAnalysis a = analyze_launches(t);
  EXPECT_EQ(a.all.count, 3u);
  EXPECT_EQ(a.all.min_ns, 30);
  EXPECT_EQ(a.all.p50_ns, 100);
  EXPECT_EQ(a.all.p90_ns, 190);
  EXPECT_EQ(a.all.max_ns, 190);
  EXPECT_EQ(a.all.mean_ns, 106);  // 320 / 3, truncated
  ASSERT_EQ(a.devices.size(), 2u);
  EXPECT_EQ(a.devices[0].device, 0);
  EXPECT_EQ(a.devices[0].stats.p50_ns, 100);
  EXPECT_EQ(a.devices[0].stats.p90_ns, 190);
  EXPECT_EQ(a.devices[1].stats.max_ns, 30);
  EXPECT_EQ(a.activities_without_flow, 1u);
  ASSERT_EQ(a.streams.size(), 2u);
  EXPECT_EQ(a.streams[0].steps,
            (std::vector<QueueStep>{{0, 10, 1}, {10, 200, 2}, {200, 300, 1}, {300, 400, 0}, {400, 410, 1}}));
  EXPECT_EQ(a.streams[0].max_depth, 2);
  EXPECT_EQ(a.streams[0].max_depth_at_ns, 10);
  EXPECT_EQ(a.streams[1].steps, (std::vector<QueueStep>{{20, 60, 1}}));
  EXPECT_EQ(a.findings[0],
            "Launch latency (API call start to GPU start) over 3 launch(es): p50 100 ns, p90 190 ns, "
            "max 190 ns.");
  EXPECT_EQ(a.findings[1],
            "Deepest queue: 2 item(s) launched but unfinished on GPU 0 stream 7 at 10 ns into the trace.");
}

TEST(Launch, BackToBackWorkIsDepthOne) {
  TraceBuilder b;
  kernel(b, 0, 7, "a", 0, 10);
  kernel(b, 0, 7, "b", 10, 10);
  const Trace t = build(b);
  const LaunchAnalysis a = analyze_launches(t);
  EXPECT_EQ(a.streams[0].steps, (std::vector<QueueStep>{{0, 20, 1}}));
  EXPECT_EQ(a.all.count, 0u);
  EXPECT_EQ(a.findings[0], "No launch is joined to its GPU work (no flows): launch latency is unknown.");
}

TEST(Launch, PercentilesByNearestRank) {
  std::vector<TimeNs> v{10, 1, 9, 2, 8, 3, 7, 4, 6, 5};
  const LatencyStats s = latency_stats(v);
  EXPECT_EQ(s.p50_ns, 5);
  EXPECT_EQ(s.p90_ns, 9);
  EXPECT_EQ(s.mean_ns, 5);  // 55 / 10 truncated
  std::vector<TimeNs> one{42};
  EXPECT_EQ(latency_stats(one).p90_ns, 42);
  std::vector<TimeNs> none;
  EXPECT_EQ(latency_stats(none).count, 0u);
}
}  // namespace gtv::analysis
