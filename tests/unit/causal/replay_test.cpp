// Replays with a cause removed, against predictions worked out by hand.
#include "gtv/causal/replay.h"

#include <gtest/gtest.h>

#include "causal_helpers.h"

namespace gtv::causal {
namespace {
using namespace testing;

MemcpyDetail to_pageable() {
  MemcpyDetail d;
  d.copy_kind = CopyKind::DeviceToHost;
  d.src_kind = MemoryKind::Device;
  d.dst_kind = MemoryKind::Pageable;
  return d;
}

TEST(Replay, UnchangedItIsTheRecording) {
  TraceBuilder b;
  launch(b, 1, 0, 5, 0, 7, 8, 100);
  launch(b, 2, 10, 5, 0, 7, 108, 100);
  host_call(b, 1, 1, "cudaDeviceSynchronize", 20 * us, 192 * us);
  const Trace t = build(b);
  const HappensBefore g = HappensBefore::build(t);
  const Timeline r = replay(g);
  for (NodeId n = 0; n < g.size(); ++n) {
    EXPECT_EQ(r.start_ns[n], g.recorded_start(n));
    EXPECT_EQ(r.end_ns[n], g.recorded_end(n));
  }
}

// The host's gap before its second launch holds a 50 us CUPTI buffer request: without it the second launch comes
// at 10 us, its kernel at 18 us (its own 3 us after the launch returned, and the first kernel has ended), so the
// trace ends at 28 us instead of 78 us.
TEST(Replay, WithoutTracingOverheadTheLaterWorkComesSooner) {
  TraceBuilder b;
  launch(b, 1, 0, 5, 0, 7, 6, 10);
  overhead(b, "CUPTI buffer request", 6, 50);
  launch(b, 2, 60, 5, 0, 7, 68, 10);
  const Trace t = build(b);
  const HappensBefore g = HappensBefore::build(t);
  EXPECT_EQ(window_us(g), 78);
  EXPECT_EQ(window_us(g, Removal{bit(PartKind::TracingOverhead), 0, {}, {}, {}}), 28);
  // Zeroing the host's own work keeps the tracer's time: the gap of 55 us becomes its 50 us part.
  Removal own_work;
  own_work.drop_gap = [](NodeId) { return true; };
  EXPECT_EQ(window_us(g, own_work), 73);
}

// A measurement of CPU work holds no CUDA call: its end lies in the host's gap between two launches. Launches at
// [0,5) and [20,25) (kernels [6,16), [26,36)) are timed by A [0,40); C [50,450) times 400 us of CPU work; a launch at
// [500,505) (kernel [506,516)) is timed by B [500,520): the window is [0,520). Without the host's own work between
// calls (the gaps after the window's start) the launches run at [0,5), [5,10), [10,15), their kernels [6,16),
// [17,27), [28,38) (each queued behind the one before, 1 us after it: the queued gap of a recording that shows
// none); the ends of A and C, in the emptied gap after the second launch, come no later than the third launch
// (10 us), B ends 15 us after its launch returned (30 us): the window is [0,38), not [0,435) (C's end moved only by
// what went before the gap, as if its CPU work had stayed).
TEST(Replay, WithoutTheHostsOwnWorkAMeasuredEndInsideTheRemovedGapComesSooner) {
  TraceBuilder b;
  launch(b, 1, 0, 5, 0, 7, 6, 10);
  launch(b, 2, 20, 5, 0, 7, 26, 10);
  launch(b, 3, 500, 5, 0, 7, 506, 10);
  measure(b, 0, 40);
  measure(b, 50, 450);
  measure(b, 500, 520);
  const Trace t = build(b);
  const HappensBefore g = HappensBefore::build(t);
  EXPECT_EQ(window_us(g), 520);
  Removal own_work;
  own_work.drop_gap = [&g](NodeId n) {
    const NodeId prev = g.node(n).chain_prev;
    return prev != kNoNode && g.recorded_end(prev) >= 0;
  };
  EXPECT_EQ(g.queued_gap_ns(), HappensBefore::kDefaultQueuedGapNs);
  EXPECT_EQ(window_us(g, own_work), 38);
}

// The second kernel was queued 2 us behind the first (the recording's queued gap); the third waited for its launch
// [300, 305), after 285 us of the host's own work. Without that work the third launch runs [15, 20) and its kernel,
// now queued behind the second, follows it by the queued gap: [210, 310), not at once [208, 308).
TEST(Replay, WorkQueuedByAChangeFollowsThePreviousByTheRecordingsQueuedGap) {
  TraceBuilder b;
  launch(b, 1, 0, 5, 0, 7, 6, 100);
  launch(b, 2, 10, 5, 0, 7, 108, 100);
  launch(b, 3, 300, 5, 0, 7, 306, 100);
  const Trace t = build(b);
  const HappensBefore g = HappensBefore::build(t);
  EXPECT_EQ(g.queued_gap_ns(), 2 * us);
  EXPECT_EQ(window_us(g), 406);
  Removal own_work;
  own_work.drop_gap = [](NodeId) { return true; };
  EXPECT_EQ(window_us(g, own_work), 310);
}

// A kernel a [10, 210) and a kernel b [160, 260) on one stream, b started 50 us before a ended (programmatic
// dependent launch); b's launch [105, 110) follows 100 us of the host's own work. Without that work b's launch
// returns at 10 us, but b still starts no earlier than 50 us before a's end: at 160, not at 60.
TEST(Replay, WorkThatOverlappedItsStreamsPreviousWorkKeepsNoMoreThanThatOverlap) {
  TraceBuilder b;
  launch(b, 1, 0, 5, 0, 7, 10, 200);
  launch(b, 2, 105, 5, 0, 7, 160, 100);
  const Trace t = build(b);
  const HappensBefore g = HappensBefore::build(t);
  EXPECT_EQ(g.anomalies().overlapping_on_stream, 1u);
  const NodeId kernel_b = node_at(g, gpu_lane_key(0, 7), 160);
  Removal own_work;
  own_work.drop_gap = [](NodeId) { return true; };
  const Timeline r = replay(g, own_work);
  EXPECT_EQ(r.start_ns[node_at(g, gpu_lane_key(0, 7), 10)], 10 * us);
  EXPECT_EQ(r.start_ns[kernel_b], 160 * us);
  EXPECT_EQ(r.end_ns[kernel_b], 260 * us);
}

// A synchronize that ends the loop saves only its own 4 us return: the GPU work it waited for still has to finish.
TEST(Replay, WithoutTheFinalSynchronizeOnlyItsReturnGoes) {
  TraceBuilder b;
  launch(b, 1, 0, 5, 0, 7, 8, 100);
  host_call(b, 1, 1, "cudaDeviceSynchronize", 10 * us, 102 * us);
  measure(b, 0, 112);
  const Trace t = build(b);
  const HappensBefore g = HappensBefore::build(t);
  EXPECT_EQ(window_us(g), 112);
  EXPECT_EQ(window_us(g, Removal{0, bit(EdgeKind::Sync), {}, {}, {}}), 108);
}

// A copy to pageable memory holds the host until the copy ends (120 us, back at 125 us); GPU 1's work is launched
// only then. Without that wait the host launches it at 10 us, it starts 5 us after the launch returns (15 us) at
// 20 us and ends at 120 us, with the copy: 235 us become 120 us.
TEST(Replay, WithoutThePageableWaitTheOtherGpuOverlaps) {
  TraceBuilder b;
  launch(b, 1, 0, 5, 0, 7, 10, 100);
  host_call(b, 1, 1, "cudaMemcpyAsync", 5 * us, 120 * us, EventKind::Runtime, 2);
  memcpy_event(b, 0, 7, 110 * us, 10 * us, to_pageable(), 2);
  launch(b, 3, 125, 5, 1, 15, 135, 100);
  const Trace t = build(b);
  const HappensBefore g = HappensBefore::build(t);
  EXPECT_EQ(window_us(g), 235);
  EXPECT_EQ(window_us(g, Removal{0, bit(EdgeKind::ImplicitSync), {}, {}, {}}), 120);
}

// A copy to pageable memory holds the host until it ends (120 us, back at 125 us); the device synchronize after it
// (127-130 us) finds nothing running. Without the copy's wait the host is back at 10 us and the synchronize, at
// 12 us, waits for the copy still queued (its end, 120 us, is an input of the synchronize's end though it bound
// nothing in the recording). The next launch comes 10 us later (130-135 us) and its kernel 5 us after it returns:
// 140-240 us. Were the synchronize to return at once, the kernel would follow the copy at 120 us and end at 220 us.
TEST(Replay, ADeviceSynchronizeThatFoundNothingRunningWaitsForWorkAChangeLeftQueued) {
  TraceBuilder b;
  launch(b, 1, 0, 5, 0, 7, 10, 100);
  host_call(b, 1, 1, "cudaMemcpyAsync", 5 * us, 120 * us, EventKind::Runtime, 2);
  memcpy_event(b, 0, 7, 110 * us, 10 * us, to_pageable(), 2);
  host_call(b, 1, 1, "cudaDeviceSynchronize", 127 * us, 3 * us);
  launch(b, 3, 140, 5, 0, 7, 150, 100);
  const Trace t = build(b);
  const HappensBefore g = HappensBefore::build(t);
  EXPECT_EQ(window_us(g), 250);
  EXPECT_EQ(window_us(g, Removal{0, bit(EdgeKind::ImplicitSync), {}, {}, {}}), 240);
}

// A launch for GPU 1 drains GPU 0 (waits for its kernel to end at 108 us), loads a module for 16 us and returns at
// 130 us. Without lazy loading (the load and the drain) it returns after its remaining 6 us, at 16 us; GPU 1's
// kernel starts 1 us later and ends at 67 us, before GPU 0's: the trace ends at 108 us instead of 181 us.
TEST(Replay, WithoutLazyLoadingTheDrainAndTheLoadGo) {
  TraceBuilder b;
  launch(b, 1, 0, 5, 0, 7, 8, 100);
  launch(b, 2, 10, 120, 1, 15, 131, 50);
  overhead(b, "lazy function loading", 112, 16);
  const Trace t = build(b);
  const HappensBefore g = HappensBefore::build(t);
  const NodeId call = node_at(g, host_lane_key(1, 1), 10);
  ASSERT_EQ(g.edges_into(call).size(), 1u);
  EXPECT_EQ(g.edges_into(call)[0].kind, EdgeKind::LazyLoadDrain);
  EXPECT_EQ(g.own_ns(call), 22 * us);
  EXPECT_EQ(window_us(g), 181);
  EXPECT_EQ(window_us(g, Removal{bit(PartKind::LazyLoading), bit(EdgeKind::LazyLoadDrain), {}, {}, {}}), 108);
}

// Instant launch calls: each kernel then starts when its launch would have returned plus its recorded latency.
TEST(Replay, DroppingOwnTimeOfSomeNodesOnly) {
  TraceBuilder b;
  launch(b, 1, 0, 20, 0, 7, 21, 10);
  launch(b, 2, 20, 20, 0, 7, 41, 10);
  const Trace t = build(b);
  const HappensBefore g = HappensBefore::build(t);
  EXPECT_EQ(window_us(g), 51);
  Removal instant;
  instant.drop_own_time = [&g](NodeId n) { return g.node(n).kind == NodeKind::HostCall; };
  // Calls at [0,0] and [0,0]; kernels at 1 us (latency 1) and, queued behind the first, 1 us after its end (the
  // queued gap of a recording that shows none): max(1 + 0, 11 + 1) = 12 us: the trace ends at 22 us.
  EXPECT_EQ(window_us(g, instant), 22);
}

}  // namespace
}  // namespace gtv::causal
