// Critical paths walked on small traces, segment by segment, against paths worked out by hand.
#include "gtv/causal/critical_path.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "causal_helpers.h"

namespace gtv::causal {
namespace {
using namespace testing;

struct Expected {
  TimeNs start_us;
  TimeNs end_us;
  SegmentKind kind;
};

CriticalPath path_of(const HappensBefore& g) { return critical_path(g, replay(g), window_of(g)); }

void expect_path(const CriticalPath& p, const std::vector<Expected>& expected) {
  ASSERT_EQ(p.segments.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    SCOPED_TRACE("segment " + std::to_string(i));
    EXPECT_EQ(p.segments[i].start_ns, expected[i].start_us * us);
    EXPECT_EQ(p.segments[i].end_ns, expected[i].end_us * us);
    EXPECT_EQ(to_string(p.segments[i].kind), to_string(expected[i].kind));
  }
}

// The host launches slowly: each kernel waits for its launch, so the path runs through the host.
TEST(CriticalPath, ALaunchBoundLoopRunsThroughTheHost) {
  TraceBuilder b;
  launch(b, 1, 0, 5, 0, 7, 6, 10);
  launch(b, 2, 40, 5, 0, 7, 46, 10);
  launch(b, 3, 80, 5, 0, 7, 86, 10);
  const Trace t = build(b);
  const HappensBefore g = HappensBefore::build(t);
  expect_path(path_of(g), {{0, 5, SegmentKind::HostLaunch},
                           {5, 40, SegmentKind::HostOwnWork},
                           {40, 45, SegmentKind::HostLaunch},
                           {45, 80, SegmentKind::HostOwnWork},
                           {80, 85, SegmentKind::HostLaunch},
                           {85, 86, SegmentKind::LaunchLatency},
                           {86, 96, SegmentKind::Kernel}});
}

// Through the pageable copy's wait, the GPU work the host waited for carries that call as `via`.
TEST(CriticalPath, GpuWorkReachedThroughAWaitCarriesTheWaitingCall) {
  TraceBuilder b;
  launch(b, 1, 0, 5, 0, 7, 10, 100);
  host_call(b, 1, 1, "cudaMemcpyAsync", 5 * us, 120 * us, EventKind::Runtime, 2);
  MemcpyDetail d;
  d.copy_kind = CopyKind::DeviceToHost;
  d.src_kind = MemoryKind::Device;
  d.dst_kind = MemoryKind::Pageable;
  memcpy_event(b, 0, 7, 110 * us, 10 * us, d, 2);
  launch(b, 3, 125, 5, 1, 15, 135, 100);
  const Trace t = build(b);
  const HappensBefore g = HappensBefore::build(t);
  const CriticalPath p = path_of(g);
  expect_path(p, {{0, 5, SegmentKind::HostLaunch},
                  {5, 10, SegmentKind::LaunchLatency},
                  {10, 110, SegmentKind::Kernel},
                  {110, 120, SegmentKind::Copy},
                  {120, 125, SegmentKind::SyncWake},
                  {125, 130, SegmentKind::HostLaunch},
                  {130, 135, SegmentKind::LaunchLatency},
                  {135, 235, SegmentKind::Kernel}});
  const NodeId copy_call = node_at(g, host_lane_key(1, 1), 5);
  for (std::size_t i : {1u, 2u, 3u}) EXPECT_EQ(p.segments[i].via, copy_call) << i;
  for (std::size_t i : {0u, 4u, 5u, 6u, 7u}) EXPECT_EQ(p.segments[i].via, kNoNode) << i;
}

// A torch.profiler recording of a loop that starts a Python thread per step: the main thread (tid 1) records its
// ProfilerStep ranges and synchronizes at each step's end ([20,97), [160,237)); the thread it started (tid 2, a new
// thread each step under the same id) records only its CUDA calls, a launch per step ([10,15) and [150,155), kernels
// [16,96) and [156,236)). The second step's thread exists only after the main thread's first synchronize returned
// (97 us): its 53 us before its launch are its start-up, not recorded, and the 135 us since the first step's launch
// are not its own work.
TEST(CriticalPath, AThreadTheProfiledThreadStartedWaitsForItAndStartsUnrecorded) {
  TraceBuilder b;
  host_call(b, 1, 1, "ProfilerStep#1", 0, 140 * us, EventKind::Annotation);
  host_call(b, 1, 1, "ProfilerStep#2", 140 * us, 97 * us, EventKind::Annotation);
  host_call(b, 1, 1, "cudaDeviceSynchronize", 20 * us, 77 * us);
  host_call(b, 1, 1, "cudaDeviceSynchronize", 160 * us, 77 * us);
  launch(b, 1, 10, 5, 0, 7, 16, 80, 2);
  launch(b, 2, 150, 5, 0, 7, 156, 80, 2);
  const Trace t = build(b);
  const HappensBefore g = HappensBefore::build(t);
  const NodeId second = node_at(g, host_lane_key(1, 2), 150);
  EXPECT_EQ(g.gap_wait_ns(second), 135 * us);
  expect_path(path_of(g), {{0, 10, SegmentKind::NotRecorded},
                           {10, 15, SegmentKind::HostLaunch},
                           {15, 16, SegmentKind::LaunchLatency},
                           {16, 96, SegmentKind::Kernel},
                           {96, 97, SegmentKind::SyncWake},
                           {97, 150, SegmentKind::NotRecorded},
                           {150, 155, SegmentKind::HostLaunch},
                           {155, 156, SegmentKind::LaunchLatency},
                           {156, 236, SegmentKind::Kernel},
                           {236, 237, SegmentKind::SyncWake}});
}

// A copy of pageable memory runs while its cudaMemcpyAsync stages the data, and the call returns about when the copy
// ends: the copy leaves from the call's start (250 us later), not 4.75 ms before the call's end. Taken from the end,
// that launch would make the least launch latency of the trace -4.75 ms, and the pinned copy launched at 9.03 ms,
// started 1 us later, would look held 4.02 ms behind the finished pageable copy on its stream.
TEST(CriticalPath, WorkLaunchedAfterAStagedPageableCopyIsNotQueuedBehindIt) {
  TraceBuilder b;
  host_call(b, 1, 1, "cudaMemcpyAsync", 0, 5000 * us, EventKind::Runtime, 1);
  MemcpyDetail pageable;
  pageable.copy_kind = CopyKind::HostToDevice;
  pageable.src_kind = MemoryKind::Pageable;
  pageable.dst_kind = MemoryKind::Device;
  memcpy_event(b, 0, 7, 250 * us, 4760 * us, pageable, 1);
  host_call(b, 1, 1, "cudaStreamSynchronize", 5000 * us, 20 * us);
  host_call(b, 1, 1, "cudaMemcpyAsync", 9000 * us, 30 * us, EventKind::Runtime, 3);
  MemcpyDetail pinned = pageable;
  pinned.src_kind = MemoryKind::Pinned;
  memcpy_event(b, 0, 7, 9031 * us, 1 * us, pinned, 3);
  const Trace t = build(b);
  const HappensBefore g = HappensBefore::build(t);
  EXPECT_TRUE(g.node(node_at(g, host_lane_key(1, 1), 0)).launches_from_start());
  EXPECT_EQ(g.min_launch_latency_ns(), 1 * us);
  EXPECT_EQ(g.node(node_at(g, gpu_lane_key(0, 7), 9031)).start_binding, StartBinding::Launch);
  expect_path(path_of(g), {{0, 250, SegmentKind::LaunchLatency},
                           {250, 5010, SegmentKind::Copy},
                           {5010, 5020, SegmentKind::SyncWake},
                           {5020, 9000, SegmentKind::HostOwnWork},
                           {9000, 9030, SegmentKind::HostLaunch},
                           {9030, 9031, SegmentKind::LaunchLatency},
                           {9031, 9032, SegmentKind::Copy}});
}

// Launches that return after their kernels, as under CUDA_LAUNCH_BLOCKING=1: the first kernel starts 90 us before
// its call returns, so the least launch latency is -90 us and every later launch handed over by its call's end
// minus 90 us looks earlier than the end of the work before it. The third kernel's call began at 230, after the
// second kernel ended (210): nothing was queued behind that kernel, and the path runs through the host from the
// kernel's start back to the second kernel, not through a 30 us gap on the stream.
TEST(CriticalPath, WorkLaunchedAfterItsStreamsWorkEndedIsBoundByItsLaunch) {
  TraceBuilder b;
  launch(b, 1, 0, 100, 0, 7, 10, 10);
  launch(b, 2, 100, 5, 0, 7, 110, 100);
  launch(b, 3, 230, 5, 0, 7, 240, 100);
  const Trace t = build(b);
  const HappensBefore g = HappensBefore::build(t);
  EXPECT_EQ(g.min_launch_latency_ns(), -90 * us);
  EXPECT_EQ(g.node(node_at(g, gpu_lane_key(0, 7), 240)).start_binding, StartBinding::Launch);
  EXPECT_EQ(g.node(node_at(g, gpu_lane_key(0, 7), 110)).start_binding, StartBinding::Launch);
  expect_path(path_of(g), {{0, 100, SegmentKind::HostLaunch},
                           {100, 105, SegmentKind::HostLaunch},
                           {105, 230, SegmentKind::HostOwnWork},
                           {230, 235, SegmentKind::HostLaunch},
                           {235, 240, SegmentKind::LaunchLatency},
                           {240, 340, SegmentKind::Kernel}});
}

// Work that waited for the multiprocessors another stream's kernel held: the wait is named so, not a stream gap.
TEST(CriticalPath, AStartHeldByAnotherStreamsWorkIsNamedSo) {
  TraceBuilder b;
  kernel(b, 0, 13, "big gemm", 0, 700 * us);
  kernel(b, 0, 21, "small", 0, 10 * us);
  kernel(b, 0, 21, "next", 690 * us, 210 * us);
  const Trace t = build(b);
  const HappensBefore g = HappensBefore::build(t);
  expect_path(
      path_of(g),
      {{0, 10, SegmentKind::Kernel}, {10, 690, SegmentKind::HeldByOtherStreams}, {690, 900, SegmentKind::Kernel}});
}

// Work that starts before its launch call returns: the call's time on the path ends where the work began.
TEST(CriticalPath, WorkStartingBeforeItsLaunchReturnsCutsTheCall) {
  TraceBuilder b;
  launch(b, 1, 0, 10, 0, 7, 4, 16);
  const Trace t = build(b);
  const HappensBefore g = HappensBefore::build(t);
  EXPECT_EQ(g.min_launch_latency_ns(), -6 * us);
  expect_path(path_of(g), {{0, 4, SegmentKind::HostLaunch}, {4, 20, SegmentKind::Kernel}});
}

// A measured window ends when the host's measurement ends: after a synchronize, on its return.
TEST(CriticalPath, AMeasuredWindowEndsOnTheHostsReturnFromItsWait) {
  TraceBuilder b;
  launch(b, 1, 0, 5, 0, 7, 8, 100);
  host_call(b, 1, 1, "cudaDeviceSynchronize", 10 * us, 102 * us);
  measure(b, 0, 115);
  const Trace t = build(b);
  const HappensBefore g = HappensBefore::build(t);
  const CriticalPath p = path_of(g);
  EXPECT_EQ(p.window.start_ns, 0);
  EXPECT_EQ(p.window.end_ns, 115 * us);
  expect_path(p, {{0, 5, SegmentKind::HostLaunch},
                  {5, 8, SegmentKind::LaunchLatency},
                  {8, 108, SegmentKind::Kernel},
                  {108, 112, SegmentKind::SyncWake},
                  {112, 115, SegmentKind::HostOwnWork}});
}

TEST(CriticalPath, TracingOverheadInTheGapIsItsOwnSegmentAndItsRemovalIsReplayed) {
  TraceBuilder b;
  launch(b, 1, 0, 5, 0, 7, 6, 10);
  overhead(b, "CUPTI buffer request", 6, 50);
  launch(b, 2, 60, 5, 0, 7, 68, 10);
  const Trace t = build(b);
  const HappensBefore g = HappensBefore::build(t);
  expect_path(path_of(g), {{0, 5, SegmentKind::HostLaunch},
                           {5, 10, SegmentKind::HostOwnWork},
                           {10, 60, SegmentKind::TracingOverhead},
                           {60, 65, SegmentKind::HostLaunch},
                           {65, 68, SegmentKind::LaunchLatency},
                           {68, 78, SegmentKind::Kernel}});
  const Effect e = effect_of(g, replay(g), window_of(g), Removal{bit(PartKind::TracingOverhead), 0, {}, {}, {}});
  EXPECT_EQ(e.saving_ns(), 50 * us);
}

// A Gloo all-reduce served by a worker thread (3), enqueued by the autograd thread (2). Thread 2: c10d::allreduce_
// [100,150) holding cudaEventRecord [110,115), a launch [160,165) (kernel [166,176)), then nothing until
// cudaStreamWaitEvent [1000,1005). Worker: gloo:all_reduce [200,950) holding cudaStreamSynchronize [210,215) and
// aten::copy_ [895,915) with cudaMemcpyAsync [900,910). The worker's first call waits for the enqueue (the
// cudaEventRecord, thread 2's last call in the c10d op); thread 2's next call after the collective waits for the
// worker's last (it made no call in between), its wait being [200,950) of its silence. Inside the range the worker
// recorded nothing for [215,895): that is the transfer and the wait for the peers, not the worker's own work.
void expect_worker_handoffs(std::string_view range_name, EventKind range_kind) {
  TraceBuilder b;
  host_call(b, 1, 2, "c10d::allreduce_", 100 * us, 50 * us, EventKind::CpuOp);
  host_call(b, 1, 2, "cudaEventRecord", 110 * us, 5 * us);
  launch(b, 1, 160, 5, 0, 7, 166, 10, 2);
  host_call(b, 1, 2, "cudaStreamWaitEvent", 1000 * us, 5 * us);
  host_call(b, 1, 3, range_name, 200 * us, 750 * us, range_kind);
  host_call(b, 1, 3, "cudaStreamSynchronize", 210 * us, 5 * us);
  host_call(b, 1, 3, "aten::copy_", 895 * us, 20 * us, EventKind::CpuOp);
  host_call(b, 1, 3, "cudaMemcpyAsync", 900 * us, 10 * us);
  const Trace t = build(b);
  const HappensBefore g = HappensBefore::build(t);
  const NodeId record = node_at(g, host_lane_key(1, 2), 110), wait = node_at(g, host_lane_key(1, 2), 1000),
               sync = node_at(g, host_lane_key(1, 3), 210), copy = node_at(g, host_lane_key(1, 3), 900);
  ASSERT_EQ(g.edges_into(sync).size(), 1u);
  EXPECT_EQ(g.edges_into(sync)[0].kind, EdgeKind::Handoff);
  EXPECT_EQ(g.edges_into(sync)[0].from, record);
  ASSERT_EQ(g.edges_into(wait).size(), 1u);
  EXPECT_EQ(g.edges_into(wait)[0].kind, EdgeKind::Handoff);
  EXPECT_EQ(g.edges_into(wait)[0].from, copy);
  EXPECT_EQ(g.gap_wait_ns(wait), 750 * us);
  EXPECT_EQ(window_us(g), 905);  // [100,1005): the unchanged replay reproduces the recording
  const CriticalPath p = path_of(g);
  const LaneIndex worker = *t.find_lane(host_lane_key(1, 3)), caller = *t.find_lane(host_lane_key(1, 2));
  bool silence_said = false;
  for (const Segment& s : p.segments) {
    if (s.node == kNoNode) continue;
    const LaneIndex lane = g.lane_of(s.node);
    if (lane == worker && s.start_ns == 215 * us && s.end_ns == 895 * us) {
      EXPECT_EQ(to_string(s.kind), to_string(SegmentKind::NotRecorded));
      silence_said = true;
    }
    // While the worker served the collective the caller neither worked nor was silent on the path.
    if (lane == caller && s.start_ns >= 200 * us && s.end_ns <= 950 * us)
      ADD_FAILURE() << "caller on the path at " << s.start_ns << ": " << to_string(s.kind);
  }
  EXPECT_TRUE(silence_said);
}

TEST(CriticalPath, AGlooWorkerWaitsForTheEnqueueAndTheCallerForTheCollective) {
  expect_worker_handoffs("gloo:all_reduce", EventKind::Annotation);
}

// The same with the worker's collective held by PyTorch's record_param_comms op.
TEST(CriticalPath, ARecordParamCommsWorkerWaitsLikeAGlooOne) {
  expect_worker_handoffs("record_param_comms", EventKind::CpuOp);
}

// The same run recorded by a Kineto that wrote no fwdbwd flows: aten::mm and MmBackward0 carry the same op
// "Sequence number" (7), and that alone joins the engine's launch to the main thread's, and the main thread's next
// launch to the engine's. An op with another number (8) on the main thread alone links nothing.
TEST(CriticalPath, WithoutFwdbwdFlowsTheOpsSequenceNumbersHandTheBackwardOver) {
  TraceBuilder b;
  const EventArg seven[] = {{"Sequence number", "7"}, {"Fwd thread id", "0"}};
  const EventArg eight[] = {{"Sequence number", "8"}};
  const std::uint32_t forward_args = b.add_args(seven), other_args = b.add_args(eight);
  auto op = [&](std::int64_t tid, std::string_view name, TimeNs start_us, TimeNs len_us, std::uint32_t args) {
    Event e = analysis::testing::make_event(b, name, start_us * us, len_us * us, EventKind::CpuOp);
    e.args = args;
    b.add_event(b.lane(host_lane_key(1, tid)), e);
  };
  op(1, "aten::mm", 0, 20, forward_args);
  launch(b, 1, 5, 5, 0, 7, 12, 20);
  op(2, "MmBackward0", 40, 80, forward_args);
  launch(b, 2, 50, 5, 0, 7, 56, 50, 2);
  op(1, "aten::add", 130, 10, other_args);
  op(1, "Optimizer.step#SGD.step", 150, 20, kNoArgs);
  launch(b, 3, 155, 5, 0, 7, 161, 10);
  const Trace t = build(b);
  ASSERT_TRUE(t.backward_links().empty());
  const HappensBefore g = HappensBefore::build(t);
  const NodeId l1 = node_at(g, host_lane_key(1, 1), 5), l2 = node_at(g, host_lane_key(1, 2), 50),
               l3 = node_at(g, host_lane_key(1, 1), 155);
  ASSERT_EQ(g.edges_into(l2).size(), 1u);
  EXPECT_EQ(g.edges_into(l2)[0].kind, EdgeKind::Handoff);
  EXPECT_EQ(g.edges_into(l2)[0].from, l1);
  ASSERT_EQ(g.edges_into(l3).size(), 1u);
  EXPECT_EQ(g.edges_into(l3)[0].from, l2);
  EXPECT_EQ(window_us(g), 171);
}

// PyTorch's backward on the autograd engine thread (tid 2), handed over by the main thread (tid 1), which waits in
// backward() meanwhile. Main: aten::mm [0,20) launching K1 (launch [5,10), kernel [12,32)), nothing recorded
// [20,150), the optimizer's op [150,170) launching K3 ([155,160), [161,171)). Engine: MmBackward0 [40,120)
// launching K2 ([50,55), [56,106)); Kineto's fwdbwd flow joins aten::mm to MmBackward0. The path runs on the main
// thread until the engine's recorded activity begins (40), on the engine until its activity ends (120), and back;
// what neither thread recorded is said so, and the engine's idle time before 40 is no one's work.
TEST(CriticalPath, TheAutogradThreadRunsWhatTheMainThreadHandsItWhileTheMainThreadWaits) {
  TraceBuilder b;
  const LaneIndex main = b.lane(host_lane_key(1, 1)), engine = b.lane(host_lane_key(1, 2));
  host_call(b, 1, 1, "aten::mm", 0, 20 * us, EventKind::CpuOp);
  launch(b, 1, 5, 5, 0, 7, 12, 20);
  host_call(b, 1, 2, "MmBackward0", 40 * us, 80 * us, EventKind::CpuOp);
  launch(b, 2, 50, 5, 0, 7, 56, 50, 2);
  host_call(b, 1, 1, "Optimizer.step#SGD.step", 150 * us, 20 * us, EventKind::CpuOp);
  launch(b, 3, 155, 5, 0, 7, 161, 10);
  b.add_backward_hint(1, main, 0, engine, 40 * us);
  const Trace t = build(b);
  const HappensBefore g = HappensBefore::build(t);
  const NodeId l1 = node_at(g, host_lane_key(1, 1), 5), l2 = node_at(g, host_lane_key(1, 2), 50),
               l3 = node_at(g, host_lane_key(1, 1), 155);
  ASSERT_EQ(g.edges_into(l2).size(), 1u);
  EXPECT_EQ(g.edges_into(l2)[0].kind, EdgeKind::Handoff);
  EXPECT_EQ(g.edges_into(l2)[0].from, l1);
  ASSERT_EQ(g.edges_into(l3).size(), 1u);
  EXPECT_EQ(g.edges_into(l3)[0].from, l2);
  EXPECT_EQ(g.gap_wait_ns(l3), 80 * us);  // the main thread inside backward() while the engine ran, [40,120)
  EXPECT_EQ(window_us(g), 171);           // the unchanged replay reproduces the recording
  const CriticalPath p = path_of(g);
  expect_path(p, {{0, 5, SegmentKind::HostOwnWork},
                  {5, 10, SegmentKind::HostLaunch},
                  {10, 20, SegmentKind::HostOwnWork},
                  {20, 40, SegmentKind::NotRecorded},
                  {40, 50, SegmentKind::HostOwnWork},
                  {50, 55, SegmentKind::HostLaunch},
                  {55, 120, SegmentKind::HostOwnWork},
                  {120, 150, SegmentKind::NotRecorded},
                  {150, 155, SegmentKind::HostOwnWork},
                  {155, 160, SegmentKind::HostLaunch},
                  {160, 161, SegmentKind::LaunchLatency},
                  {161, 171, SegmentKind::Kernel}});
  // The engine's 65 us after its launch and its 10 us before it are its own work; the main thread's 30 + 20 us
  // with nothing recorded are not.
  const std::vector<std::pair<TimeNs, LaneIndex>> lanes{{40, engine}, {55, engine}, {20, main}, {120, main}};
  for (const auto& [start_us, lane] : lanes) {
    const TimeNs start_ns = start_us * us;
    const auto it =
        std::find_if(p.segments.begin(), p.segments.end(), [&](const Segment& s) { return s.start_ns == start_ns; });
    ASSERT_NE(it, p.segments.end());
    EXPECT_EQ(g.lane_of(it->node), lane) << start_us;
  }
  // Without the engine's backward, the main thread would go on at once: the window loses the engine's share.
  Removal r;
  r.edges = bit(EdgeKind::Handoff);
  EXPECT_LT(window_us(g, r), 171);
}

// Without a fwdbwd flow nothing says who woke the thread: its silent time stays unexplained, never its own work.
TEST(CriticalPath, TimeAThreadRecordedNothingInIsUnexplainedNotItsWork) {
  TraceBuilder b;
  host_call(b, 1, 1, "aten::mm", 0, 10 * us, EventKind::CpuOp);
  launch(b, 1, 2, 3, 0, 7, 6, 2);
  host_call(b, 1, 1, "aten::add", 100 * us, 10 * us, EventKind::CpuOp);
  launch(b, 2, 102, 3, 0, 7, 106, 2);
  const Trace t = build(b);
  const HappensBefore g = HappensBefore::build(t);
  expect_path(path_of(g), {{0, 2, SegmentKind::HostOwnWork},
                           {2, 5, SegmentKind::HostLaunch},
                           {5, 10, SegmentKind::HostOwnWork},
                           {10, 100, SegmentKind::NotRecorded},
                           {100, 102, SegmentKind::HostOwnWork},
                           {102, 105, SegmentKind::HostLaunch},
                           {105, 106, SegmentKind::LaunchLatency},
                           {106, 108, SegmentKind::Kernel},
                           {108, 110, SegmentKind::NotRecorded}});
}

// Two ranks over Gloo, merged: each rank's autograd thread (2) enqueues the all-reduce (c10d::allreduce_ holding a
// cudaEventRecord), its worker (3) serves it in a gloo:all_reduce range: cudaStreamSynchronize on arrival, nothing
// recorded while it waits and transfers, then the copy back (aten::copy_ holding cudaMemcpyAsync [955,965)).
// Rank 0 (pid 100) enqueues at [110,115) and arrives at 210. Rank 1 (pid 200) sleeps in a "straggler sleep" range
// [20,620) first, enqueues at [660,665) and arrives at 720: both copies wait for it, 235 us of transfer after it.
Trace straggler_pair(bool rank0_arrival_recorded = true) {
  TraceBuilder b;
  auto rank = [&](std::int64_t pid, TimeNs enqueue_us, TimeNs arrival_us) {
    host_call(b, pid, 2, "c10d::allreduce_", (enqueue_us - 10) * us, 50 * us, EventKind::CpuOp);
    host_call(b, pid, 2, "cudaEventRecord", enqueue_us * us, 5 * us);
    host_call(b, pid, 3, "gloo:all_reduce", (arrival_us - 10) * us, (1000 - arrival_us) * us, EventKind::Annotation);
    if (pid != 100 || rank0_arrival_recorded) host_call(b, pid, 3, "cudaStreamSynchronize", arrival_us * us, 5 * us);
    const TimeNs copy_us = pid == 100 && !rank0_arrival_recorded ? 940 : 955;
    host_call(b, pid, 3, "aten::copy_", (copy_us - 5) * us, 20 * us, EventKind::CpuOp);
    host_call(b, pid, 3, "cudaMemcpyAsync", copy_us * us, 10 * us);
  };
  host_call(b, 200, 2, "cudaEventRecord", 10 * us, 5 * us);
  host_call(b, 200, 2, "straggler sleep", 20 * us, 600 * us, EventKind::Annotation);
  rank(100, 110, 210);
  rank(200, 660, 720);
  RankInfo r0, r1;
  r0.rank = 0, r0.pids = {100};
  r1.rank = 1, r1.pids = {200};
  b.metadata().ranks = {r0, r1};
  return build(b);
}

TEST(CriticalPath, AGlooCollectivesEndWaitsForTheLastRanksArrival) {
  const Trace t = straggler_pair();
  const HappensBefore g = HappensBefore::build(t);
  const LaneKey worker0 = host_lane_key(100, 3), worker1 = host_lane_key(200, 3);
  const NodeId arrival0 = node_at(g, worker0, 210), arrival1 = node_at(g, worker1, 720);
  const NodeId copy0 = node_at(g, worker0, 955), copy1 = node_at(g, worker1, 955);
  ASSERT_NE(copy0, kNoNode);
  ASSERT_NE(copy1, kNoNode);
  // Each copy waits for both arrivals; only rank 0's is held by the other rank's (rank 1 arrived last).
  for (const NodeId copy : {copy0, copy1}) {
    std::vector<NodeId> from;
    for (const Edge& e : g.edges_into(copy)) {
      EXPECT_EQ(e.kind, EdgeKind::Collective);
      EXPECT_FALSE(e.to_end());
      EXPECT_EQ(e.binding, copy == copy0 && e.from == arrival1);
      from.push_back(e.from);
    }
    std::sort(from.begin(), from.end());
    EXPECT_EQ(from, (std::vector<NodeId>{std::min(arrival0, arrival1), std::max(arrival0, arrival1)}));
  }
  EXPECT_EQ(g.gap_wait_ns(copy0), 505 * us);  // rank 0's worker from its sync's end (215) to rank 1's arrival
  EXPECT_EQ(g.gap_wait_ns(copy1), 0);
  EXPECT_EQ(window_us(g), 980);  // [10,990): the unchanged replay reproduces the recording
  EXPECT_TRUE(g.anomalies().lines().empty());

  // The path ends on a copy and crosses to rank 1 at its arrival: rank 0 waited there for rank 1, whose sleep
  // before its enqueue is on the path; nothing of rank 0 before rank 1's arrival is.
  const CriticalPath p = path_of(g);
  const LaneIndex sleeper = *t.find_lane(host_lane_key(200, 2));
  bool crossed = false, slept = false;
  for (const Segment& s : p.segments) {
    if (s.node == kNoNode) continue;
    const LaneIndex lane = g.lane_of(s.node);
    if (s.kind == SegmentKind::Communication) {
      EXPECT_EQ(s.node, copy0);
      EXPECT_EQ(s.start_ns, 720 * us);
      EXPECT_EQ(s.end_ns, 955 * us);
      crossed = true;
    }
    if (lane == sleeper && s.kind == SegmentKind::HostOwnWork && s.start_ns <= 20 * us && s.end_ns >= 620 * us)
      slept = true;
    if (t.lane(lane).key.pid == 100 && s.end_ns <= 720 * us)
      ADD_FAILURE() << "rank 0 on the path before rank 1 arrived, at " << s.start_ns << ": " << to_string(s.kind);
  }
  EXPECT_TRUE(crossed);
  EXPECT_TRUE(slept);

  // Without rank 1's own work before its enqueue (the sleep; the 30 us it recorded nothing in stay), rank 1
  // arrives at 105 and rank 0 last, at 210: rank 0's copy starts 235 us after its sync (at 450) and its range ends
  // 25 us after the copy, at 485: the window is 505 us shorter.
  Removal r;
  r.drop_gap = [&](NodeId n) { return g.lane_of(n) == sleeper; };
  EXPECT_EQ(window_us(g, r), 475);
}

// A range holding one call says not whether that call is the rank's arrival or the collective's end: nothing is
// joined, rather than a guess. (Rank 0's copy at 940, taken for its arrival, would hold rank 1's copy at 955.)
TEST(CriticalPath, AGlooRangeWithOneCallJoinsNoRank) {
  const Trace t = straggler_pair(false);
  const HappensBefore g = HappensBefore::build(t);
  for (const Edge& e : g.edges()) EXPECT_NE(e.kind, EdgeKind::Collective);
  EXPECT_EQ(g.gap_wait_ns(node_at(g, host_lane_key(200, 3), 955)), 0);
}

}  // namespace
}  // namespace gtv::causal
