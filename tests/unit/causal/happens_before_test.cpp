// The graph's nodes, edges, bindings and parts on small traces with hand-computed answers.
#include "gtv/causal/happens_before.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>
#include <vector>

#include "causal_helpers.h"

namespace gtv::causal {
namespace {
using namespace testing;

const LaneKey kHost = host_lane_key(1, 1);
const LaneKey kGpu0 = gpu_lane_key(0, 7);

// The extra edges into a node as (source, kind, binding), sorted: compared whole, whatever order they were added in.
using EdgeInput = std::tuple<NodeId, EdgeKind, bool>;
std::vector<EdgeInput> sorted(std::vector<EdgeInput> inputs) {
  std::sort(inputs.begin(), inputs.end());
  return inputs;
}
std::vector<EdgeInput> end_inputs(const HappensBefore& g, NodeId node) {
  std::vector<EdgeInput> out;
  for (const Edge& e : g.edges_into(node)) out.emplace_back(e.from, e.kind, e.binding);
  return sorted(out);
}

TEST(HappensBefore, LaunchesBindAnIdleGpuAndTheStreamBindsQueuedWork) {
  TraceBuilder b;
  launch(b, 1, 0, 5, 0, 7, 8, 100);     // handed over at 5 us, started at 8: the launch set it
  launch(b, 2, 10, 5, 0, 7, 108, 100);  // queued behind the first: the stream set it
  const Trace t = build(b);
  const HappensBefore g = HappensBefore::build(t);
  ASSERT_EQ(g.size(), 4u);
  const NodeId c1 = node_at(g, kHost, 0), c2 = node_at(g, kHost, 10);
  const NodeId k1 = node_at(g, kGpu0, 8), k2 = node_at(g, kGpu0, 108);
  EXPECT_EQ(g.node(c2).chain_prev, c1);
  EXPECT_EQ(g.node(c1).start_binding, StartBinding::Root);
  EXPECT_EQ(g.node(k1).launch, c1);
  EXPECT_EQ(g.node(k1).start_binding, StartBinding::Launch);
  EXPECT_EQ(g.node(k2).chain_prev, k1);
  EXPECT_EQ(g.node(k2).start_binding, StartBinding::Chain);
  EXPECT_EQ(g.min_launch_latency_ns(), 3 * us);  // 8 - 5; the second waited 93 us
  EXPECT_TRUE(g.edges().empty());
  EXPECT_TRUE(g.anomalies().lines().empty());
}

// The stream's queued gap: the median gap from a kernel to the kernel queued behind it, those whose launch handed
// it over before the one before ended (1 and 3 us here: the lower middle, 1 us). A launch that returned only after
// the kernel before it ended was not queued there, even where the least latency (-25 us: a 10 us kernel that ran
// inside its call) makes the stream its binding input: its 50 us gap does not count, else the median would be 3 us.
TEST(HappensBefore, TheQueuedGapIsTheMedianGapBehindKernelsHandedOverBeforeThePreviousEnded) {
  TraceBuilder b;
  launch(b, 1, 0, 5, 0, 7, 8, 100);      // [8, 108), the launch set it
  launch(b, 2, 10, 5, 0, 7, 109, 100);   // queued: 1 us after the first
  launch(b, 3, 20, 5, 0, 7, 212, 100);   // queued: 3 us after the second
  launch(b, 4, 300, 30, 0, 7, 362, 50);  // called before the third ended, returned after it: 50 us later
  launch(b, 5, 500, 30, 0, 7, 505, 10);  // a short kernel inside its call
  const Trace t = build(b);
  const HappensBefore g = HappensBefore::build(t);
  EXPECT_EQ(g.min_launch_latency_ns(), -25 * us);
  EXPECT_EQ(g.node(node_at(g, kGpu0, 362)).start_binding, StartBinding::Chain);
  EXPECT_EQ(g.queued_gap_ns(), 1 * us);
}

// Without any kernel queued behind another (every launch waited), the queued gap is the default.
TEST(HappensBefore, WithoutQueuedKernelsTheQueuedGapIsTheDefault) {
  TraceBuilder b;
  launch(b, 1, 0, 110, 0, 7, 5, 100);
  launch(b, 2, 120, 110, 0, 7, 125, 100);
  const Trace t = build(b);
  const HappensBefore g = HappensBefore::build(t);
  EXPECT_EQ(g.queued_gap_ns(), HappensBefore::kDefaultQueuedGapNs);
}

TEST(HappensBefore, OnlyTheOutermostCallIsANodeAndLoadingInsideItIsAPart) {
  TraceBuilder b;
  host_call(b, 1, 1, "aten::mm", 0, 100 * us, EventKind::CpuOp);
  launch(b, 1, 10, 50, 0, 7, 61, 10);
  host_call(b, 1, 1, "cuLibraryLoadData", 15 * us, 35 * us, EventKind::Driver);
  overhead(b, "lazy function loading", 16, 20);  // inside the load: counted once
  overhead(b, "CUPTI buffer request", 62, 5);    // between calls: the gap before the next one
  launch(b, 2, 70, 5, 0, 7, 76, 10);
  const Trace t = build(b);
  const HappensBefore g = HappensBefore::build(t);
  ASSERT_EQ(g.size(), 4u);  // two launches, two kernels: the op, the driver call and the records are not nodes
  const NodeId c1 = node_at(g, kHost, 10), c2 = node_at(g, kHost, 70);
  ASSERT_EQ(g.parts_of(c1).size(), 1u);
  EXPECT_EQ(g.parts_of(c1)[0].kind, PartKind::LazyLoading);
  EXPECT_FALSE(g.parts_of(c1)[0].in_gap);
  EXPECT_EQ(g.parts_of(c1)[0].ns, 35 * us);
  ASSERT_EQ(g.parts_of(c2).size(), 1u);
  EXPECT_EQ(g.parts_of(c2)[0].kind, PartKind::TracingOverhead);
  EXPECT_TRUE(g.parts_of(c2)[0].in_gap);
  EXPECT_EQ(g.parts_of(c2)[0].ns, 5 * us);
}

TEST(HappensBefore, ASynchronizeWaitsForTheLastWorkLaunchedBeforeIt) {
  TraceBuilder b;
  launch(b, 1, 0, 5, 0, 7, 8, 100);
  host_call(b, 1, 1, "cudaDeviceSynchronize", 10 * us, 102 * us);  // returns 4 us after the kernel
  const Trace t = build(b);
  const HappensBefore g = HappensBefore::build(t);
  const NodeId sync = node_at(g, kHost, 10), k = node_at(g, kGpu0, 8);
  ASSERT_EQ(g.edges_into(sync).size(), 1u);
  const Edge& e = g.edges_into(sync)[0];
  EXPECT_EQ(e.from, k);
  EXPECT_EQ(e.kind, EdgeKind::Sync);
  EXPECT_TRUE(e.binding);
  EXPECT_TRUE(g.node(sync).end_bound);
  EXPECT_EQ(g.own_ns(sync), 4 * us);
}

// cudaDeviceSynchronize at 300 us finds GPU 0's two streams idle: the last work queued on each before it (the
// second kernel of stream 7, the kernel of stream 9; not the kernel launched after it) is an input of its end that
// bound nothing. GPU 1's kernel is another device's: the thread's current device is the one its last launch went
// to.
TEST(HappensBefore, ADeviceSynchronizeWaitsForTheLastWorkOfEveryStreamOfItsDevice) {
  TraceBuilder b;
  launch(b, 1, 0, 5, 1, 3, 10, 50);
  launch(b, 2, 10, 5, 0, 7, 20, 100);
  launch(b, 3, 20, 5, 0, 7, 120, 100);
  launch(b, 4, 30, 5, 0, 9, 40, 50);
  host_call(b, 1, 1, "cudaDeviceSynchronize", 300 * us, 5 * us);
  launch(b, 5, 310, 5, 0, 9, 320, 10);
  const Trace t = build(b);
  const HappensBefore g = HappensBefore::build(t);
  const NodeId sync = node_at(g, kHost, 300);
  const NodeId k7 = node_at(g, kGpu0, 120), k9 = node_at(g, gpu_lane_key(0, 9), 40);
  EXPECT_EQ(end_inputs(g, sync), sorted({{k7, EdgeKind::Sync, false}, {k9, EdgeKind::Sync, false}}));
  EXPECT_FALSE(g.node(sync).end_bound);
  EXPECT_EQ(g.own_ns(sync), 5 * us);
}

// The thread launches on GPU 0 (stream 7, 10-210 us; stream 9, 20-40 us), then on GPU 1 (30-80 us), and calls
// cudaDeviceSynchronize, which returns at 212 us, after GPU 0's long kernel: the device it synchronized is GPU 0,
// though its last launch went to GPU 1. Its inputs: that kernel (binding) and stream 9's (not); GPU 1's is another
// device's.
TEST(HappensBefore, TheWorkASynchronizeWaitedForNamesItsDevice) {
  TraceBuilder b;
  launch(b, 1, 0, 5, 0, 7, 10, 200);
  launch(b, 2, 10, 5, 0, 9, 20, 20);
  launch(b, 3, 20, 5, 1, 3, 30, 50);
  host_call(b, 1, 1, "cudaDeviceSynchronize", 30 * us, 182 * us);
  const Trace t = build(b);
  const HappensBefore g = HappensBefore::build(t);
  const NodeId sync = node_at(g, kHost, 30);
  const NodeId k7 = node_at(g, kGpu0, 10), k9 = node_at(g, gpu_lane_key(0, 9), 20);
  EXPECT_EQ(end_inputs(g, sync), sorted({{k7, EdgeKind::Sync, true}, {k9, EdgeKind::Sync, false}}));
}

TEST(HappensBefore, APageableCopyWaitsForItsOwnCopyWhichLeavesFromTheCallsStart) {
  TraceBuilder b;
  launch(b, 1, 0, 5, 0, 7, 10, 100);
  host_call(b, 1, 1, "cudaMemcpyAsync", 5 * us, 120 * us, EventKind::Runtime, 2);
  MemcpyDetail pageable;
  pageable.copy_kind = CopyKind::DeviceToHost;
  pageable.src_kind = MemoryKind::Device;
  pageable.dst_kind = MemoryKind::Pageable;
  memcpy_event(b, 0, 7, 110 * us, 10 * us, pageable, 2);
  const Trace t = build(b);
  const HappensBefore g = HappensBefore::build(t);
  const NodeId call = node_at(g, kHost, 5), copy = node_at(g, kGpu0, 110);
  ASSERT_EQ(g.edges_into(call).size(), 1u);
  EXPECT_EQ(g.edges_into(call)[0].kind, EdgeKind::ImplicitSync);
  EXPECT_EQ(g.edges_into(call)[0].from, copy);
  EXPECT_TRUE(g.node(call).launches_from_start());
  EXPECT_EQ(g.recorded_handover(call), 5 * us);
  EXPECT_EQ(g.own_ns(call), 5 * us);
}

// PyTorch's .to() without non_blocking: cudaMemcpyAsync of pageable memory, then cudaStreamSynchronize. To the
// host (device to host) the call waits for its copy and the synchronize finds it done; from the host the call
// stages the data and returns as its copy ends, and the synchronize waits for the rest. Either way the synchronize
// continues that copy's wait; a synchronize after a launch, after a pinned copy, or not right after the copy's call
// continues none.
TEST(HappensBefore, ASynchronizeRightAfterAPageableCopyContinuesItsWait) {
  MemcpyDetail to_pageable;
  to_pageable.copy_kind = CopyKind::DeviceToHost;
  to_pageable.src_kind = MemoryKind::Device;
  to_pageable.dst_kind = MemoryKind::Pageable;
  MemcpyDetail from_pageable;
  from_pageable.copy_kind = CopyKind::HostToDevice;
  from_pageable.src_kind = MemoryKind::Pageable;
  from_pageable.dst_kind = MemoryKind::Device;
  MemcpyDetail from_pinned = from_pageable;
  from_pinned.src_kind = MemoryKind::Pinned;
  TraceBuilder b;
  launch(b, 1, 0, 5, 0, 7, 10, 100);
  host_call(b, 1, 1, "cudaMemcpyAsync", 5 * us, 120 * us, EventKind::Runtime, 2);
  memcpy_event(b, 0, 7, 110 * us, 10 * us, to_pageable, 2);
  host_call(b, 1, 1, "cudaStreamSynchronize", 126 * us, 2 * us);
  host_call(b, 1, 1, "cudaMemcpyAsync", 200 * us, 50 * us, EventKind::Runtime, 3);
  memcpy_event(b, 0, 7, 210 * us, 60 * us, from_pageable, 3);
  host_call(b, 1, 1, "cudaStreamSynchronize", 251 * us, 20 * us);
  host_call(b, 1, 1, "cudaMemcpyAsync", 300 * us, 5 * us, EventKind::Runtime, 4);
  memcpy_event(b, 0, 7, 306 * us, 30 * us, from_pinned, 4);
  host_call(b, 1, 1, "cudaStreamSynchronize", 306 * us, 31 * us);
  launch(b, 5, 400, 5, 0, 7, 406, 30);
  host_call(b, 1, 1, "cudaStreamSynchronize", 406 * us, 31 * us);
  const Trace t = build(b);
  const HappensBefore g = HappensBefore::build(t);
  EXPECT_EQ(g.copy_wait_continued_by(node_at(g, kHost, 126)), node_at(g, kGpu0, 110));
  EXPECT_EQ(g.copy_wait_continued_by(node_at(g, kHost, 251)), node_at(g, kGpu0, 210));
  EXPECT_EQ(g.copy_wait_continued_by(node_at(g, kHost, 306)), kNoNode);
  EXPECT_EQ(g.copy_wait_continued_by(node_at(g, kHost, 406)), kNoNode);
  EXPECT_EQ(g.copy_wait_continued_by(node_at(g, kHost, 200)), kNoNode);  // a copy call, not a synchronize
  EXPECT_EQ(g.copy_wait_continued_by(node_at(g, kGpu0, 110)), kNoNode);  // GPU work
}

TEST(HappensBefore, WhatTheRecordingContradictsIsCountedNotTaken) {
  TraceBuilder b;
  launch(b, 1, 10, 5, 0, 7, 5, 15);  // the kernel starts before its launch call
  kernel(b, 0, 9, "a", 100 * us, 100 * us);
  kernel(b, 0, 9, "b", 150 * us, 100 * us);  // starts before the work ahead of it on stream 9 ended
  const Trace t = build(b);
  const HappensBefore g = HappensBefore::build(t);
  EXPECT_EQ(g.anomalies().launch_after_work, 1u);
  EXPECT_EQ(g.anomalies().overlapping_on_stream, 1u);
  EXPECT_EQ(g.node(node_at(g, kGpu0, 5)).launch, kNoNode);
  // The overlapping kernel keeps its stream order, the 50 us it overlapped allowed.
  EXPECT_EQ(g.node(node_at(g, gpu_lane_key(0, 9), 150)).chain_prev, node_at(g, gpu_lane_key(0, 9), 100));
  EXPECT_EQ(g.anomalies().lines().size(), 2u);
}

TEST(HappensBefore, QueuedWorkStartingLateWhileAnotherStreamRanWasHeldByIt) {
  TraceBuilder b;
  kernel(b, 0, 13, "big gemm", 0, 700 * us);
  kernel(b, 0, 21, "small", 0, 10 * us);
  kernel(b, 0, 21, "next", 690 * us, 210 * us);  // ready at 10 us, started as the gemm's last blocks retired
  const Trace t = build(b);
  const HappensBefore g = HappensBefore::build(t);
  EXPECT_TRUE(g.node(node_at(g, gpu_lane_key(0, 21), 690)).held_by_other_streams);
  EXPECT_FALSE(g.node(node_at(g, gpu_lane_key(0, 21), 0)).held_by_other_streams);
}

// Two ranks merged into one run: rank 1's 3 us cudaEventSynchronize has no recorded dependency, and rank 0's copy
// ends while it runs. A synchronize waits for its own process's GPUs: ranks meet only at matched collectives, so
// the call is tied to nothing of rank 0 (and, launched nothing of its own since, to nothing at all).
TEST(HappensBefore, ASynchronizeInAMergedRunWaitsOnlyForItsOwnRanksGpus) {
  auto run = [](bool ranked) {
    TraceBuilder b;
    host_call(b, 100, 100, "cudaMemcpyAsync", 30 * us, 5 * us, EventKind::Runtime, 1);
    memcpy_event(b, 0, 7, 40 * us, 12 * us, {}, 1);  // rank 0's copy: 40-52 us
    host_call(b, 200, 200, "cudaLaunchKernel", 5 * us, 3 * us, EventKind::Runtime, 2);
    kernel(b, 1, 7, "gemm", 10 * us, 20 * us, 2);                                         // rank 1's kernel: 10-30 us
    host_call(b, 200, 200, "cudaEventSynchronize", 50 * us, 3 * us, EventKind::Runtime);  // 50-53 us
    if (ranked) {
      RankInfo r0, r1;
      r0.rank = 0, r0.pids = {100}, r0.devices = {0}, r0.local_devices = {0};
      r1.rank = 1, r1.pids = {200}, r1.devices = {1}, r1.local_devices = {0};
      b.metadata().ranks = {r0, r1};
    }
    return build(b);
  };
  const Trace one_process_group = run(false);
  const HappensBefore g1 = HappensBefore::build(one_process_group);
  const NodeId sync1 = node_at(g1, host_lane_key(200, 200), 50);
  ASSERT_EQ(g1.edges_into(sync1).size(), 1u);  // one run of one program: any GPU's work may be what it waited for
  EXPECT_EQ(g1.edges_into(sync1)[0].from, node_at(g1, gpu_lane_key(0, 7), 40));
  const Trace merged = run(true);
  const HappensBefore g2 = HappensBefore::build(merged);
  EXPECT_TRUE(g2.edges_into(node_at(g2, host_lane_key(200, 200), 50)).empty());
}

}  // namespace
}  // namespace gtv::causal
