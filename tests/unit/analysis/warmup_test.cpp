#include "gtv/analysis/warmup.h"

#include <gtest/gtest.h>

#include "trace_helpers.h"

namespace gtv::analysis {
using namespace testing;

namespace {

constexpr TimeNs ms = kNsPerMs;
constexpr TimeNs us = kNsPerUs;

Trace setup_trace() {
  TraceBuilder b;
  auto api = [&](std::string_view name, TimeNs start, TimeNs dur, EventKind kind = EventKind::Runtime,
                 std::uint64_t corr = kNoCorrelation) { host_call(b, 1, 1, name, start, dur, kind, corr); };
  api("cudaSetDevice", 0, 100 * ms);  // context creation: first call, long
  api("cuGetProcAddress_v2", 101 * ms, 10 * us, EventKind::Driver);
  api("cuGetProcAddress_v2", 101 * ms + 100 * us, 10 * us, EventKind::Driver);
  api("cuGetProcAddress_v2", 101 * ms + 200 * us, 10 * us, EventKind::Driver);
  api("cudaMalloc", 101 * ms + 500 * us, 200 * us);  // cuBLAS workspace: right after the look-ups
  api("cudaLaunchKernel", 110 * ms, 6 * ms, EventKind::Runtime, 1);  // slow first launch of gemm
  api("cuLibraryLoadData", 111 * ms, 4 * ms, EventKind::Driver);     // nested inside it
  kernel(b, 0, 7, "gemm", 117 * ms, 1 * ms, 1);
  api("cudaMalloc", 130 * ms, 1 * ms);
  api("cudaStreamCreateWithPriority", 140 * ms, 5 * us);
  api("cudaStreamCreateWithPriority", 140 * ms + 10 * us, 5 * us);
  api("cudaStreamCreateWithPriority", 140 * ms + 20 * us, 5 * us);
  api("cudaDeviceEnablePeerAccess", 150 * ms, 2 * ms);
  api("cudaLaunchKernel", 160 * ms, 2 * ms, EventKind::Runtime, 2);  // slow, but gemm already ran: not loading
  kernel(b, 0, 7, "gemm", 163 * ms, 1 * ms, 2);
  api("cudaSetDevice", 170 * ms, 5 * us);   // short: context exists
  api("cudaSetDevice", 180 * ms, 50 * ms);  // second device's context
  api("Lazy Function Loading", 240 * ms, 50 * us, EventKind::Overhead);
  api("Activity Buffer Request", 250 * ms, 3 * ms, EventKind::Overhead);  // tracer cost, not warm-up
  return build(b);
}

}  // namespace

TEST(WarmUp, LabelsSegmentsByCause) {
  const Trace t = setup_trace();
  const std::vector<WarmUpSegment> s = find_warmup_segments(t);
  ASSERT_EQ(s.size(), 8u);
  auto check = [&](std::size_t i, WarmUpCause cause, TimeNs start, TimeNs end, TimeNs time, std::size_t calls,
                   std::string_view first) {
    SCOPED_TRACE(i);
    EXPECT_EQ(s[i].cause, cause);
    EXPECT_EQ(s[i].start_ns, start);
    EXPECT_EQ(s[i].end_ns, end);
    EXPECT_EQ(s[i].time_ns, time);
    EXPECT_EQ(s[i].call_count, calls);
    EXPECT_EQ(s[i].first_call, first);
    EXPECT_EQ(s[i].pid, 1);
  };
  check(0, WarmUpCause::ContextCreation, 0, 100 * ms, 100 * ms, 1, "cudaSetDevice");
  check(1, WarmUpCause::CublasSetup, 101 * ms, 101 * ms + 700 * us, 230 * us, 4, "cuGetProcAddress_v2");
  check(2, WarmUpCause::LazyModuleLoading, 110 * ms, 116 * ms, 6 * ms, 2, "cudaLaunchKernel");
  check(3, WarmUpCause::AllocatorGrowth, 130 * ms, 131 * ms, 1 * ms, 1, "cudaMalloc");
  check(4, WarmUpCause::StreamPool, 140 * ms, 140 * ms + 25 * us, 15 * us, 3, "cudaStreamCreateWithPriority");
  check(5, WarmUpCause::PeerAccess, 150 * ms, 152 * ms, 2 * ms, 1, "cudaDeviceEnablePeerAccess");
  check(6, WarmUpCause::ContextCreation, 180 * ms, 230 * ms, 50 * ms, 1, "cudaSetDevice");
  check(7, WarmUpCause::LazyModuleLoading, 240 * ms, 240 * ms + 50 * us, 50 * us, 1, "Lazy Function Loading");
}

TEST(WarmUp, TotalsPerCauseAndFindings) {
  const Trace t = setup_trace();
  const WarmUp w = analyze_warmup(t);
  ASSERT_EQ(w.causes.size(), 6u);
  EXPECT_EQ(w.causes[0].cause, WarmUpCause::ContextCreation);
  EXPECT_EQ(w.causes[0].call_count, 2u);
  EXPECT_EQ(w.causes[0].segment_count, 2u);
  EXPECT_EQ(w.causes[0].time_ns, 150 * ms);
  EXPECT_EQ(w.causes[1].cause, WarmUpCause::LazyModuleLoading);
  EXPECT_EQ(w.causes[1].time_ns, 6 * ms + 50 * us);
  EXPECT_EQ(w.segment_time_ns, 100 * ms + 700 * us + 6 * ms + 1 * ms + 25 * us + 2 * ms + 50 * ms + 50 * us);
  ASSERT_FALSE(w.findings.empty());
  // No ranges: per-device numbers come from kernel names (gemm ran twice, 1 ms each time).
  ASSERT_EQ(w.devices.size(), 1u);
  EXPECT_EQ(w.devices[0].basis, WarmUpBasis::KernelNames);
  EXPECT_EQ(w.devices[0].cold_start_ns, 0);
  EXPECT_EQ(w.findings[1], "Context creation: 2 call(s) in 2 segment(s), 150.0 ms on the host.");
  EXPECT_EQ(w.headline, "Warm-up: context creation cost the host 150.0 ms (2 call(s)).");
}

TEST(WarmUp, FirstIterationAgainstSteadyFromRanges) {
  TraceBuilder b;
  const TimeNs starts[] = {0, 100, 110, 122, 130};
  for (int i = 0; i < 4; ++i)
    b.add_range(Range{"iteration " + std::to_string(i), RangeKind::Iteration, starts[i] * ms, starts[i + 1] * ms, 1,
                      1, 0});
  b.add_range(Range{"warm-up", RangeKind::WarmUp, 0, 50 * ms, 1, 1, 0});
  b.add_range(Range{"forward", RangeKind::Forward, 0, 1 * ms, 1, 1, 1});  // ignored: iterations exist
  const Trace t = build(b);
  const WarmUp w = analyze_warmup(t);
  ASSERT_EQ(w.devices.size(), 1u);
  const DeviceWarmUp& d = w.devices[0];
  EXPECT_EQ(d.device, 0);
  EXPECT_EQ(d.basis, WarmUpBasis::Ranges);
  EXPECT_EQ(d.range_name, "iteration 0");
  EXPECT_EQ(d.first_ns, 100 * ms);
  EXPECT_EQ(d.steady_mean_ns, 10 * ms);  // (10 + 12 + 8) / 3
  EXPECT_EQ(d.steady_count, 3u);
  EXPECT_EQ(d.cold_start_ns, 90 * ms);
  EXPECT_DOUBLE_EQ(d.slowdown, 10.0);
  EXPECT_EQ(d.warmup_range_ns, 50 * ms);
  EXPECT_EQ(w.findings[0],
            "GPU 0: the first iteration (iteration 0) took 100.0 ms against 10.0 ms for the 3 steady one(s) (10.0x); "
            "warm-up cost 90.0 ms.");
  EXPECT_EQ(w.findings[1], "GPU 0: the recorded warm-up phase took 50.0 ms.");
  EXPECT_EQ(w.headline, "Warm-up: the first iteration on GPU 0 took 10.0x the steady time (100.0 ms vs 10.0 ms).");
}

TEST(WarmUp, FirstRunsOfKernelNamesWithoutRanges) {
  TraceBuilder b;
  kernel(b, 0, 7, "a", 100, 10);
  kernel(b, 0, 7, "a", 200, 20);
  kernel(b, 0, 8, "a", 0, 60);  // the earliest run is on another stream
  kernel(b, 0, 7, "c", 300, 9);
  kernel(b, 0, 7, "c", 400, 3);
  kernel(b, 0, 7, "c", 500, 3);
  kernel(b, 0, 8, "once", 600, 5);  // never repeated: no steady state to compare
  const Trace t = build(b);
  const std::vector<DeviceWarmUp> d = device_warmup(t);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].basis, WarmUpBasis::KernelNames);
  EXPECT_EQ(d[0].first_ns, 69);
  EXPECT_EQ(d[0].steady_mean_ns, 18);  // 15 + 3
  EXPECT_EQ(d[0].steady_count, 2u);
  EXPECT_EQ(d[0].cold_start_ns, 51);
  EXPECT_DOUBLE_EQ(d[0].slowdown, 69.0 / 18.0);
}

TEST(WarmUp, IterationAnnotationsStandInForRanges) {
  TraceBuilder b;
  host_call(b, 1, 1, "ProfilerStep#0", 0, 40 * ms, EventKind::Annotation);
  host_call(b, 1, 1, "aten::mm", 1 * ms, 5 * ms, EventKind::CpuOp);
  host_call(b, 1, 1, "ProfilerStep#1", 50 * ms, 10 * ms, EventKind::Annotation);
  host_call(b, 1, 1, "ProfilerStep#2", 70 * ms, 6 * ms, EventKind::Annotation);
  host_call(b, 1, 2, "iteration", 0, 1 * ms, EventKind::Annotation);  // another thread: not counted
  const Trace t = build(b);
  const WarmUp w = analyze_warmup(t);
  ASSERT_EQ(w.devices.size(), 1u);
  EXPECT_EQ(w.devices[0].device, -1);
  EXPECT_EQ(w.devices[0].basis, WarmUpBasis::Ranges);
  EXPECT_EQ(w.devices[0].range_name, "ProfilerStep#0");
  EXPECT_EQ(w.devices[0].first_ns, 40 * ms);
  EXPECT_EQ(w.devices[0].steady_mean_ns, 8 * ms);
  EXPECT_EQ(w.devices[0].cold_start_ns, 32 * ms);
  EXPECT_EQ(w.headline, "Warm-up: the first iteration took 5.0x the steady time (40.0 ms vs 8.00 ms).");
}

TEST(WarmUp, LongFirstWaitIsNotContextCreation) {
  TraceBuilder b;
  host_call(b, 1, 1, "cudaDeviceSynchronize", 0, 50 * ms);  // waiting for work, not creating a context
  host_call(b, 1, 1, "cudaMemcpy", 60 * ms, 50 * ms);
  const Trace t = build(b);
  EXPECT_TRUE(find_warmup_segments(t).empty());
}

TEST(WarmUp, NothingToReport) {
  TraceBuilder b;
  host_call(b, 1, 1, "cudaSetDevice", 0, 5);  // short: no context creation
  const Trace t = build(b);
  const WarmUp w = analyze_warmup(t);
  EXPECT_TRUE(w.segments.empty());
  EXPECT_TRUE(w.devices.empty());
  ASSERT_EQ(w.findings.size(), 1u);
  EXPECT_EQ(w.findings[0], "No warm-up found: no iteration ranges, no repeated kernels and no set-up calls.");
  EXPECT_EQ(w.headline, "");
}
}  // namespace gtv::analysis
