#include "gtv/analysis/compare.h"

#include <gtest/gtest.h>

#include "trace_helpers.h"

namespace gtv::analysis {
using namespace testing;

namespace {
constexpr TimeNs ms = kNsPerMs;
}

TEST(Compare, SpeedupOverlapAndKernelDiffs) {
  TraceBuilder ba;
  kernel(ba, 0, 7, "void ns::gemm<1>(int)", 0, 40 * ms);
  kernel(ba, 1, 7, "void ns::gemm<1>(int)", 40 * ms, 40 * ms);
  kernel(ba, 0, 7, "relu", 80 * ms, 10 * ms);
  const Trace a = build(ba);
  TraceBuilder bb;
  kernel(bb, 0, 7, "void ns::gemm<1>(int)", 0, 40 * ms);
  kernel(bb, 1, 7, "void ns::gemm<1>(int)", 0, 40 * ms);
  kernel(bb, 0, 7, "relu", 40 * ms, 5 * ms);
  kernel(bb, 1, 7, "new_k", 45 * ms, 5 * ms);
  const Trace b = build(bb);

  const Comparison c = compare(a, b, "serial", "overlapped");
  EXPECT_EQ(c.a.wall_ns, 90 * ms);
  EXPECT_EQ(c.b.wall_ns, 50 * ms);
  EXPECT_EQ(c.a.overlap_ns, 0);
  EXPECT_EQ(c.b.overlap_ns, 40 * ms);
  EXPECT_EQ(c.b.gpu_busy_sum_ns, 90 * ms);
  EXPECT_DOUBLE_EQ(c.b.effective_parallelism, 1.8);
  EXPECT_DOUBLE_EQ(c.speedup, 1.8);
  EXPECT_EQ(c.a.kernel_ns, 90 * ms);
  EXPECT_EQ(c.b.kernel_count, 4u);
  EXPECT_EQ(c.basis, CompareBasis::SteadyParts);
  EXPECT_EQ(c.verdict,
            "overlapped is 1.80x faster than serial on their steady parts (90.0 ms -> 50.0 ms; basis: the steady "
            "parts, first kernel after warm-up to the end of the GPU work, as the traces do not both have timed "
            "measurements).");
  EXPECT_EQ(c.wall_line,
            "Whole trace (everything recorded): 90.0 ms -> 50.0 ms wall (1.80x); 2+ GPUs overlapped 0 ns -> 40.0 ms; "
            "effective parallelism 1.00 -> 1.80.");
  ASSERT_EQ(c.kernels.size(), 3u);
  EXPECT_EQ(c.kernels[0].name, "new_k");
  EXPECT_EQ(c.kernels[0].count_a, 0u);
  EXPECT_EQ(c.kernels[0].delta_ns, 5 * ms);
  EXPECT_EQ(c.kernels[1].name, "relu");
  EXPECT_EQ(c.kernels[1].delta_ns, -5 * ms);
  EXPECT_EQ(c.kernels[2].name, "gemm");
  EXPECT_EQ(c.kernels[2].delta_ns, 0);

  const std::string text = format_comparison(c, Format::Text);
  EXPECT_EQ(text.rfind("Comparison: serial vs overlapped\n", 0), 0u) << text;
  EXPECT_NE(text.find("wall time"), std::string::npos);
  EXPECT_NE(text.find("-44.4%"), std::string::npos) << text;  // 90 -> 50 ms
  EXPECT_NE(format_comparison(c, Format::Markdown).find("| kernel | count serial |"), std::string::npos);
  EXPECT_NE(format_comparison(c, Format::Json).find("\"speedup\": 1.8000"), std::string::npos);
}

TEST(Compare, EmptyTraces) {
  TraceBuilder ba, bb;
  const Trace a = build(ba);
  const Trace b = build(bb);
  const Comparison c = compare(a, b);
  EXPECT_EQ(c.speedup, 0.0);
  EXPECT_EQ(c.verdict, "Cannot compare: neither A nor B spans any time (no events, or only instants).");
  const std::string text = format_comparison(c, Format::Text);
  EXPECT_NE(text.find("No kernels in either trace."), std::string::npos);
  EXPECT_EQ(text.find("0.00x"), std::string::npos) << text;
}

namespace {

// A run with set-up before its measured work: a slow first kernel, then "timed loop" (two methods timing one
// interval) whose GPU work ends at host_start + truth_ns, then host work until wall_ns.
Trace measured_run(TimeNs truth_ns, TimeNs wall_ns, std::string_view name = "timed loop") {
  TraceBuilder b;
  kernel(b, 0, 7, "setup", 0, 5 * ms);
  kernel(b, 0, 7, "gemm", 15 * ms, truth_ns - 5 * ms);
  b.add_measurement({std::string(name), MeasurementMethod::StopwatchSync, truth_ns, 10 * ms, 10 * ms + truth_ns, 1, 1});
  b.add_measurement({std::string(name), MeasurementMethod::StopwatchNoSync, 10 * ms, 10 * ms, 20 * ms, 1, 1});
  host_call(b, 1, 1, "model building", 0, wall_ns, EventKind::CpuOp);
  return build(b);
}

}  // namespace

TEST(Compare, HeadlinesTheSharedMeasurementsNotTheWallTime) {
  const Comparison c = compare(measured_run(90 * ms, 500 * ms), measured_run(60 * ms, 200 * ms), "A", "B");
  EXPECT_EQ(c.basis, CompareBasis::SharedMeasurements);
  EXPECT_EQ(c.basis_a_ns, 90 * ms);  // the largest truth of the two methods, not their sum
  EXPECT_EQ(c.basis_b_ns, 60 * ms);
  EXPECT_DOUBLE_EQ(c.speedup, 1.5);
  EXPECT_DOUBLE_EQ(c.wall_speedup, 2.5);
  EXPECT_EQ(c.verdict,
            "B is 1.50x faster than A on the measured work (timed loop: 90.0 ms -> 60.0 ms; basis: the truth of "
            "the measurements both traces share).");
  EXPECT_EQ(c.wall_line.rfind("Whole trace (everything recorded): 500.0 ms -> 200.0 ms wall (2.50x)", 0), 0u)
      << c.wall_line;
  const std::string json = format_comparison(c, Format::Json);
  EXPECT_NE(json.find("\"basis\": \"shared_measurements\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"wall_speedup\": 2.5000"), std::string::npos) << json;
  EXPECT_NE(json.find("\"basis_a_ns\": 90000000"), std::string::npos) << json;
  const std::string text = format_comparison(c, Format::Text);
  EXPECT_NE(text.find("speedup (whole-trace wall)"), std::string::npos) << text;
}

TEST(Compare, TimedWindowsWhenNoMeasurementIsShared) {
  // B: two workers, each timing its own loop on its own GPU; its window is both loops (10 to 70 ms).
  TraceBuilder bb;
  kernel(bb, 0, 7, "gemm", 10 * ms, 50 * ms);
  kernel(bb, 1, 7, "gemm", 12 * ms, 58 * ms);
  bb.add_measurement({"worker 0: timed loop", MeasurementMethod::StopwatchSync, 50 * ms, 10 * ms, 60 * ms, 1, 1});
  bb.add_measurement({"worker 1: timed loop", MeasurementMethod::StopwatchSync, 58 * ms, 12 * ms, 70 * ms, 2, 2});
  const Comparison c = compare(measured_run(90 * ms, 500 * ms), build(bb), "A", "B");
  EXPECT_EQ(c.basis, CompareBasis::TimedWindows);
  EXPECT_EQ(c.basis_a_ns, 90 * ms);
  EXPECT_EQ(c.basis_b_ns, 60 * ms);
  EXPECT_EQ(c.verdict.rfind("B is 1.50x faster than A on their timed windows (90.0 ms -> 60.0 ms; basis: each "
                            "trace's timed measurements",
                            0),
            0u)
      << c.verdict;
}

TEST(Compare, SteadyPartsStartAfterWarmUp) {
  TraceBuilder ba;
  kernel(ba, 0, 7, "gemm", 0, 40 * ms);  // slow first run, inside the warm-up range
  ba.add_range({"warm-up", RangeKind::WarmUp, 0, 50 * ms, 1, 1, -1});
  kernel(ba, 0, 7, "gemm", 60 * ms, 40 * ms);
  const Trace a = build(ba);
  TraceBuilder bb;
  kernel(bb, 0, 7, "gemm", 0, 20 * ms);
  const Trace b = build(bb);
  const std::optional<SteadyPart> steady = steady_part(a);
  ASSERT_TRUE(steady.has_value());
  EXPECT_EQ(steady->start_ns, 60 * ms);
  EXPECT_EQ(steady->end_ns, 100 * ms);
  const Comparison c = compare(a, b, "A", "B");
  EXPECT_EQ(c.basis, CompareBasis::SteadyParts);
  EXPECT_DOUBLE_EQ(c.speedup, 2.0);
  EXPECT_DOUBLE_EQ(c.wall_speedup, 5.0);
}

TEST(Compare, WholeTraceWithoutGpuWorkSaysSoTruthfully) {
  TraceBuilder ba, bb;
  host_call(ba, 1, 1, "aten::mm", 0, 10 * ms, EventKind::CpuOp);
  host_call(bb, 1, 1, "aten::mm", 0, 5 * ms, EventKind::CpuOp);
  const Comparison c = compare(build(ba), build(bb), "cpu1", "cpu2");
  EXPECT_EQ(c.basis, CompareBasis::WholeTrace);
  EXPECT_EQ(c.verdict,
            "cpu2 is 2.00x faster than cpu1 over the whole trace (10.0 ms -> 5.00 ms; basis: whole-trace wall time, "
            "as the traces do not both have timed measurements or kernels).");
  EXPECT_EQ(c.wall_line, "Whole trace (everything recorded): 10.0 ms -> 5.00 ms wall (2.00x).");
  const std::string text = format_comparison(c, Format::Text);
  EXPECT_EQ(text.find("0.00"), std::string::npos) << text;
  EXPECT_NE(text.find("no GPU work"), std::string::npos) << text;
}

TEST(Compare, OneEmptyTraceAndATraceAgainstItself) {
  TraceBuilder ba, bb;
  const Trace empty = build(ba);
  const Trace run = measured_run(90 * ms, 500 * ms);
  EXPECT_EQ(compare(run, empty, "A", "B").verdict, "Cannot compare: B spans no time (no events, or only instants).");
  const Comparison same = compare(run, run, "A", "A'");
  EXPECT_DOUBLE_EQ(same.speedup, 1.0);
  EXPECT_EQ(same.verdict.rfind("A and A' take the same time on the measured work", 0), 0u) << same.verdict;
}
}  // namespace gtv::analysis
