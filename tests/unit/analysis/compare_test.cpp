#include "gtv/analysis/compare.h"

#include <gtest/gtest.h>

#include "gtv/analysis/report.h"
#include "recording_helpers.h"
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
  EXPECT_EQ(c.a.kernel_ns, 90 * ms);
  EXPECT_EQ(c.b.kernel_count, 4u);
  EXPECT_EQ(c.basis, CompareBasis::SteadyParts);
  // overlapped ran a kernel serial never ran (new_k, 5 of its 90 ms): 1.80x on the totals would compare different
  // work, so the headline is per kernel instance, 30.0 ms against 12.5 ms.
  EXPECT_TRUE(c.per_kernel);
  EXPECT_DOUBLE_EQ(c.speedup, 2.4);
  EXPECT_EQ(c.verdict,
            "The work differs, so the totals are no speedup: overlapped ran 4 kernel instances in its basis, serial 3 "
            "(1.33x). Per kernel instance, overlapped is 2.40x faster than serial on their steady parts (90.0 ms for 3 "
            "kernel instances -> 50.0 ms for 4; per instance 30.0 ms -> 12.5 ms: 2.40x; basis: the steady parts, first "
            "kernel after warm-up to the end of the GPU work, as the traces do not both have timed measurements).");
  EXPECT_EQ(c.warnings, (std::vector<std::string>{"The work differs: 6% of overlapped's kernel time is in 1 kernel(s) "
                                                  "serial never ran: even per kernel instance, the comparison is of "
                                                  "different work."}));
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
  EXPECT_NE(format_comparison(c, Format::Json).find("\"speedup\": 2.4000"), std::string::npos);
  EXPECT_NE(format_comparison(c, Format::Json).find("\"per_kernel\": true"), std::string::npos);
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
  // A ran one kernel in its window, B two: only per kernel instance is the unit the same.
  EXPECT_EQ(c.verdict.rfind("The work differs, so the totals are no speedup: B ran 2 kernel instances in its basis, A "
                            "1 (2.00x). Per kernel instance, B is 3.00x faster than A on their timed windows (90.0 ms "
                            "for 1 kernel instance -> 60.0 ms for 2; per instance 90.0 ms -> 30.0 ms: 3.00x; basis: "
                            "each trace's timed measurements",
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

namespace {

// `loops` timed loops "timed loop" of `iterations` iterations each, every iteration 10 ms of `kernels` kernels on
// stream 7 recorded as an Iteration range, the loops 10 ms apart.
Trace loop_run(int loops, int iterations, std::string_view kernel_name = "gemm", int kernels = 1) {
  TraceBuilder b;
  TimeNs t = 0;
  for (int l = 0; l < loops; ++l) {
    const TimeNs loop_start = t;
    for (int i = 0; i < iterations; ++i, t += 10 * ms) {
      b.add_range({"iteration " + std::to_string(i), RangeKind::Iteration, t, t + 10 * ms, 1, 1, -1});
      for (int k = 0; k < kernels; ++k) kernel(b, 0, 7, kernel_name, t + k * 10 * ms / kernels, 10 * ms / kernels);
    }
    b.add_measurement({"timed loop", MeasurementMethod::StopwatchSync, t - loop_start, loop_start, t, 1, 1});
    t += 10 * ms;
  }
  return build(b);
}

}  // namespace

TEST(Compare, DifferentIterationCountsAreComparedPerIteration) {
  // 50 iterations against 10 at the same 10 ms each: the totals differ 5x, the work per iteration does not.
  const Comparison c = compare(loop_run(1, 10), loop_run(1, 50), "A", "B");
  EXPECT_EQ(c.basis, CompareBasis::SharedMeasurements);
  EXPECT_EQ(c.iterations_a, 10u);
  EXPECT_EQ(c.iterations_b, 50u);
  EXPECT_TRUE(c.per_iteration);
  EXPECT_DOUBLE_EQ(c.speedup, 1.0);
  EXPECT_EQ(c.verdict,
            "A and B take the same time per iteration on the measured work (timed loop: 10 iterations in 100.0 ms -> "
            "50 in 500.0 ms; per iteration 10.0 ms -> 10.0 ms: 1.00x; compared per iteration as the runs ran "
            "different iteration counts; basis: the truth of the measurements both traces share).");
  EXPECT_TRUE(c.warnings.empty()) << ::testing::PrintToString(c.warnings);
  const std::string text = format_comparison(c, Format::Text);
  EXPECT_EQ(text.find("slower"), std::string::npos) << text;
  EXPECT_NE(text.find("basis per iteration"), std::string::npos) << text;
  const std::string json = format_comparison(c, Format::Json);
  EXPECT_NE(json.find("\"per_iteration\": true"), std::string::npos) << json;
  EXPECT_NE(json.find("\"iterations_b\": 50"), std::string::npos) << json;
}

TEST(Compare, TheSameLoopRunFiveTimesIsTheSameWork) {
  // B ran A's 10-iteration loop 5 times, each at A's speed: five "timed loop" intervals against one.
  const Comparison c = compare(loop_run(1, 10), loop_run(5, 10), "A", "B");
  EXPECT_EQ(c.basis, CompareBasis::SharedMeasurements);
  EXPECT_EQ(c.basis_b_ns, 500 * ms);
  EXPECT_EQ(c.iterations_b, 50u);
  EXPECT_DOUBLE_EQ(c.speedup, 1.0);
  EXPECT_EQ(c.verdict.rfind("A and B take the same time per iteration on the measured work (timed loop: 10 "
                            "iterations in 100.0 ms -> 50 in 500.0 ms; per iteration 10.0 ms -> 10.0 ms: 1.00x;",
                            0),
            0u)
      << c.verdict;
}

TEST(Compare, IterationsOfASteadyPartCountTheFirstOne) {
  // Without measurements the basis is the steady part, which starts at the first kernel, 1 ms after the first
  // iteration's range began: that iteration is still one of the part's.
  auto run = [](int iterations) {
    TraceBuilder b;
    for (int i = 0; i < iterations; ++i) {
      const TimeNs t = i * 10 * ms;
      b.add_range({"iteration " + std::to_string(i), RangeKind::Iteration, t, t + 10 * ms, 1, 1, -1});
      kernel(b, 0, 7, "gemm", t + 1 * ms, 9 * ms);
    }
    return build(b);
  };
  const Comparison c = compare(run(10), run(20), "A", "B");
  EXPECT_EQ(c.basis, CompareBasis::SteadyParts);
  EXPECT_EQ(c.iterations_a, 10u);
  EXPECT_EQ(c.iterations_b, 20u);
  EXPECT_TRUE(c.per_iteration);
  EXPECT_DOUBLE_EQ(c.speedup, (99.0 / 10) / (199.0 / 20));  // [1, 100) ms and [1, 200) ms
}

TEST(Compare, DifferentKernelsAreDifferentWork) {
  const Comparison c = compare(loop_run(1, 10, "gemm"), loop_run(1, 10, "conv"), "A", "B");
  EXPECT_FALSE(c.per_iteration);  // as many iterations in both
  EXPECT_DOUBLE_EQ(c.only_a_share, 1.0);
  EXPECT_DOUBLE_EQ(c.only_b_share, 1.0);
  EXPECT_TRUE(c.per_kernel);
  EXPECT_EQ(c.verdict.rfind("The work differs, so the totals are no speedup: they ran different kernels (below). Per "
                            "kernel instance, A and B take the same time on the measured work",
                            0),
            0u)
      << c.verdict;
  EXPECT_EQ(c.warnings, (std::vector<std::string>{
                            "The work differs: 100% of A's kernel time is in 1 kernel(s) B never ran, and 100% of B's "
                            "kernel time is in 1 kernel(s) A never ran: even per kernel instance, the comparison is of "
                            "different work."}));
  EXPECT_NE(format_comparison(c, Format::Text).find("The work differs"), std::string::npos);
  // The same kernels: no warning.
  EXPECT_TRUE(compare(loop_run(1, 10), loop_run(1, 20), "A", "B").warnings.empty());
}

TEST(Compare, AnIterationOfDifferentWorkIsNotComparedPerIteration) {
  // A: 30 iterations of one kernel; B: 10 iterations of three. As many kernels in all: the totals are the same
  // work (as baseline's 30 one-model iterations and sequential's 10 three-model ones), so they are compared.
  const Comparison same = compare(loop_run(1, 30), loop_run(1, 10, "gemm", 3), "A", "B");
  EXPECT_EQ(same.basis_kernels_a, 30u);
  EXPECT_EQ(same.basis_kernels_b, 30u);
  EXPECT_FALSE(same.per_iteration);
  EXPECT_DOUBLE_EQ(same.speedup, 3.0);
  EXPECT_EQ(same.warnings, (std::vector<std::string>{
                               "A and B ran 30 and 10 iterations but as many kernels in their bases (30 and 30): an "
                               "iteration is different work in each, so the totals are compared, not iterations."}));
  // A: 10 iterations of one kernel; B: 20 of two. Per iteration, and B's iterations hold twice the kernels.
  // The per-iteration ratio would compare different work: per kernel instance instead (10 ms each in A, 5 ms in B).
  const Comparison more = compare(loop_run(1, 10), loop_run(1, 20, "gemm", 2), "A", "B");
  EXPECT_FALSE(more.per_iteration);
  EXPECT_TRUE(more.per_kernel);
  EXPECT_DOUBLE_EQ(more.speedup, 2.0);
  EXPECT_EQ(more.verdict,
            "The work differs, so the totals are no speedup: B ran 40 kernel instances in its basis, A 10 (4.00x). "
            "Per kernel instance, B is 2.00x faster than A on the measured work (timed loop: 100.0 ms for 10 kernel "
            "instances -> 200.0 ms for 40; per instance 10.0 ms -> 5.00 ms: 2.00x; basis: the truth of the "
            "measurements both traces share).");
  EXPECT_TRUE(more.warnings.empty()) << ::testing::PrintToString(more.warnings);
}

namespace {

// `rounds` rounds of 10 kernels of 10 ms back to back on stream 7, marked by nothing but one annotation per round
// when `step` names one ("ProfilerStep#" numbers it from 3): a PyTorch profiler trace without timed measurements.
Trace rounds_run(int rounds, std::string_view step) {
  TraceBuilder b;
  for (int r = 0; r < rounds; ++r) {
    const TimeNs t = r * 100 * ms;
    if (step == "ProfilerStep#")
      host_call(b, 1, 1, "ProfilerStep#" + std::to_string(r + 3), t, 100 * ms, EventKind::Annotation);
    else if (!step.empty())
      host_call(b, 1, 1, step, t, 100 * ms, EventKind::Annotation);
    for (int k = 0; k < 10; ++k) kernel(b, 0, 7, "gemm", t + k * 10 * ms, 10 * ms);
  }
  return build(b);
}

}  // namespace

TEST(Compare, FiveRoundsAgainstOneAtTheSameSpeedAreNotFiveTimesSlower) {
  // No iteration is marked: the totals (100 ms against 500 ms) are different amounts of the same work.
  const Comparison c = compare(rounds_run(1, ""), rounds_run(5, ""), "torchprof", "torchprof-seq");
  EXPECT_EQ(c.basis, CompareBasis::SteadyParts);
  EXPECT_TRUE(c.per_kernel);
  EXPECT_DOUBLE_EQ(c.speedup, 1.0);
  EXPECT_EQ(c.verdict,
            "The work differs, so the totals are no speedup: torchprof-seq ran 50 kernel instances in its basis, "
            "torchprof 10 (5.00x). Per kernel instance, torchprof and torchprof-seq take the same time on their steady "
            "parts (100.0 ms for 10 kernel instances -> 500.0 ms for 50; per instance 10.0 ms -> 10.0 ms: 1.00x; "
            "basis: the steady parts, first kernel after warm-up to the end of the GPU work, as the traces do not both "
            "have timed measurements).");
  EXPECT_EQ(c.verdict.find("5.00x slower"), std::string::npos);
  EXPECT_TRUE(c.warnings.empty()) << ::testing::PrintToString(c.warnings);
}

TEST(Compare, ARangeTheLoopRepeatsMarksItsIterations) {
  // record_function("train_step") around each step: 2 steps against 5, the same 100 ms each.
  const Comparison c = compare(rounds_run(2, "train_step"), rounds_run(5, "train_step"), "A", "B");
  EXPECT_EQ(c.iterations_a, 2u);
  EXPECT_EQ(c.iterations_b, 5u);
  EXPECT_TRUE(c.per_iteration);
  EXPECT_DOUBLE_EQ(c.speedup, 1.0);
  // Once is no repetition: the iterations stay unknown, and the work (10 against 50 instances) differs.
  const Comparison once = compare(rounds_run(1, "train_step"), rounds_run(5, "train_step"), "A", "B");
  EXPECT_EQ(once.iterations_a, 0u);
  EXPECT_TRUE(once.per_kernel);
}

TEST(Compare, ProfilerStepsAreIterations) {
  const Comparison c =
      compare(rounds_run(1, "ProfilerStep#"), rounds_run(5, "ProfilerStep#"), "torchprof", "torchprof-seq");
  EXPECT_EQ(c.iterations_a, 1u);
  EXPECT_EQ(c.iterations_b, 5u);
  EXPECT_TRUE(c.per_iteration);
  EXPECT_FALSE(c.per_kernel);
  EXPECT_EQ(c.verdict.rfind("torchprof and torchprof-seq take the same time per iteration on their steady parts (1 "
                            "iteration in 100.0 ms -> 5 in 500.0 ms; per iteration 100.0 ms -> 100.0 ms: 1.00x;",
                            0),
            0u)
      << c.verdict;
}

TEST(Compare, StreamParallelismOfEachGpuSideBySide) {
  // A: two streams taking turns; B: the same two kernels at once.
  TraceBuilder ba;
  kernel(ba, 0, 7, "a", 0, 10 * ms);
  kernel(ba, 0, 8, "b", 10 * ms, 10 * ms);
  TraceBuilder bb;
  kernel(bb, 0, 7, "a", 0, 10 * ms);
  kernel(bb, 0, 8, "b", 0, 10 * ms);
  const Comparison c = compare(build(ba), build(bb), "A", "B");
  ASSERT_EQ(c.a.gpu_streams.size(), 1u);
  ASSERT_EQ(c.b.gpu_streams.size(), 1u);
  EXPECT_DOUBLE_EQ(c.a.gpu_streams[0].stream_parallelism, 1.0);
  EXPECT_DOUBLE_EQ(c.b.gpu_streams[0].stream_parallelism, 2.0);
  EXPECT_EQ(c.b.gpu_streams[0].multi_stream_ns, 10 * ms);
  // One GPU each: the overlap that matters is of its streams, not of GPUs.
  EXPECT_EQ(c.wall_line,
            "Whole trace (everything recorded): 20.0 ms -> 10.0 ms wall (2.00x); one GPU in each (GPU 0), its stream "
            "parallelism 1.00 -> 2.00.");
  const std::string md = format_comparison(c, Format::Markdown);
  EXPECT_NE(md.find("| stream parallelism, GPU 0 (whole trace) | 1.00 (2 streams) | 2.00 (2 streams) |  |"),
            std::string::npos)
      << md;
  EXPECT_NE(format_comparison(c, Format::Json).find("\"stream_parallelism\": 2.0000"), std::string::npos);
}

}  // namespace gtv::analysis

namespace gtv::analysis {

// On 1x H200 `processes` looks 1.06x faster than `threads`, but 5.84 ms of threads' 135.9 ms timed loop is the
// tracer's own work on its critical path (a worker's first CUPTI buffer request): without it the two are 1.01x.
TEST(Compare, TracingOverheadOnTheCriticalPathIsSaidWithTheSpeedupWithoutIt) {
  const Trace threads = testing::bundled_recording("h200x1", "threads.json.gz");
  const Trace processes = testing::bundled_recording("h200x1", "processes.json.gz");
  Comparison c = compare(threads, processes, "threads", "processes");
  const std::size_t before = c.warnings.size();
  note_tracing_overhead(c, analyze(threads), analyze(processes));
  ASSERT_EQ(c.warnings.size(), before + 1);
  EXPECT_EQ(c.warnings.back(),
            "Tracing overhead lies on the critical path: removing it would shorten the timed windows of threads by "
            "5.84 ms (4.3%) and of processes by 0 ns (0.0%); without it processes would be 1.01x faster (130.1 ms -> "
            "128.4 ms, the regions replayed without it).");
  EXPECT_EQ(fixed(c.speedup, 2), "1.06");  // the measured speedup itself is unchanged

  // Where neither path holds tracing overhead worth 1% of its region, nothing is added.
  const Trace sequential = testing::bundled_recording("h200x1", "sequential.json.gz");
  const Trace streams = testing::bundled_recording("h200x1", "streams.json.gz");
  Comparison quiet = compare(sequential, streams, "sequential", "streams");
  const std::size_t quiet_before = quiet.warnings.size();
  note_tracing_overhead(quiet, analyze(sequential), analyze(streams));
  EXPECT_EQ(quiet.warnings.size(), quiet_before);
}

}  // namespace gtv::analysis

namespace gtv::analysis {

// The window compares runs it has analysed already, from their Reports: the comparison must be the one computed
// from the traces alone, number for number and sentence for sentence, on real recordings of every basis.
TEST(Compare, FromReportsEqualsFromTraces) {
  const std::pair<const char*, const char*> pairs[] = {{"sequential", "streams"},
                                                       {"copy-pageable", "copy-pinned"},
                                                       {"threads", "processes"},
                                                       {"baseline", "sequential"}};
  for (const auto& [name_a, name_b] : pairs) {
    SCOPED_TRACE(std::string(name_a) + " vs " + name_b);
    const Trace a = testing::bundled_recording("h200x2", std::string(name_a) + ".json.gz");
    const Trace b = testing::bundled_recording("h200x2", std::string(name_b) + ".json.gz");
    const Report ra = analyze(a);
    const Report rb = analyze(b);
    const Comparison direct = compare(a, b, name_a, name_b);
    const Comparison reused = compare(a, ra, b, rb, name_a, name_b);
    EXPECT_EQ(format_comparison(reused, Format::Json), format_comparison(direct, Format::Json));
    EXPECT_EQ(format_comparison(reused, Format::Text), format_comparison(direct, Format::Text));
    const RunFigures fa = run_figures(a, ra, name_a);
    EXPECT_EQ(fa.gpu_busy_ns, direct.a.gpu_busy_ns);
    EXPECT_EQ(fa.overlap_ns, direct.a.overlap_ns);
    EXPECT_EQ(fa.kernel_count, direct.a.kernel_count);
    EXPECT_EQ(fa.host_blocked_ns, direct.a.host_blocked_ns);
    ASSERT_TRUE(ra.steady.has_value());
    EXPECT_EQ(ra.steady->start_ns, steady_part(a)->start_ns);
  }
}

}  // namespace gtv::analysis

namespace gtv::analysis {

// Two runs never go by one name: files of one name in two folders are told apart by the folders.
TEST(CompareLabels, FilesOfOneNameAreToldApartByTheirFolders) {
  using Labels = std::pair<std::string, std::string>;
  EXPECT_EQ(run_labels("/w/r1/x.json.gz", "x", "/w/r2/x.json.gz", "x"), Labels("r1/x", "r2/x"));
  EXPECT_EQ(run_labels("/w/a/run/x.json.gz", "x", "/w/b/run/x.json.gz", "x"), Labels("a/run/x", "b/run/x"));
  EXPECT_EQ(run_labels("/w/x.json.gz", "x", "/w/r2/x.json.gz", "x"), Labels("w/x", "r2/x"));
  EXPECT_EQ(run_labels("/w/x.json", "x", "/w/x.json.gz", "x"), Labels("x.json", "x.json.gz"));
  EXPECT_EQ(run_labels("/w/x.json.gz", "x", "/w/x.json.gz", "x"), Labels("x (A)", "x (B)"));
  EXPECT_EQ(run_labels("/w/r1/x.json.gz", "x", "/w/r2/y.json.gz", "y"), Labels("x", "y"));
}

// The labels are what every sentence of the comparison names the runs by: one faster than the other, never itself.
TEST(CompareLabels, TheSpeedupSentenceNamesBothRunsApart) {
  TraceBuilder ba;
  kernel(ba, 0, 7, "gemm", 0, 40 * kNsPerMs);
  TraceBuilder bb;
  kernel(bb, 0, 7, "gemm", 0, 20 * kNsPerMs);
  const auto [label_a, label_b] = run_labels("/w/r1/x.json.gz", "x", "/w/r2/x.json.gz", "x");
  const Comparison c = compare(build(ba), build(bb), label_a, label_b);
  const std::string text = format_comparison(c, Format::Text);
  EXPECT_NE(text.find("r2/x is 2.00x faster than r1/x"), std::string::npos) << text;
  EXPECT_EQ(text.find("x is 2.00x faster than x"), std::string::npos) << text;
  EXPECT_NE(format_comparison(c, Format::Json).find("\"label\": \"r1/x\""), std::string::npos);
}

}  // namespace gtv::analysis
