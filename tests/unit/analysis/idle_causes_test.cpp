#include "gtv/analysis/idle_causes.h"

#include <gtest/gtest.h>

#include "gtv/analysis/report.h"
#include "trace_helpers.h"

namespace gtv::analysis {
using namespace testing;

namespace {
constexpr TimeNs us = kNsPerUs;

Region whole(const Trace& t) { return Region{t.start_ns(), t.end_ns(), false, "the whole trace"}; }

// A kernel on (device, stream) launched by cudaLaunchKernel on host thread (1, 1).
void launch(TraceBuilder& b, std::uint64_t corr, TimeNs call_ns, TimeNs call_len_ns, std::int64_t device,
            std::int64_t stream, TimeNs kernel_ns, TimeNs kernel_len_ns, std::string_view name = "gemm") {
  host_call(b, 1, 1, "cudaLaunchKernel", call_ns, call_len_ns, EventKind::Runtime, corr);
  kernel(b, device, stream, name, kernel_ns, kernel_len_ns, corr);
}

IdleCauses analyze(const Trace& t, const Region& r, const WarmUp& warmup = {}) {
  return analyze_idle_causes(t, r, analyze_host_blocking(t), warmup);
}

TimeNs total(const IdleCauses& idle, std::int64_t device, IdleCause cause) {
  for (const IdleCauseTotal& c : idle.totals)
    if (c.device == device && c.cause == cause) return c.total_ns;
  return 0;
}

std::string detail(const IdleCauses& idle, std::int64_t device, IdleCause cause) {
  for (const IdleCauseTotal& c : idle.totals)
    if (c.device == device && c.cause == cause) return c.detail;
  return "(none)";
}

const IdleCauseTotal* top(const IdleCauses& idle, std::int64_t device) {
  for (const IdleCauseTotal& c : idle.totals)
    if (c.device == device) return &c;
  return nullptr;
}

// Every idle nanosecond has exactly one cause: each GPU's pieces are sorted, disjoint, inside the region and add
// up to its idle time.
void expect_tiles(const IdleCauses& idle) {
  for (const GpuIdle& g : idle.gpus) {
    TimeNs sum = 0, last_end = idle.region.start_ns;
    for (const IdleInterval& i : idle.intervals) {
      if (i.device != g.device) continue;
      EXPECT_GE(i.start_ns, last_end);
      EXPECT_LT(i.start_ns, i.end_ns);
      EXPECT_LE(i.end_ns, idle.region.end_ns);
      sum += i.end_ns - i.start_ns;
      last_end = i.end_ns;
    }
    EXPECT_EQ(sum, g.idle_ns) << "GPU " << g.device;
  }
}

// The copy-pageable pattern: the host launches GPU 0's work, then blocks in an "async" copy to pageable memory
// until GPU 0 is done, and only then launches GPU 1's work.
Trace pageable_copy_trace() {
  TraceBuilder b;
  launch(b, 1, 0, 10 * us, 0, 7, 10 * us, 100 * us);
  host_call(b, 1, 1, "cudaMemcpyAsync", 12 * us, 113 * us, EventKind::Runtime, 2);
  memcpy_event(b, 0, 7, 110 * us, 10 * us, {1024, CopyKind::DeviceToHost, MemoryKind::Device, MemoryKind::Pageable, -1},
               2);
  launch(b, 3, 130 * us, 10 * us, 1, 15, 140 * us, 60 * us);
  return build(b);
}
}  // namespace

TEST(IdleCauses, PageableCopyBlocksTheHostBeforeTheOtherGpu) {
  const Trace t = pageable_copy_trace();
  const IdleCauses idle = analyze(t, whole(t));
  ASSERT_EQ(idle.gpus.size(), 2u);
  EXPECT_EQ(idle.gpus[1].idle_ns, 140 * us);
  const IdleCauseTotal* gpu1 = top(idle, 1);
  ASSERT_NE(gpu1, nullptr);
  EXPECT_EQ(gpu1->cause, IdleCause::HostBlocked);
  EXPECT_EQ(gpu1->detail, "cudaMemcpyAsync to pageable memory");
  EXPECT_EQ(gpu1->total_ns, 113 * us);  // [12, 125)
  // [0, 12): launching GPU 0's kernel and copy; [125, 140): after the copy, up to the end of GPU 1's launch.
  EXPECT_EQ(total(idle, 1, IdleCause::HostLaunchingOther), 12 * us);
  EXPECT_EQ(total(idle, 1, IdleCause::HostBusy), 15 * us);
  // GPU 0: before its first launch returned, then nothing more after the copy.
  EXPECT_EQ(total(idle, 0, IdleCause::HostBusy), 10 * us);
  EXPECT_EQ(total(idle, 0, IdleCause::NothingPlaced), 80 * us);
  // GPU 0 held the most work: its tail is not imbalance.
  EXPECT_EQ(detail(idle, 0, IdleCause::NothingPlaced), "its last work ended before the end of the whole trace");
  expect_tiles(idle);
  ASSERT_EQ(idle.lines.size(), 2u);
  EXPECT_EQ(idle.lines[1],
            "GPU 1 was idle for 140.0 us of 200.0 us in the whole trace (70%): host blocked 113.0 us (cudaMemcpyAsync "
            "to pageable memory), host busy 15.0 us (the launching thread had not launched the next work yet), host "
            "launching "
            "work for GPU 0 12.0 us.");
  EXPECT_EQ(idle.headline,
            "GPU 1 idle for 70% of the whole trace: mostly host blocked (cudaMemcpyAsync to pageable memory), "
            "113.0 us of 140.0 us idle.");
}

TEST(IdleCauses, ImbalanceNamesTheGpuHoldingMostModels) {
  TraceBuilder b;
  launch(b, 1, 0, 10 * us, 0, 7, 10 * us, 90 * us);
  launch(b, 2, 10 * us, 10 * us, 1, 15, 20 * us, 30 * us);
  launch(b, 3, 20 * us, 10 * us, 0, 7, 100 * us, 90 * us);
  b.add_range({"model 0 forward", RangeKind::Forward, 0, 10 * us, 1, 1, 0});
  b.add_range({"model 1 forward", RangeKind::Forward, 10 * us, 20 * us, 1, 1, 1});
  b.add_range({"model 2 forward", RangeKind::Forward, 20 * us, 30 * us, 1, 1, 0});
  const Trace t = build(b);
  const IdleCauses idle = analyze(t, whole(t));
  const IdleCauseTotal* gpu1 = top(idle, 1);
  ASSERT_NE(gpu1, nullptr);
  EXPECT_EQ(gpu1->cause, IdleCause::NothingPlaced);
  EXPECT_EQ(gpu1->detail, "GPU 0 holds 2 of the 3 models");
  EXPECT_EQ(gpu1->total_ns, 140 * us);                                // [50, 190)
  EXPECT_EQ(total(idle, 1, IdleCause::HostLaunchingOther), 10 * us);  // model 0's launch
  EXPECT_EQ(total(idle, 1, IdleCause::HostBusy), 10 * us);            // its own launch
  EXPECT_EQ(total(idle, 0, IdleCause::HostBusy), 10 * us);
  EXPECT_EQ(idle.gpus[0].idle_ns, 10 * us);
  expect_tiles(idle);
  EXPECT_EQ(idle.headline,
            "GPU 1 idle for 84% of the whole trace: mostly nothing placed on it (GPU 0 holds 2 of the 3 models), "
            "140.0 us of 160.0 us idle.");
}

TEST(IdleCauses, ModelsOfTwoProcessesCountSeparately) {
  TraceBuilder b;
  kernel(b, 0, 7, "a", 0, 100 * us);
  kernel(b, 1, 7, "b", 0, 40 * us);
  b.add_range({"model 0 forward", RangeKind::Forward, 0, 10 * us, 1, 1, 0});
  b.add_range({"model 1 forward", RangeKind::Forward, 10 * us, 20 * us, 1, 1, 0});
  b.add_range({"model 0 forward", RangeKind::Forward, 0, 10 * us, 2, 2, 1});
  const Trace t = build(b);
  const IdleCauses idle = analyze(t, whole(t));
  ASSERT_EQ(idle.intervals.size(), 1u);
  EXPECT_EQ(idle.intervals[0].device, 1);
  EXPECT_EQ(idle.intervals[0].cause, IdleCause::NothingPlaced);
  EXPECT_EQ(idle.intervals[0].detail, "GPU 0 holds 2 of the 3 models");
}

TEST(IdleCauses, WorkQueuedOnAnotherStreamWaitsOnADependency) {
  TraceBuilder b;
  launch(b, 1, 0, 10 * us, 0, 7, 10 * us, 90 * us);
  launch(b, 2, 10 * us, 10 * us, 0, 8, 150 * us, 50 * us);  // launched at 20 us, started at 150 us: held
  const Trace t = build(b);
  const IdleCauses idle = analyze(t, whole(t));
  EXPECT_EQ(total(idle, 0, IdleCause::WaitingOnDependency), 50 * us);
  EXPECT_EQ(total(idle, 0, IdleCause::HostBusy), 10 * us);
  EXPECT_EQ(top(idle, 0)->cause, IdleCause::WaitingOnDependency);
  EXPECT_EQ(top(idle, 0)->detail, "another stream or an event held it");
  expect_tiles(idle);
}

// cudaStreamWaitEvent(stream 8) on an event recorded on `source_stream` after call `record_corr`: the work launched
// on stream 8 after call `wait_corr` waits for the last work launched on the source stream before the record.
void wait_on_stream(TraceBuilder& b, std::int64_t source_device, std::int64_t source_stream, std::uint64_t record_corr,
                    std::uint64_t wait_corr) {
  TraceBuilder::WaitHint w;
  w.waiter = TraceBuilder::Waiter::StreamWork;
  w.source_device = source_device;
  w.source_stream = source_stream;
  w.source_before_correlation = record_corr;
  w.wait_correlation = wait_corr;
  w.waiter_device = 0;
  w.waiter_stream = 8;
  b.add_wait(w);
}

TEST(IdleCauses, AnEventWaitNamesTheStreamTheWorkWaitedOn) {
  TraceBuilder b;
  launch(b, 1, 0, 10 * us, 0, 7, 10 * us, 90 * us);
  launch(b, 4, 10 * us, 10 * us, 0, 8, 150 * us, 50 * us);  // held until 150 us by the wait on stream 7
  wait_on_stream(b, 0, 7, 2, 3);
  const Trace t = build(b);
  ASSERT_EQ(t.dependencies().size(), 1u);
  const IdleCauses idle = analyze(t, whole(t));
  EXPECT_EQ(total(idle, 0, IdleCause::WaitingOnDependency), 50 * us);
  EXPECT_EQ(detail(idle, 0, IdleCause::WaitingOnDependency), "on stream 7, through an event wait");
  ASSERT_EQ(idle.lines.size(), 1u);
  EXPECT_NE(idle.lines[0].find("launched work waiting 50.0 us (on stream 7, through an event wait)"), std::string::npos)
      << idle.lines[0];
  expect_tiles(idle);
}

TEST(IdleCauses, AWaitOnWorkOfAnotherGpuNamesThatGpu) {
  TraceBuilder b;
  launch(b, 1, 0, 10 * us, 0, 7, 10 * us, 90 * us);
  launch(b, 2, 10 * us, 5 * us, 1, 13, 20 * us, 110 * us);  // GPU 1 ends at 130 us, inside GPU 0's gap
  launch(b, 5, 15 * us, 10 * us, 0, 8, 150 * us, 50 * us);  // launched after the wait (4) on GPU 1's event (3)
  wait_on_stream(b, 1, 13, 3, 4);
  const Trace t = build(b);
  const IdleCauses idle = analyze(t, whole(t));
  EXPECT_EQ(detail(idle, 0, IdleCause::WaitingOnDependency), "on GPU 1 stream 13, through an event wait");
  expect_tiles(idle);
}

TEST(IdleCauses, AWaitSatisfiedBeforeTheGpuWentIdleIsNotNamed) {
  TraceBuilder b;
  launch(b, 1, 0, 5 * us, 0, 7, 10 * us, 30 * us);       // the work waited for ends at 40 us
  launch(b, 2, 5 * us, 5 * us, 0, 9, 40 * us, 60 * us);  // other work keeps the GPU busy until 100 us
  launch(b, 5, 10 * us, 10 * us, 0, 8, 150 * us, 50 * us);
  wait_on_stream(b, 0, 7, 3, 4);
  const Trace t = build(b);
  ASSERT_EQ(t.dependencies().size(), 1u);
  const IdleCauses idle = analyze(t, whole(t));
  EXPECT_EQ(total(idle, 0, IdleCause::WaitingOnDependency), 50 * us);
  EXPECT_EQ(detail(idle, 0, IdleCause::WaitingOnDependency), "another stream or an event held it");
}

TEST(IdleCauses, GapBehindFinishedWorkOnOneStreamIsTheGpusOwn) {
  TraceBuilder b;
  launch(b, 1, 0, 10 * us, 0, 7, 10 * us, 90 * us);
  launch(b, 2, 10 * us, 10 * us, 0, 7, 103 * us, 97 * us);
  const Trace t = build(b);
  const IdleCauses idle = analyze(t, whole(t));
  EXPECT_EQ(total(idle, 0, IdleCause::QueuedGap), 3 * us);
  EXPECT_EQ(detail(idle, 0, IdleCause::QueuedGap), "stream 7, behind finished work");
  EXPECT_EQ(total(idle, 0, IdleCause::WaitingOnDependency), 0);
  expect_tiles(idle);
}

TEST(IdleCauses, StartUpAfterTheLaunchReturnedIsNotADependency) {
  TraceBuilder b;
  launch(b, 1, 0, 10 * us, 0, 7, 30 * us, 70 * us);
  const Trace t = build(b);
  const IdleCauses idle = analyze(t, whole(t));
  EXPECT_EQ(total(idle, 0, IdleCause::HostBusy), 10 * us);
  EXPECT_EQ(total(idle, 0, IdleCause::QueuedGap), 20 * us);
  EXPECT_EQ(detail(idle, 0, IdleCause::QueuedGap), "stream 7, after its launch returned");
  EXPECT_EQ(total(idle, 0, IdleCause::WaitingOnDependency), 0);
}

TEST(IdleCauses, HostLaunchingForTheOtherGpu) {
  TraceBuilder b;
  for (int i = 0; i < 4; ++i) launch(b, 1 + i, i * 12 * us, 10 * us, 0, 7, (5 + i * 12) * us, 10 * us);
  launch(b, 9, 50 * us, 10 * us, 1, 15, 60 * us, 40 * us);
  const Trace t = build(b);
  const IdleCauses idle = analyze(t, whole(t));
  EXPECT_EQ(top(idle, 1)->cause, IdleCause::HostLaunchingOther);
  EXPECT_EQ(top(idle, 1)->detail, "launching work for GPU 0");
  EXPECT_EQ(total(idle, 1, IdleCause::HostLaunchingOther), 46 * us);  // first launch start to last launch end
  EXPECT_EQ(total(idle, 1, IdleCause::HostBusy), 14 * us);
  expect_tiles(idle);
}

TEST(IdleCauses, WarmUpSpanOfTheLaunchingThread) {
  TraceBuilder b;
  launch(b, 1, 0, 5 * us, 0, 7, 5 * us, 15 * us);
  launch(b, 2, 60 * us, 10 * us, 0, 7, 70 * us, 30 * us);
  const Trace t = build(b);
  WarmUp warmup;
  WarmUpFinding f;
  f.cause = WarmUpCause::ModuleLoading;
  f.device = 0;
  f.pid = 1;
  f.tid = 1;
  f.start_ns = 20 * us;
  f.end_ns = 60 * us;
  f.spans = {{20 * us, 30 * us}, {35 * us, 60 * us}};
  warmup.findings.push_back(f);
  const IdleCauses idle = analyze(t, whole(t), warmup);
  EXPECT_EQ(top(idle, 0)->cause, IdleCause::WarmUp);
  EXPECT_EQ(top(idle, 0)->detail, std::string(to_string(WarmUpCause::ModuleLoading)));
  EXPECT_EQ(total(idle, 0, IdleCause::WarmUp), 35 * us);
  EXPECT_EQ(total(idle, 0, IdleCause::HostBusy), 5 * us + 5 * us + 10 * us);  // first launch, the gap, the launch
  expect_tiles(idle);
}

TEST(IdleCauses, SyncWaitingForACommunicationKernelIsAPeerRank) {
  TraceBuilder b;
  launch(b, 1, 0, 10 * us, 0, 7, 10 * us, 90 * us, "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
  host_call(b, 1, 1, "cudaStreamSynchronize", 10 * us, 95 * us);
  launch(b, 2, 105 * us, 5 * us, 1, 15, 110 * us, 40 * us);
  const Trace t = build(b);
  const IdleCauses idle = analyze(t, whole(t));
  EXPECT_EQ(top(idle, 1)->cause, IdleCause::PeerRank);
  EXPECT_EQ(top(idle, 1)->detail, "cudaStreamSynchronize waiting for an NCCL kernel");
  EXPECT_EQ(total(idle, 1, IdleCause::PeerRank), 95 * us);
  expect_tiles(idle);
}

TEST(IdleCauses, SyncWaitingForOrdinaryWorkIsHostBlocked) {
  TraceBuilder b;
  launch(b, 1, 0, 10 * us, 0, 7, 10 * us, 90 * us);
  host_call(b, 1, 1, "cudaDeviceSynchronize", 10 * us, 95 * us);
  launch(b, 2, 105 * us, 5 * us, 1, 15, 110 * us, 40 * us);
  const Trace t = build(b);
  const IdleCauses idle = analyze(t, whole(t));
  EXPECT_EQ(top(idle, 1)->cause, IdleCause::HostBlocked);
  EXPECT_EQ(top(idle, 1)->detail, "cudaDeviceSynchronize");
  EXPECT_EQ(total(idle, 1, IdleCause::PeerRank), 0);
}

TEST(IdleCauses, NoFlowsMeansUnknown) {
  TraceBuilder b;
  kernel(b, 0, 7, "a", 0, 10 * us);
  kernel(b, 0, 7, "b", 20 * us, 10 * us);
  const Trace t = build(b);
  const IdleCauses idle = analyze(t, whole(t));
  ASSERT_EQ(idle.intervals.size(), 1u);
  EXPECT_EQ(idle.intervals[0].cause, IdleCause::Unknown);
  EXPECT_EQ(idle.intervals[0].start_ns, 10 * us);
  EXPECT_EQ(idle.intervals[0].end_ns, 20 * us);
  EXPECT_EQ(idle.intervals[0].detail, "no launch recorded for the next work");
}

TEST(IdleCauses, GpuWithNoWorkInTheRegionHadNothingPlaced) {
  TraceBuilder b;
  launch(b, 1, 0, 10 * us, 0, 7, 10 * us, 10 * us);
  launch(b, 2, 100 * us, 10 * us, 1, 15, 110 * us, 90 * us);
  const Trace t = build(b);
  const Region timed{100 * us, 200 * us, true, "the timed loop"};
  const IdleCauses idle = analyze(t, timed);
  ASSERT_EQ(idle.intervals.size(), 2u);  // GPU 0 all of it; GPU 1 until its launch returned
  EXPECT_EQ(total(idle, 0, IdleCause::NothingPlaced), 100 * us);
  EXPECT_EQ(top(idle, 0)->detail, "GPU 1 did 100.0% of the GPUs' busy time, this GPU 0.0%");
  EXPECT_EQ(total(idle, 1, IdleCause::HostBusy), 10 * us);
  EXPECT_EQ(
      idle.lines[0],
      "GPU 0 was idle for 100.0 us of 100.0 us in the timed loop (100%): nothing placed on it 100.0 us (GPU 1 did "
      "100.0% of the GPUs' busy time, this GPU 0.0%).");
  expect_tiles(idle);
}

TEST(IdleCauses, AlwaysBusyGpuGetsAPlainLineAndNoHeadline) {
  TraceBuilder b;
  kernel(b, 0, 7, "a", 0, 100 * us);
  const Trace t = build(b);
  const IdleCauses idle = analyze(t, whole(t));
  EXPECT_TRUE(idle.totals.empty());
  ASSERT_EQ(idle.lines.size(), 1u);
  EXPECT_EQ(idle.lines[0], "GPU 0 was busy for all 100.0 us in the whole trace.");
  EXPECT_TRUE(idle.headline.empty());
}

TEST(IdleCauses, SmallIdleShareGetsNoHeadline) {
  TraceBuilder b;
  launch(b, 1, 0, 2 * us, 0, 7, 2 * us, 98 * us);  // idle 2 of 100 us
  const Trace t = build(b);
  const IdleCauses idle = analyze(t, whole(t));
  EXPECT_EQ(idle.gpus[0].idle_ns, 2 * us);
  EXPECT_FALSE(idle.lines.empty());
  EXPECT_TRUE(idle.headline.empty());
}

TEST(IdleCauses, NoGpuWorkGetsOnePlainSentence) {
  TraceBuilder b;
  host_call(b, 1, 1, "cudaMalloc", 0, 10 * us);
  const Trace t = build(b);
  const IdleCauses idle = analyze(t, whole(t));
  EXPECT_TRUE(idle.gpus.empty());
  EXPECT_TRUE(idle.totals.empty());
  ASSERT_EQ(idle.lines.size(), 1u);
  EXPECT_EQ(idle.lines[0], "No GPU activity in this trace: there is no GPU idle time to explain.");
  EXPECT_TRUE(idle.headline.empty());
  const std::string json = format_report(analysis::analyze(t), Format::Json);
  EXPECT_NE(json.find("\"idle_causes\": []"), std::string::npos) << json;
}

TEST(IdleCauses, ReportCarriesTotalsInJsonAndText) {
  const Trace t = pageable_copy_trace();
  const Report r = analysis::analyze(t);
  const std::string json = format_report(r, Format::Json);
  EXPECT_NE(json.find("\"cause\": \"host_blocked\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"detail\": \"cudaMemcpyAsync to pageable memory\""), std::string::npos);
  EXPECT_NE(json.find("\"region_end_ns\""), std::string::npos);
  const std::string text = format_report(r, Format::Text);
  EXPECT_NE(text.find("Why the GPUs were idle"), std::string::npos);
  EXPECT_NE(text.find("host blocked"), std::string::npos);
}

}  // namespace gtv::analysis
