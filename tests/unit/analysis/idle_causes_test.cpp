// Idle causes read from the critical path, on small traces whose paths and replays are worked out by hand (times in
// microseconds). The cases are the sentences gtv used to get wrong by blaming what sat next to the idle time.
#include "gtv/analysis/idle_causes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "gtv/analysis/report.h"
#include "trace_helpers.h"

namespace gtv::analysis {
using namespace testing;

namespace {
constexpr TimeNs us = kNsPerUs;

// cudaLaunchKernel on host thread (1, 1) at [call, call + len), its kernel on (device, stream); times in us.
void launch(TraceBuilder& b, std::uint64_t corr, TimeNs call_us, TimeNs len_us, std::int64_t device,
            std::int64_t stream, TimeNs kernel_us, TimeNs kernel_len_us) {
  host_call(b, 1, 1, "cudaLaunchKernel", call_us * us, len_us * us, EventKind::Runtime, corr);
  kernel(b, device, stream, "gemm", kernel_us * us, kernel_len_us * us, corr);
}

void forward(TraceBuilder& b, const std::string& model, std::int32_t device) {
  b.add_range({model + " forward", RangeKind::Forward, 0, 1, 1, 1, device});
}

TimeNs total_us(const IdleCauses& idle, std::int64_t device, IdleCause cause) {
  for (const IdleCauseTotal& c : idle.totals)
    if (c.device == device && c.cause == cause) return c.total_ns / us;
  return 0;
}

const IdleCauseTotal* find(const IdleCauses& idle, std::int64_t device, IdleCause cause) {
  for (const IdleCauseTotal& c : idle.totals)
    if (c.device == device && c.cause == cause) return &c;
  return nullptr;
}

// Every idle nanosecond has exactly one cause: each GPU's pieces are sorted, disjoint, inside the region and add
// up to its idle time.
// Rank 0 is pid 100 on GPU 0, rank 1 pid 200 on GPU 1; each sees its GPU as cuda:0.
void two_ranks(TraceBuilder& b) {
  RankInfo r0, r1;
  r0.rank = 0, r0.pids = {100}, r0.devices = {0}, r0.local_devices = {0};
  r1.rank = 1, r1.pids = {200}, r1.devices = {1}, r1.local_devices = {0};
  b.metadata().ranks = {r0, r1};
}

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

// GPU 0: a kernel [10, 110) then a copy to pageable memory [110, 120) whose call holds the host until 125; only
// then is GPU 1's kernel launched ([125, 130), runs [135, 235)). Without that wait GPU 1's kernel would run at
// [20, 120): the trace would end at 120, 115 us sooner.
// GPU 0's kernel and the copy to pageable memory after it, whose call returns at 125 us.
void kernel_then_pageable_copy(TraceBuilder& b) {
  launch(b, 1, 0, 5, 0, 7, 10, 100);
  host_call(b, 1, 1, "cudaMemcpyAsync", 5 * us, 120 * us, EventKind::Runtime, 2);
  MemcpyDetail d;
  d.copy_kind = CopyKind::DeviceToHost;
  d.src_kind = MemoryKind::Device;
  d.dst_kind = MemoryKind::Pageable;
  memcpy_event(b, 0, 7, 110 * us, 10 * us, d, 2);
}

Trace pageable_copy_trace() {
  TraceBuilder b;
  kernel_then_pageable_copy(b);
  launch(b, 3, 125, 5, 1, 15, 135, 100);
  return build(b);
}

}  // namespace

// GPU 1 idles [0, 135): the host launching GPU 0's work (5), GPU 0 starting it (5), the host waiting in the
// pageable copy for GPU 0's kernel and copy and for the call's return (115: all that removing the wait gives back,
// its 5 us return first), launching GPU 1's work (5) and GPU 1 starting it (5).
TEST(IdleCauses, APageableCopyThatHeldTheHostIsBlamedForWhatRemovingItGivesBack) {
  const Trace t = pageable_copy_trace();
  const Report r = analyze(t);
  const IdleCauses& idle = r.idle;
  EXPECT_EQ(total_us(idle, 1, IdleCause::HostBlocked), 115);
  EXPECT_EQ(total_us(idle, 1, IdleCause::OtherGpuBound), 5);
  EXPECT_EQ(total_us(idle, 1, IdleCause::HostLaunching), 10);
  EXPECT_EQ(total_us(idle, 1, IdleCause::QueuedGap), 5);
  const IdleCauseTotal* blocked = find(idle, 1, IdleCause::HostBlocked);
  ASSERT_NE(blocked, nullptr);
  EXPECT_EQ(blocked->detail, "cudaMemcpyAsync to pageable memory");
  EXPECT_EQ(blocked->saving_ns, 115 * us);
  EXPECT_EQ(idle.headline,
            "GPU 1 idle for 57% of the whole trace: mostly host blocked (cudaMemcpyAsync to pageable memory), 115.0 us "
            "of 135.0 us idle (without it the whole trace would be 115.0 us shorter).");
  // GPU 0 idles while GPU 1's work bounds the trace: that is GPU 1's own time, not a cause to remove.
  EXPECT_EQ(total_us(idle, 0, IdleCause::OtherGpuBound), 105);
  EXPECT_EQ(find(idle, 0, IdleCause::OtherGpuBound)->detail, "GPU 1's work");
  EXPECT_EQ(find(idle, 0, IdleCause::OtherGpuBound)->saving_ns, -1);
  expect_tiles(idle);
}

// PyTorch's copy to the host (`.to("cpu")`) is the pageable cudaMemcpyAsync, then a cudaStreamSynchronize
// ([125, 128)) that finds the copy done; GPU 1's work is launched at [130, 135) and runs [140, 240). The synchronize
// is part of the copy's wait: without both the host is back at 10, the synchronize ends at 13, the launch runs
// [15, 20) and GPU 1's kernel [25, 125): 115 us sooner. Were the synchronize left, it would wait for the copy (to
// 120) and give back 8 us.
TEST(IdleCauses, TheSynchronizeAfterAPageableCopyIsPartOfItsWait) {
  TraceBuilder b;
  kernel_then_pageable_copy(b);
  host_call(b, 1, 1, "cudaStreamSynchronize", 125 * us, 3 * us);
  launch(b, 3, 130, 5, 1, 15, 140, 100);
  const Trace t = build(b);
  const IdleCauses& idle = analyze(t).idle;
  const IdleCauseTotal* blocked = find(idle, 1, IdleCause::HostBlocked);
  ASSERT_NE(blocked, nullptr);
  EXPECT_EQ(blocked->detail, "cudaMemcpyAsync to pageable memory");
  EXPECT_EQ(blocked->saving_ns, 115 * us);
  expect_tiles(idle);
}

// The critical path's host own work by range, in its order: (range, ns).
using RangeTimes = std::vector<std::pair<std::string, TimeNs>>;
RangeTimes own_work_by_range(const Report& r) {
  RangeTimes out;
  for (const RangeWork& w : r.critical.own_work_by_range) out.emplace_back(w.range, w.total_ns);
  return out;
}

// The thread's own work between its two launches, [5, 60) us, is on the critical path (GPU 0 is idle until the
// second kernel, [70, 170)). It ran inside record_function "outer" [0, 100), partly inside "inner" [20, 50); the
// profiler step around everything names no work: 'inner' 30 us, 'outer' 15 + 10 us.
TEST(CriticalPath, TheHostsOwnWorkIsNamedByTheInnermostRangeItRanIn) {
  TraceBuilder b;
  host_call(b, 1, 1, "ProfilerStep#1", 0, 170 * us, EventKind::Annotation);
  host_call(b, 1, 1, "outer", 0, 100 * us, EventKind::Annotation);
  host_call(b, 1, 1, "inner", 20 * us, 30 * us, EventKind::Annotation);
  launch(b, 1, 0, 5, 0, 7, 10, 10);
  launch(b, 2, 60, 5, 0, 7, 70, 100);
  const Trace t = build(b);
  const Report r = analyze(t);
  EXPECT_EQ(own_work_by_range(r), (RangeTimes{{"inner", 30 * us}, {"outer", 25 * us}}));
  const std::string expected =
      "The host's own work between calls on the critical path (55.0 us), by the innermost record_function range it "
      "ran in (for a thread without ranges of its own, such as the autograd engine's, the range its process's main "
      "thread was in): 'inner' 30.0 us, 'outer' 25.0 us.";
  EXPECT_NE(std::find(r.critical.lines.begin(), r.critical.lines.end(), expected), r.critical.lines.end());
}

// Thread 2 records no range of its own (as PyTorch's autograd engine); its own work between its launches, [5, 60)
// us, on the critical path, ran while the main thread (1) was inside "backward" [0, 40) and then "optimizer"
// [40, 100): 35 and 20 us.
TEST(CriticalPath, AThreadWithoutRangesWorksForTheRangeOfItsProcesssMainThread) {
  TraceBuilder b;
  host_call(b, 1, 1, "backward", 0, 40 * us, EventKind::Annotation);
  host_call(b, 1, 1, "optimizer", 40 * us, 60 * us, EventKind::Annotation);
  host_call(b, 1, 2, "cudaLaunchKernel", 0, 5 * us, EventKind::Runtime, 1);
  kernel(b, 0, 7, "gemm", 10 * us, 10 * us, 1);
  host_call(b, 1, 2, "cudaLaunchKernel", 60 * us, 5 * us, EventKind::Runtime, 2);
  kernel(b, 0, 7, "gemm", 70 * us, 100 * us, 2);
  const Trace t = build(b);
  const Report r = analyze(t);
  EXPECT_EQ(own_work_by_range(r), (RangeTimes{{"backward", 35 * us}, {"optimizer", 20 * us}}));
}

// A launch for GPU 1 drains GPU 0 to load a module lazily (it waits until GPU 0's kernel ends at 108, loads for
// 16, returns at 130). GPU 0 holds 2 of the 3 models; removing the load and its drain gives back 27 us (the next
// GPU 0 kernel starts at 109, queued 1 us behind the first, instead of 136). The old analysis said GPU 1 was idle
// "mostly host blocked (lazy module loading drained the GPU)"; the load is blamed for 27 us, the rest is GPU 0's
// work.
TEST(IdleCauses, ALazyLoadThatDrainedTheGpuIsNotBlamedForThePlacement) {
  TraceBuilder b;
  launch(b, 1, 0, 5, 0, 7, 8, 100);
  launch(b, 2, 10, 120, 1, 15, 131, 50);
  host_call(b, 1, 1, "lazy function loading", 112 * us, 16 * us, EventKind::Overhead);
  launch(b, 3, 130, 5, 0, 7, 136, 100);
  forward(b, "model 0", 0);
  forward(b, "model 1", 1);
  forward(b, "model 2", 0);
  const Trace t = build(b);
  const Report r = analyze(t);
  const IdleCauses& idle = r.idle;
  EXPECT_EQ(total_us(idle, 1, IdleCause::OtherGpuBound), 153);  // [5, 103) and [181, 236)
  EXPECT_EQ(find(idle, 1, IdleCause::OtherGpuBound)->detail, "GPU 0's work (GPU 0 holds 2 of the 3 models)");
  EXPECT_EQ(total_us(idle, 1, IdleCause::WarmUp), 16);
  EXPECT_EQ(total_us(idle, 1, IdleCause::HostBlocked), 11);  // its 6 us return and 5 us of the drain
  EXPECT_EQ(total_us(idle, 1, IdleCause::WarmUp) + total_us(idle, 1, IdleCause::HostBlocked), 27);
  EXPECT_EQ(find(idle, 1, IdleCause::HostBlocked)->detail, "lazy module loading drained the GPU");
  EXPECT_EQ(idle.headline,
            "GPU 1 idle for 79% of the whole trace: mostly bound by GPU 0's work (GPU 0 holds 2 of the 3 models), "
            "153.0 us of 186.0 us idle.");
  expect_tiles(idle);
}

// The loop ends with cudaDeviceSynchronize, and GPU 1 idles through most of it: the old analysis said "mostly
// host blocked (cudaDeviceSynchronize)". Removing the wait gives back only its 4 us return: GPU 0's work bounds it.
TEST(IdleCauses, TheFinalSynchronizeIsNotBlamedForTheOtherGpusWork) {
  TraceBuilder b;
  launch(b, 1, 0, 5, 0, 7, 8, 100);
  launch(b, 2, 10, 5, 1, 15, 16, 50);
  launch(b, 3, 20, 5, 0, 7, 108, 100);
  host_call(b, 1, 1, "cudaDeviceSynchronize", 30 * us, 182 * us);
  const Trace t = build(b);
  const Report r = analyze(t);
  const IdleCauses& idle = r.idle;
  EXPECT_EQ(total_us(idle, 1, IdleCause::HostBlocked), 4);      // the return after GPU 0's last kernel
  EXPECT_EQ(total_us(idle, 1, IdleCause::OtherGpuBound), 153);  // GPU 0's start and work: [5, 16), [66, 208)
  EXPECT_EQ(total_us(idle, 1, IdleCause::HostLaunching), 5);
  EXPECT_EQ(find(idle, 1, IdleCause::OtherGpuBound)->detail,
            "GPU 0's work (it did 80.0% of the GPUs' busy time, this GPU 20.0%)");
  EXPECT_NE(idle.headline.find("mostly bound by GPU 0's work"), std::string::npos) << idle.headline;
  expect_tiles(idle);
}

// A CUPTI buffer request (gtv's own tracing) held the host for 50 us between two launches: the GPU's idle time is
// tracing overhead, and the replay without it gives the 50 us back. The old analysis said "host busy: the
// launching thread had not launched the next work yet".
TEST(IdleCauses, TheTracersBufferRequestIsTracingOverheadWithItsSaving) {
  TraceBuilder b;
  launch(b, 1, 0, 5, 0, 7, 6, 10);
  host_call(b, 1, 1, "CUPTI buffer request", 6 * us, 50 * us, EventKind::Overhead);
  launch(b, 2, 60, 5, 0, 7, 68, 10);
  const Trace t = build(b);
  const Report r = analyze(t);
  const IdleCauseTotal* tracing = find(r.idle, 0, IdleCause::TracingOverhead);
  ASSERT_NE(tracing, nullptr);
  EXPECT_EQ(tracing->total_ns, 44 * us);  // [16, 60): the gap's last 50 us, from the kernel's end
  EXPECT_EQ(tracing->saving_ns, 50 * us);
  EXPECT_EQ(total_us(r.idle, 0, IdleCause::HostLaunching), 10);
  EXPECT_EQ(total_us(r.idle, 0, IdleCause::QueuedGap), 3);
  EXPECT_EQ(total_us(r.idle, 0, IdleCause::HostBusy), 1);
  EXPECT_EQ(r.idle.headline,
            "GPU 0 idle for 74% of the whole trace: mostly tracing overhead (the tracer's own work on the host: CUPTI "
            "buffer requests, instrumentation), 44.0 us of 58.0 us idle (without it the whole trace would be 50.0 us "
            "shorter).");
  expect_tiles(r.idle);
}

// cudaStreamWaitEvent holds GPU 0's stream 8 work until GPU 1's kernel ends at 150: GPU 0 idles [100, 150) while
// the work its held kernel waited for runs on GPU 1.
TEST(IdleCauses, WorkHeldByAnEventWaitOnAnotherGpuIsThatGpusWork) {
  TraceBuilder b;
  launch(b, 1, 0, 10, 0, 7, 10, 90);
  launch(b, 3, 10, 5, 1, 9, 20, 130);
  launch(b, 6, 20, 10, 0, 8, 150, 50);
  TraceBuilder::WaitHint w;
  w.waiter = TraceBuilder::Waiter::StreamWork;
  w.source_device = 1;
  w.source_stream = 9;
  w.source_before_correlation = 4;  // the cudaEventRecord after GPU 1's launch
  w.wait_correlation = 5;           // the cudaStreamWaitEvent before stream 8's launch
  w.waiter_device = 0;
  w.waiter_stream = 8;
  b.add_wait(w);
  const Trace t = build(b);
  ASSERT_EQ(t.dependencies().size(), 1u);
  const Report r = analyze(t);
  EXPECT_EQ(total_us(r.idle, 0, IdleCause::OtherGpuBound), 50);
  EXPECT_EQ(find(r.idle, 0, IdleCause::OtherGpuBound)->detail, "GPU 1's work");
  expect_tiles(r.idle);
}

TEST(IdleCauses, NoFlowsMeansUnknown) {
  TraceBuilder b;
  kernel(b, 0, 7, "a", 0, 10 * us);
  kernel(b, 0, 7, "b", 20 * us, 10 * us);
  const Trace t = build(b);
  const Report r = analyze(t);
  ASSERT_EQ(r.idle.intervals.size(), 1u);
  EXPECT_EQ(r.idle.intervals[0].start_ns, 10 * us);
  EXPECT_EQ(r.idle.intervals[0].end_ns, 20 * us);
  // With nothing recorded to start it, the stream's own gap is all the trace says.
  EXPECT_EQ(r.idle.intervals[0].cause, IdleCause::QueuedGap);
}

TEST(IdleCauses, AlwaysBusyGpuGetsAPlainLineAndNoHeadline) {
  TraceBuilder b;
  kernel(b, 0, 7, "a", 0, 100 * us);
  const Trace t = build(b);
  const IdleCauses& idle = analyze(t).idle;
  EXPECT_TRUE(idle.totals.empty());
  ASSERT_EQ(idle.lines.size(), 1u);
  EXPECT_EQ(idle.lines[0], "GPU 0 was busy for all 100.0 us in the whole trace.");
  EXPECT_TRUE(idle.headline.empty());
}

TEST(IdleCauses, SmallIdleShareGetsNoHeadline) {
  TraceBuilder b;
  launch(b, 1, 0, 2, 0, 7, 2, 98);  // idle 2 of 100 us
  const Trace t = build(b);
  const IdleCauses& idle = analyze(t).idle;
  EXPECT_EQ(idle.gpus[0].idle_ns, 2 * us);
  EXPECT_FALSE(idle.lines.empty());
  EXPECT_TRUE(idle.headline.empty());
}

TEST(IdleCauses, NoGpuWorkGetsOnePlainSentence) {
  TraceBuilder b;
  host_call(b, 1, 1, "cudaMalloc", 0, 10 * us);
  const Trace t = build(b);
  const Report r = analyze(t);
  EXPECT_TRUE(r.idle.gpus.empty());
  EXPECT_TRUE(r.idle.totals.empty());
  ASSERT_EQ(r.idle.lines.size(), 1u);
  EXPECT_EQ(r.idle.lines[0], "No GPU activity in this trace: there is no GPU idle time to explain.");
  EXPECT_TRUE(r.idle.headline.empty());
  const std::string json = format_report(r, Format::Json);
  EXPECT_NE(json.find("\"idle_causes\": []"), std::string::npos) << json;
}

TEST(IdleCauses, ReportCarriesTotalsAndSavingsInJsonAndText) {
  const Trace t = pageable_copy_trace();
  const Report r = analyze(t);
  const std::string json = format_report(r, Format::Json);
  EXPECT_NE(json.find("\"cause\": \"host_blocked\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"detail\": \"cudaMemcpyAsync to pageable memory\""), std::string::npos);
  EXPECT_NE(json.find("\"saving_ns\": 115000"), std::string::npos);
  EXPECT_NE(json.find("\"region_end_ns\""), std::string::npos);
  const std::string text = format_report(r, Format::Text);
  EXPECT_NE(text.find("Why the GPUs were idle"), std::string::npos);
  EXPECT_NE(text.find("What bounds the whole trace"), std::string::npos);
}

// Two ranks merged: rank 1's 3 us cudaEventSynchronize [50,53) names no GPU, and rank 0's copy ends inside it (52).
// Ranks meet only at collectives, and there is none: rank 1's GPU, idle from 30 us on, waited for nothing of rank
// 0, and no sentence says it was waiting for a peer rank.
TEST(IdleCauses, ARanksSynchronizeIsNotTiedToAnotherRanksGpu) {
  TraceBuilder b;
  host_call(b, 100, 100, "cudaMemcpyAsync", 30 * us, 5 * us, EventKind::Runtime, 1);
  memcpy_event(b, 0, 7, 40 * us, 12 * us, {}, 1);
  host_call(b, 200, 200, "cudaLaunchKernel", 5 * us, 3 * us, EventKind::Runtime, 2);
  kernel(b, 1, 7, "gemm", 10 * us, 20 * us, 2);
  host_call(b, 200, 200, "cudaEventSynchronize", 50 * us, 3 * us, EventKind::Runtime);
  two_ranks(b);
  const Report r = analyze(build(b));
  expect_tiles(r.idle);
  EXPECT_EQ(find(r.idle, 1, IdleCause::PeerRank), nullptr);
  const std::string text = format_report(r, Format::Text);
  EXPECT_EQ(text.find("waiting for rank 0"), std::string::npos) << text;
  EXPECT_EQ(text.find("waiting for a peer rank"), std::string::npos) << text;
}

// Two ranks merged. Rank 0 (pid 100) launches [0,5) (kernel [6,16) on GPU 0); its Gloo worker (101) enters
// gloo:all_reduce [20,500), synchronizes [22,25), then records nothing until aten::copy_ [478,490) (cudaMemcpyAsync
// [480,485), copy [486,496) on GPU 0). Rank 1 (pid 200) does the same on GPU 1, its worker (201) arriving late:
// gloo:all_reduce [450,500). The ranks' matched collectives join: rank 0's worker waits inside its range for the
// last arrival, rank 1's first call in its range at 452 us. So the path runs on rank 1, the late one, until 452:
// rank 1's GPU idle [16,452) is rank 1's own worker recording nothing before it arrived, never "nothing of this rank
// held it up"; only after the arrival is it bound by rank 0: its work [452,486) and [494,496) (36 us), then
// [496,500) where rank 0's worker recorded nothing after its copy inside the range ("rank 0's unrecorded time").
TEST(IdleCauses, ARanksIdleWhileAnotherWaitsInsideACollectiveIsNotSaidToBeUnheld) {
  TraceBuilder b;
  for (std::int64_t rank = 0; rank < 2; ++rank) {
    const std::int64_t pid = 100 + 100 * rank, worker = pid + 1;
    const std::uint64_t corr = 10 * std::uint64_t(rank);
    host_call(b, pid, pid, "cudaLaunchKernel", 0, 5 * us, EventKind::Runtime, corr + 1);
    kernel(b, rank, 7, "gemm", 6 * us, 10 * us, corr + 1);
    const TimeNs arrive = rank == 0 ? 20 * us : 450 * us;
    host_call(b, pid, worker, "gloo:all_reduce", arrive, 500 * us - arrive, EventKind::Annotation);
    host_call(b, pid, worker, "cudaStreamSynchronize", arrive + 2 * us, 3 * us);
    host_call(b, pid, worker, "aten::copy_", 478 * us, 12 * us, EventKind::CpuOp);
    host_call(b, pid, worker, "cudaMemcpyAsync", 480 * us, 5 * us, EventKind::Runtime, corr + 2);
    memcpy_event(b, rank, 7, 486 * us, (rank == 0 ? 10 : 8) * us, {}, corr + 2);
  }
  two_ranks(b);
  const Report r = analyze(build(b));
  expect_tiles(r.idle);
  const std::string text = format_report(r, Format::Text);
  EXPECT_EQ(total_us(r.idle, 1, IdleCause::OtherGpuBound), 36) << text;
  TimeNs unrecorded_ns = 0;
  for (const IdleInterval& i : r.idle.intervals)
    if (i.device == 1 &&
        i.detail == "rank 0's unrecorded time (the critical path stayed there: nothing of this rank held it up)")
      unrecorded_ns += i.end_ns - i.start_ns;
  EXPECT_EQ(unrecorded_ns, 4 * us) << text;
  bool named = false;
  for (const IdleInterval& i : r.idle.intervals)
    if (i.device == 1 && i.start_ns <= 100 * us && i.end_ns >= 400 * us) {
      EXPECT_EQ(i.cause, IdleCause::Unknown);
      EXPECT_EQ(i.detail, "rank 1 · thread 201 recorded nothing then: waiting, or in code nobody recorded");
      named = true;
    }
  EXPECT_TRUE(named) << text;
  // Rank 0's GPU idles [16,486): its worker waited inside gloo:all_reduce from its arrival at 20 us to rank 1's at
  // 450 us, and that wait, 430 us, is all of its idle time that is waiting for rank 1 (what removing rank 1's
  // lateness gives back); the collective's transfer after the last arrival is named apart.
  TimeNs waiting_ns = 0;
  for (const IdleInterval& i : r.idle.intervals)
    if (i.device == 0 && i.cause == IdleCause::PeerRank && i.detail == "waiting for rank 1")
      waiting_ns += i.end_ns - i.start_ns;
  EXPECT_EQ(waiting_ns, 430 * us) << text;
  EXPECT_EQ(r.stragglers.per_rank[0].waited_ns, 430 * us);
}

// A cause is blamed for a GPU's idle time only up to what removing it gives back. Thread 1 launches GPU 0's first
// kernel ([0,5), runs [6,16)), works on its own for 100 us, then launches the second ([105,110), runs [111,121));
// thread 2 launches GPU 1's 80 us kernel at once ([0,2), runs [3,83)). Without the host's own work the second
// kernel would run [16,26) and GPU 1's kernel would end the trace at 83: 38 us sooner. GPU 0 was idle [5,6) and
// [16,105) while the host worked (90 us): the host busy is blamed for 38 us of it (the latest), the other 52 us are
// idle time no single removal gives back.
TEST(IdleCauses, TheHostsOwnWorkIsBlamedOnlyForWhatRemovingItGivesBack) {
  TraceBuilder b;
  launch(b, 1, 0, 5, 0, 7, 6, 10);
  launch(b, 2, 105, 5, 0, 7, 111, 10);
  host_call(b, 1, 2, "cudaLaunchKernel", 0, 2 * us, EventKind::Runtime, 3);
  kernel(b, 1, 7, "gemm", 3 * us, 80 * us, 3);
  const Report r = analyze(build(b));
  const CauseSaving* own = nullptr;
  for (const CauseSaving& c : r.critical.causes)
    if (c.key == "host_own_work") own = &c;
  ASSERT_NE(own, nullptr);
  EXPECT_EQ(own->saving_ns, 38 * us);
  expect_tiles(r.idle);
  EXPECT_EQ(total_us(r.idle, 0, IdleCause::HostBusy), 38);
  const IdleCauseTotal* rest = find(r.idle, 0, IdleCause::Unknown);
  ASSERT_NE(rest, nullptr);
  EXPECT_EQ(rest->total_ns, 52 * us);
  EXPECT_EQ(rest->detail,
            "no one cause: the host's own work between calls was on the critical path, but removing it gives back only "
            "38.0 us of the whole trace");
  EXPECT_EQ(total_us(r.idle, 0, IdleCause::HostLaunching), 10);  // two launches, 10 us: all that removing them gives
  for (const IdleCauseTotal& t : r.idle.totals)
    if (t.saving_ns >= 0) {
      EXPECT_LE(t.total_ns, t.saving_ns) << to_string(t.cause) << " " << t.detail;
    }
}

// The replay without the host's own work starts the second kernel (stream 9) at 11 us, beside the first (stream 7,
// [6,106)), which it followed in the recording: 95 us sooner. But GPU 0's work takes 200 us of the 206 us trace, one
// kernel at a time: the saving is at most 6 us, and the sentence says both.
TEST(IdleCauses, AHostChangesSavingIsCappedByTheGpusOwnWork) {
  TraceBuilder b;
  launch(b, 1, 0, 5, 0, 7, 6, 100);
  launch(b, 2, 100, 5, 0, 9, 106, 100);
  const Report r = analyze(build(b));
  const CauseSaving* own = nullptr;
  for (const CauseSaving& c : r.critical.causes)
    if (c.key == "host_own_work") own = &c;
  ASSERT_NE(own, nullptr);
  EXPECT_EQ(own->replayed_ns, 95 * us);
  EXPECT_EQ(own->saving_ns, 6 * us);
  const std::string text = format_report(r, Format::Markdown);
  EXPECT_NE(text.find("- Without the host's own work between calls (95.0 us on the critical path), the whole trace "
                      "would be at most 6.00 us shorter (2.9%): GPU 0's work takes 200.0 us of the 206.0 us when it "
                      "overlaps no more than it did (the replay, which runs work that ran alone beside other work at "
                      "no cost, gives 95.0 us)."),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("would be 95.0 us shorter"), std::string::npos);
}

// A thread that records its ops (aten::mm [0,10) launching [2,5), aten::add [100,110) launching [102,105)) and
// recorded nothing in [10,100): that stretch of GPU 0's idle time is no host work; it is said as the thread's
// silence (90 us), beside the 2 us after the last kernel that nothing on the path explains.
TEST(IdleCauses, AThreadsSilenceIsSaidNotCalledItsWork) {
  TraceBuilder b;
  host_call(b, 1, 1, "aten::mm", 0, 10 * us, EventKind::CpuOp);
  launch(b, 1, 2, 3, 0, 7, 6, 2);
  host_call(b, 1, 1, "aten::add", 100 * us, 10 * us, EventKind::CpuOp);
  launch(b, 2, 102, 3, 0, 7, 106, 2);
  const Report r = analyze(build(b));
  expect_tiles(r.idle);
  // One row per detail of idle time no removal explains: the silence's row holds its 90 us only, the 2 us after the
  // last kernel are a row of their own.
  const IdleCauseTotal* silent = find(r.idle, 0, IdleCause::Unknown);
  ASSERT_NE(silent, nullptr);
  EXPECT_EQ(silent->total_ns, 90 * us);
  EXPECT_EQ(silent->detail, "thread 1 recorded nothing then: waiting, or in code nobody recorded");
  std::size_t unknown_rows = 0;
  for (const IdleCauseTotal& t : r.idle.totals)
    if (t.cause == IdleCause::Unknown) {
      ++unknown_rows;
      if (t.detail != silent->detail) {
        EXPECT_EQ(t.total_ns, 2 * us) << t.detail;
      }
    }
  EXPECT_EQ(unknown_rows, 2u);
  EXPECT_LT(total_us(r.idle, 0, IdleCause::HostBusy), 10);
}

// A Gloo all-reduce on its worker thread (3), enqueued by thread 1's c10d::allreduce_ [100,150) (holding
// cudaEventRecord [110,115)); thread 1 launches [160,165) (kernel [166,176)), waits silent for the collective, makes
// its next call [1000,1005) and launches [1010,1015) (kernel [1016,1026)). The worker in gloo:all_reduce [200,950)
// records cudaStreamSynchronize [210,215), then nothing until aten::copy_ [895,915) (cudaMemcpyAsync [900,910)):
// GPU 0's idle time [215,895) is the collective's transfer, named as such, not thread 1's silence (thread 1's
// silence after the collective ended, [950,1000), is its own wait before its next call).
Report gloo_worker_run() {
  TraceBuilder b;
  host_call(b, 1, 1, "c10d::allreduce_", 100 * us, 50 * us, EventKind::CpuOp);
  host_call(b, 1, 1, "cudaEventRecord", 110 * us, 5 * us);
  launch(b, 1, 160, 5, 0, 7, 166, 10);
  host_call(b, 1, 1, "cudaStreamWaitEvent", 1000 * us, 5 * us);
  launch(b, 2, 1010, 5, 0, 7, 1016, 10);
  host_call(b, 1, 3, "gloo:all_reduce", 200 * us, 750 * us, EventKind::Annotation);
  host_call(b, 1, 3, "cudaStreamSynchronize", 210 * us, 5 * us);
  host_call(b, 1, 3, "aten::copy_", 895 * us, 20 * us, EventKind::CpuOp);
  host_call(b, 1, 3, "cudaMemcpyAsync", 900 * us, 10 * us);
  return analyze(build(b));
}

// The share of the path a path segment's words name, nullptr when none.
const PathShare* share_named(const CriticalPathAnalysis& c, const std::string& phrase) {
  for (const PathShare& s : c.shares)
    if (share_phrase(s) == phrase) return &s;
  return nullptr;
}

TEST(IdleCauses, AGlooWorkersSilenceInsideItsCollectiveIsTheTransfer) {
  const Report r = gloo_worker_run();
  expect_tiles(r.idle);
  bool transfer = false;
  for (const IdleInterval& i : r.idle.intervals) {
    if (i.start_ns == 215 * us && i.end_ns == 895 * us) {
      EXPECT_EQ(i.cause, IdleCause::Unknown);
      EXPECT_EQ(i.detail,
                "thread 3 recorded nothing inside gloo:all_reduce: the collective's transfer and its wait for the "
                "other ranks");
      transfer = true;
    }
    // The worker's 5 us stream synchronize waited for no GPU work: removing the waits gives nothing back.
    if (i.start_ns == 210 * us && i.end_ns == 215 * us) {
      EXPECT_EQ(i.detail,
                "no one cause: the host's waits in cudaStreamSynchronize were on the critical path, but removing them "
                "gives back only 0 ns of the whole trace");
    }
    // Thread 1 was silent until its next call [1000,1005): waiting, said so only after the collective ended.
    if (i.detail.find("thread 1 recorded nothing") != std::string::npos) {
      EXPECT_GE(i.start_ns, 950 * us);
    }
  }
  EXPECT_TRUE(transfer) << format_report(r, Format::Markdown);
}

// The critical path names the worker's silence [215,895) as the idle rows do: the collective's transfer and its wait
// for the other ranks, not an unexplained stretch of the thread.
TEST(CriticalPathShares, AGlooWorkersSilenceInsideItsCollectiveIsTheTransfer) {
  const Report r = gloo_worker_run();
  const PathShare* transfer = share_named(
      r.critical,
      "thread 3 inside gloo:all_reduce, the collective's transfer and its wait for the other ranks (not recorded)");
  ASSERT_NE(transfer, nullptr) << format_report(r, Format::Markdown);
  EXPECT_EQ(transfer->total_ns, 680 * us);
  EXPECT_EQ(transfer->context, ShareContext::InsideCollective);
  EXPECT_EQ(transfer->range, "gloo:all_reduce");
  EXPECT_EQ(share_named(r.critical, "thread 3 unexplained (not recorded)"), nullptr)
      << format_report(r, Format::Markdown);
  EXPECT_NE(r.critical.lines.front().find("thread 3 inside gloo:all_reduce, the collective's transfer and its wait "
                                          "for the other ranks (not recorded) 680.0 us"),
            std::string::npos)
      << r.critical.lines.front();
}

// The main thread launches [0,5) (kernel [6,16)), then waits in a multiprocessing DataLoader's __next__ [20,520)
// with nothing recorded inside, then runs aten::mm [520,540) launching [525,530) (kernel [531,541)). GPU 0's idle
// [20,520) is the wait for the DataLoader's worker processes, said so; with the single-process iterator the same
// stretch is the thread loading the batch itself: its own work.
Report data_loader_run(std::string_view iterator) {
  TraceBuilder b;
  launch(b, 1, 0, 5, 0, 7, 6, 10);
  host_call(b, 1, 1, "enumerate(DataLoader)#" + std::string(iterator) + ".__next__", 20 * us, 500 * us,
            EventKind::CpuOp);
  host_call(b, 1, 1, "aten::mm", 520 * us, 20 * us, EventKind::CpuOp);
  launch(b, 2, 525, 5, 0, 7, 531, 10);
  return analyze(build(b));
}

TEST(IdleCauses, AMultiprocessingDataLoadersNextIsAWaitForItsWorkers) {
  const Report r = data_loader_run("_MultiProcessingDataLoaderIter");
  expect_tiles(r.idle);
  bool named = false;
  for (const IdleInterval& i : r.idle.intervals)
    if (i.start_ns == 20 * us && i.end_ns == 520 * us) {
      EXPECT_EQ(i.cause, IdleCause::Unknown);
      EXPECT_EQ(i.detail,
                "thread 1 recorded nothing inside enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__: "
                "waiting for the DataLoader's worker processes to deliver the next batch, or receiving it");
      named = true;
    }
  EXPECT_TRUE(named) << format_report(r, Format::Markdown);
  const PathShare* wait = share_named(
      r.critical,
      "thread 1 inside enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__, waiting for the DataLoader's "
      "worker processes to deliver the next batch, or receiving it (not recorded)");
  ASSERT_NE(wait, nullptr) << format_report(r, Format::Markdown);
  EXPECT_EQ(wait->total_ns, 500 * us);
  const Report single = data_loader_run("_SingleProcessDataLoaderIter");
  EXPECT_EQ(find(single.idle, 0, IdleCause::Unknown), nullptr) << format_report(single, Format::Markdown);
  EXPECT_GE(total_us(single.idle, 0, IdleCause::HostBusy), 500);
}

// The thread's 100 us op before its first call (the launch [100,105), kernel [106,116)) is on the critical path, but
// no replay moves a thread's first call: it is not counted for the host's own work, whose removal keeps it, and the
// idle time it explains is said as what it is, with no saving.
TEST(IdleCauses, TheWorkBeforeAThreadsFirstCallIsNotBlamedOnARemovalThatKeepsIt) {
  TraceBuilder b;
  host_call(b, 1, 1, "aten::randn", 0, 100 * us, EventKind::CpuOp);
  launch(b, 1, 100, 5, 0, 7, 106, 10);
  const Report r = analyze(build(b));
  for (const CauseSaving& c : r.critical.causes) EXPECT_NE(c.key, "host_own_work") << c.on_path_ns;
  expect_tiles(r.idle);
  const IdleCauseTotal* busy = find(r.idle, 0, IdleCause::HostBusy);
  ASSERT_NE(busy, nullptr) << format_report(r, Format::Markdown);
  EXPECT_EQ(busy->detail, "the thread's work before its first CUDA call, which no replay removes");
  EXPECT_EQ(busy->total_ns, 100 * us);
  EXPECT_EQ(busy->saving_ns, -1);
  EXPECT_EQ(find(r.idle, 0, IdleCause::Unknown), nullptr);
  // The path says the same: the thread working before its first call, not its own work between calls.
  const PathShare* before = share_named(r.critical, "thread 1 working before its first CUDA call");
  ASSERT_NE(before, nullptr) << format_report(r, Format::Markdown);
  EXPECT_EQ(before->total_ns, 100 * us);
  EXPECT_EQ(before->context, ShareContext::BeforeFirstCall);
  for (const PathShare& s : r.critical.shares)
    EXPECT_EQ(share_phrase(s).find("between calls"), std::string::npos) << share_phrase(s);
  EXPECT_EQ(r.critical.headline.find("What bounds the whole trace: thread 1 working before its first CUDA call, "), 0u)
      << r.critical.headline;
}

// Thread 1 launches [0,5) a kernel that runs [6,1006), then calls cudaStreamSynchronize [900,1010), which returns 4 us
// after the kernel ends. The path: the launch, its latency [5,6) and the kernel [6,1006), reached through the wait,
// then the wait's return [1006,1010). The host was in the call for 4 us of the path, not 1 ms: the sentence says
// the call's time on the path and the GPU work it waited for apart; without the waits the trace would end with the
// kernel, 4 us sooner.
TEST(CriticalPathWords, AWaitIsNotSaidToLastAsLongAsTheGpuWorkItWaitedFor) {
  TraceBuilder b;
  launch(b, 1, 0, 5, 0, 7, 6, 1000);
  host_call(b, 1, 1, "cudaStreamSynchronize", 900 * us, 110 * us);
  const Report r = analyze(build(b));
  const std::string expected =
      "In cudaStreamSynchronize (4.00 us of the critical path) the host waited for GPU work that took 1.00 ms of the "
      "critical path; without those waits the whole trace would be only 4.00 us shorter: the GPU work itself bounds "
      "it.";
  EXPECT_NE(std::find(r.critical.lines.begin(), r.critical.lines.end(), expected), r.critical.lines.end())
      << ::testing::PrintToString(r.critical.lines);
}

// A wait that reached no GPU work on the path (the kernel [6,16) had ended before the call [100,110)) is not said to
// be bounded by it: removing the waits removes their links to GPU work, and the call's own 10 us stays.
TEST(CriticalPathWords, AWaitForNoGpuWorkOnThePathSaysSo) {
  TraceBuilder b;
  launch(b, 1, 0, 5, 0, 7, 6, 10);
  host_call(b, 1, 1, "cudaStreamSynchronize", 100 * us, 10 * us);
  host_call(b, 1, 1, "aten::add", 110 * us, 50 * us, EventKind::CpuOp);
  const Report r = analyze(build(b));
  const std::string expected =
      "In cudaStreamSynchronize (10.0 us of the critical path) the host waited for no GPU work on the critical path; "
      "without those waits the whole trace would be no shorter: removing the waits keeps the calls' own time.";
  EXPECT_NE(std::find(r.critical.lines.begin(), r.critical.lines.end(), expected), r.critical.lines.end())
      << ::testing::PrintToString(r.critical.lines);
}

namespace {

// The idle pieces of one GPU that lie inside [from_us, to_us), as (start, end, cause, detail) in microseconds.
struct Piece {
  TimeNs start_us = 0;
  TimeNs end_us = 0;
  IdleCause cause = IdleCause::Unknown;
  std::string detail;
  friend bool operator==(const Piece&, const Piece&) = default;
};
std::vector<Piece> pieces_in(const IdleCauses& idle, std::int64_t device, TimeNs from_us, TimeNs to_us) {
  std::vector<Piece> out;
  for (const IdleInterval& i : idle.intervals)
    if (i.device == device && i.start_ns >= from_us * us && i.end_ns <= to_us * us)
      out.push_back({i.start_ns / us, i.end_ns / us, i.cause, i.detail});
  return out;
}
void PrintTo(const Piece& p, std::ostream* os) {  // NOLINT(readability-identifier-naming)
  *os << "[" << p.start_us << ", " << p.end_us << ") " << to_string(p.cause) << ": " << p.detail;
}

}  // namespace

// A kernel [10, 110) and the next one, launched at [20, 25) long before the first ended, starting at 112: the 2 us
// between them is the GPU starting work it already held, not work waiting behind anything.
TEST(IdleCauses, AGapBeforeWorkQueuedBehindFinishedWorkIsTheGpusDispatchGap) {
  TraceBuilder b;
  launch(b, 1, 0, 5, 0, 7, 10, 100);
  launch(b, 2, 20, 5, 0, 7, 112, 100);
  const Report r = analyze(build(b));
  EXPECT_EQ(
      pieces_in(r.idle, 0, 110, 112),
      (std::vector<Piece>{{110, 112, IdleCause::QueuedGap,
                           "stream 7, the GPU starting the next queued work: its dispatch gap, under 12.0 us after "
                           "the previous work ended"}}));
  expect_tiles(r.idle);
}

// Queued before its stream's previous work ended (launch returned at 25, the kernel before ended at 110) but started
// 30 us after it, with nothing else on the GPU: longer than any dispatch gap, and nothing recorded says why.
TEST(IdleCauses, AQueuedStartFarPastTheDispatchGapIsSaidUnexplained) {
  TraceBuilder b;
  launch(b, 1, 0, 5, 0, 7, 10, 100);
  launch(b, 2, 20, 5, 0, 7, 140, 100);
  const Report r = analyze(build(b));
  EXPECT_EQ(pieces_in(r.idle, 0, 110, 140),
            (std::vector<Piece>{{110, 140, IdleCause::QueuedGap,
                                 "stream 7, queued before the previous work ended but started more than 12.0 us after "
                                 "it: no recorded input says why"}}));
}

// Launches that return after their kernels (under CUDA_LAUNCH_BLOCKING=1 every launch does): the first call's
// kernel starts 90 us before it returns, so the trace's least launch latency is -90 us. The third kernel's call
// began at 230, 20 us after the kernel before it ended (210): the stream had nothing queued. GPU 0's idle
// [210, 240) is the host's own work until the call (20 us; removing the thread's own work gives back 30 us), the
// call (5 us) and the GPU starting the kernel after it (5 us), never work held behind the finished kernel.
TEST(IdleCauses, WorkLaunchedAfterItsStreamsWorkEndedIsNotQueuedBehindIt) {
  TraceBuilder b;
  launch(b, 1, 0, 100, 0, 7, 10, 10);
  launch(b, 2, 100, 5, 0, 7, 110, 100);
  launch(b, 3, 230, 5, 0, 7, 240, 100);
  const Report r = analyze(build(b));
  EXPECT_EQ(pieces_in(r.idle, 0, 210, 240),
            (std::vector<Piece>{{210, 230, IdleCause::HostBusy, "the host's own work between CUDA calls"},
                                {230, 235, IdleCause::HostLaunching, "launching this GPU's next work"},
                                {235, 240, IdleCause::QueuedGap, "stream 7, the GPU starting work after its launch"}}));
  expect_tiles(r.idle);
}

// A 25 MB copy from pageable memory: its cudaMemcpyAsync [0, 5000) copies the data into a pinned buffer, and the
// GPU copies from there [250, 5010). GPU 0's first 250 us idle are the host staging the data, not the GPU starting
// work it had been given.
TEST(IdleCauses, TheStartOfAStagedPageableCopyIsTheHostStagingIt) {
  TraceBuilder b;
  host_call(b, 1, 1, "cudaMemcpyAsync", 0, 5000 * us, EventKind::Runtime, 1);
  MemcpyDetail pageable;
  pageable.copy_kind = CopyKind::HostToDevice;
  pageable.src_kind = MemoryKind::Pageable;
  pageable.dst_kind = MemoryKind::Device;
  pageable.bytes = 25'000'000;
  memcpy_event(b, 0, 7, 250 * us, 4760 * us, pageable, 1);
  host_call(b, 1, 1, "cudaStreamSynchronize", 5000 * us, 20 * us);
  const Report r = analyze(build(b));
  EXPECT_EQ(
      pieces_in(r.idle, 0, 0, 250),
      (std::vector<Piece>{{0, 250, IdleCause::HostBusy,
                           "staging a copy from pageable memory in a pinned buffer: its async copy call, from its "
                           "start to the copy's start on the GPU"}}));
  expect_tiles(r.idle);
}
}  // namespace gtv::analysis
