#include "gtv/analysis/timing_truth.h"

#include <gtest/gtest.h>

#include "trace_helpers.h"

namespace gtv::analysis {
using namespace testing;

namespace {
Measurement measurement(std::string name, MeasurementMethod method, TimeNs reported, TimeNs start, TimeNs end) {
  return Measurement{std::move(name), method, reported, start, end, 1, 1};
}
}  // namespace

TEST(TimingTruth, ScopeExtendedToGpuWorkLaunchedInside) {
  TraceBuilder b;
  host_call(b, 1, 1, "cudaLaunchKernel", 10, 5, EventKind::Runtime, 1);
  host_call(b, 1, 1, "cudaLaunchKernel", 20, 5, EventKind::Runtime, 2);
  host_call(b, 1, 1, "cudaLaunchKernel", 500, 5, EventKind::Runtime, 3);
  kernel(b, 0, 7, "a", 100, 200, 1);
  kernel(b, 1, 7, "b", 150, 250, 2);
  kernel(b, 0, 7, "c", 510, 90, 3);  // launched after every scope below
  b.add_measurement(measurement("loop", MeasurementMethod::StopwatchNoSync, 40, 0, 40));
  b.add_measurement(measurement("loop", MeasurementMethod::StopwatchSync, 405, 0, 405));
  b.add_measurement(measurement("loop", MeasurementMethod::CudaEvents, 300, 0, 405));
  b.add_measurement(measurement("idle", MeasurementMethod::Other, 10, 700, 710));
  const Trace t = build(b);
  const TimingTruth tt = analyze_timing_truth(t);
  ASSERT_EQ(tt.measurements.size(), 4u);
  const MeasurementTruth& m = tt.measurements[0];
  EXPECT_TRUE(m.by_flows);
  EXPECT_EQ(m.gpu_activity_count, 2u);
  EXPECT_EQ(m.gpu_first_start_ns, 100);
  EXPECT_EQ(m.gpu_last_end_ns, 400);
  EXPECT_EQ(m.gpu_busy_ns, 300);
  EXPECT_EQ(m.truth_ns, 400);
  EXPECT_EQ(m.error_ns, -360);
  EXPECT_DOUBLE_EQ(m.relative_error, -0.9);
  EXPECT_EQ(m.verdict, "stopwatch \"loop\" reported 40 ns but the work took 400 ns: it missed 360 ns (90%).");
  EXPECT_EQ(tt.measurements[1].truth_ns, 405);
  EXPECT_EQ(tt.measurements[1].error_ns, 0);
  EXPECT_EQ(tt.measurements[1].verdict, "stopwatch+sync \"loop\" reported 405 ns; the work took 405 ns: within 0.0%.");
  EXPECT_EQ(tt.measurements[2].error_ns, -105);
  EXPECT_EQ(tt.measurements[2].verdict,
            "cuda-events \"loop\" reported 300 ns but the work took 405 ns: it missed 105 ns (26%).");
  EXPECT_EQ(tt.measurements[3].gpu_activity_count, 0u);
  EXPECT_EQ(tt.measurements[3].truth_ns, 10);
  EXPECT_EQ(tt.measurements[3].verdict,
            "other \"idle\" reported 10 ns; no GPU work ran in its scope, so the truth is its host interval, 10 ns.");
  ASSERT_EQ(tt.methods.size(), 4u);
  EXPECT_EQ(tt.methods[0].method, MeasurementMethod::StopwatchNoSync);
  EXPECT_DOUBLE_EQ(tt.methods[0].mean_abs_relative_error, 0.9);
}

TEST(TimingTruth, WithoutFlowsUsesOverlappingWork) {
  TraceBuilder b;
  kernel(b, 0, 7, "long", 0, 100);  // started before the scope, overlaps it
  kernel(b, 0, 7, "inside", 120, 30);
  kernel(b, 0, 7, "after", 300, 10);  // does not overlap
  b.add_measurement(measurement("m", MeasurementMethod::StopwatchNoSync, 20, 50, 130));
  const Trace t = build(b);
  const MeasurementTruth m = analyze_timing_truth(t).measurements.at(0);
  EXPECT_FALSE(m.by_flows);
  EXPECT_EQ(m.gpu_activity_count, 2u);
  EXPECT_EQ(m.gpu_first_start_ns, 0);
  EXPECT_EQ(m.gpu_last_end_ns, 150);
  EXPECT_EQ(m.truth_ns, 100);  // 50 .. 150
  EXPECT_EQ(m.error_ns, -80);
}

TEST(TimingTruth, NoMeasurementsAndZeroLengthScope) {
  TraceBuilder b;
  kernel(b, 0, 7, "k", 0, 10);
  const Trace t = build(b);
  const TimingTruth tt = analyze_timing_truth(t);
  EXPECT_TRUE(tt.measurements.empty());
  EXPECT_EQ(tt.findings, std::vector<std::string>{"No timing measurements recorded in this trace."});

  TraceBuilder z;
  z.add_measurement(measurement("zero", MeasurementMethod::StopwatchSync, 0, 5, 5));
  const Trace zt = build(z);
  const MeasurementTruth m = analyze_timing_truth(zt).measurements.at(0);
  EXPECT_EQ(m.truth_ns, 0);
  EXPECT_EQ(m.relative_error, 0.0);  // no division by zero
}
}  // namespace gtv::analysis
