// Profiler steps and record_function ranges as regions: each step's numbers on its own window, the GPU work any
// thread of the process launched inside it (the autograd engine's backward included), and the ranges' host time and
// launched work. A PyTorch profiler trace written by hand; every expected number is worked out in the comments.
#include "gtv/analysis/steps.h"

#include <gtest/gtest.h>

#include <string>

#include "gtv/analysis/report.h"
#include "gtv/io/trace_file.h"

namespace gtv::analysis {
namespace {

// Process 10: main thread 10 steps twice (ProfilerStep#1 1000-2000 us, ProfilerStep#2 2000-3000 us); the autograd
// thread 11 launches the backward kernel inside step 1. Kernels on GPU 0 stream 7:
//   corr 1, launched by thread 10 at 1100: 1200-1300 us (step 1)
//   corr 2, launched by thread 11 at 1500: 1550-1650 us (step 1, from the autograd thread)
//   corr 3, launched by thread 10 at 1750 inside Optimizer.step (1700-1900): 1800-1850 us (step 1)
//   corr 4, launched by thread 10 at 2950: 3000-3100 us (step 2, running 100 us after it ends)
// A second Optimizer.step range at 2700-2800 launches nothing.
constexpr const char* kTwoSteps = R"({"schemaVersion": 1,
 "deviceProperties": [{"id": 0, "name": "NVIDIA H200", "totalGlobalMem": 150754820096}],
 "traceEvents": [
  {"ph": "M", "name": "process_name", "pid": 10, "tid": 0, "args": {"name": "python3"}},
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 10, "tid": 10, "ts": 1000, "dur": 1000},
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "pid": 10, "tid": 10, "ts": 2000, "dur": 1000},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 10, "tid": 10, "ts": 1100, "dur": 10, "args": {"correlation": 1}},
  {"ph": "X", "cat": "kernel", "name": "fwd", "pid": 0, "tid": 7, "ts": 1200, "dur": 100, "args": {"device": 0, "stream": 7, "correlation": 1}},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 10, "tid": 11, "ts": 1500, "dur": 10, "args": {"correlation": 2}},
  {"ph": "X", "cat": "kernel", "name": "bwd", "pid": 0, "tid": 7, "ts": 1550, "dur": 100, "args": {"device": 0, "stream": 7, "correlation": 2}},
  {"ph": "X", "cat": "user_annotation", "name": "Optimizer.step#SGD.step", "pid": 10, "tid": 10, "ts": 1700, "dur": 200},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 10, "tid": 10, "ts": 1750, "dur": 10, "args": {"correlation": 3}},
  {"ph": "X", "cat": "kernel", "name": "sgd", "pid": 0, "tid": 7, "ts": 1800, "dur": 50, "args": {"device": 0, "stream": 7, "correlation": 3}},
  {"ph": "X", "cat": "user_annotation", "name": "Optimizer.step#SGD.step", "pid": 10, "tid": 10, "ts": 2700, "dur": 100},
  {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 10, "tid": 10, "ts": 2950, "dur": 10, "args": {"correlation": 4}},
  {"ph": "X", "cat": "kernel", "name": "fwd", "pid": 0, "tid": 7, "ts": 3000, "dur": 100, "args": {"device": 0, "stream": 7, "correlation": 4}}
 ]})";

constexpr TimeNs kUs = 1000;

Trace two_steps() {
  Expected<Trace> t = io::read_trace_from_memory(kTwoSteps, "two_steps.json");
  EXPECT_TRUE(t.ok()) << t.error().message;
  return std::move(*t);
}

TEST(ProfilerSteps, EachStepOnItsOwnWindowWithEveryThreadsLaunches) {
  const Trace trace = two_steps();
  const ProfilerSteps s = analyze_profiler_steps(trace);
  ASSERT_EQ(s.processes.size(), 1u);
  EXPECT_EQ(s.processes[0].pid, 10);
  EXPECT_EQ(s.processes[0].tid, 10);
  ASSERT_EQ(s.processes[0].steps.size(), 2u);
  const StepWindow& first = s.processes[0].steps[0];
  EXPECT_EQ(first.name, "ProfilerStep#1");
  EXPECT_EQ(first.start_ns, 1000 * kUs);
  EXPECT_EQ(first.length_ns(), 1000 * kUs);
  // 100 (thread 10) + 100 (autograd thread 11) + 50 (inside Optimizer.step): no overlap on the one GPU.
  EXPECT_EQ(first.gpu_ns, 250 * kUs);
  EXPECT_EQ(first.launches, 3u);
  EXPECT_EQ(first.gpu_end_ns, 1850 * kUs);
  const StepWindow& second = s.processes[0].steps[1];
  EXPECT_EQ(second.gpu_ns, 100 * kUs);
  EXPECT_EQ(second.launches, 1u);
  EXPECT_EQ(second.gpu_end_ns, 3100 * kUs);  // launched in the step, run after it: still its work
  // Median of 1 ms and 1 ms long; median of 250 us and 100 us of GPU time is their mean, 175 us.
  ASSERT_FALSE(s.lines.empty());
  EXPECT_EQ(s.lines[0],
            "2 profiler steps on thread 10 (ProfilerStep#1 to ProfilerStep#2), each computed on its own window, its "
            "ProfilerStep range from one profiler.step() call to the next: median 1.00 ms long; the GPU work "
            "launched inside a step (by any thread of its process, PyTorch's autograd engine included) took a median "
            "of 175.0 us of GPU time (busy time per GPU, summed over GPUs).");
}

TEST(ProfilerSteps, RecordFunctionRangesHoldTheirThreadsLaunches) {
  const ProfilerSteps s = analyze_profiler_steps(two_steps());
  EXPECT_EQ(s.range_count, 2u);
  ASSERT_EQ(s.ranges.size(), 1u);
  const AnnotatedRanges& r = s.ranges[0];
  EXPECT_EQ(r.name, "Optimizer.step#SGD.step");
  EXPECT_EQ(r.count, 2u);
  EXPECT_EQ(r.host_ns, 300 * kUs);  // 200 us + 100 us
  EXPECT_EQ(r.gpu_ns, 50 * kUs);    // only the kernel launched at 1750 us
  EXPECT_EQ(r.launches, 1u);
}

TEST(ProfilerSteps, TheReportCountsThemAndNamesEachWindow) {
  const std::string text = format_report(analyze(two_steps()), Format::Markdown);
  EXPECT_NE(text.find("4 ranges (2 profiler steps, 2 record_function ranges)"), std::string::npos) << text;
  EXPECT_NE(text.find("## Profiler steps and record_function ranges"), std::string::npos);
  EXPECT_NE(text.find("| 10 | ProfilerStep#2 | 1.00 ms | 1.00 ms | 100.0 us | 1 | 100.0 us after the step |"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("| 10 | Optimizer.step#SGD.step | 2 | 300.0 us | 50.0 us | 1 |"), std::string::npos) << text;
}

// The first step's GPU work against the later ones counts the autograd thread's launches too: 250 us against 100 us.
TEST(ProfilerSteps, TheFirstStepsWarmUpComparisonCountsEveryThreadsWork) {
  const Report r = analyze(two_steps());
  ASSERT_EQ(r.warmup.iterations.size(), 1u);
  EXPECT_EQ(r.warmup.iterations[0].first_gpu_ns, 250 * kUs);
  EXPECT_EQ(r.warmup.iterations[0].steady_gpu_median_ns, 100 * kUs);
}

TEST(ProfilerSteps, ATraceWithoutAnnotationsHasNone) {
  constexpr const char* kPlain = R"({"traceEvents": [
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 0, "dur": 5, "args": {"correlation": 1}},
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 10, "dur": 5, "args": {"device": 0, "stream": 7, "correlation": 1}}]})";
  Expected<Trace> t = io::read_trace_from_memory(kPlain, "plain.json");
  ASSERT_TRUE(t.ok()) << t.error().message;
  const ProfilerSteps s = analyze_profiler_steps(*t);
  EXPECT_TRUE(s.processes.empty());
  EXPECT_TRUE(s.ranges.empty());
  const std::string text = format_report(analyze(*t), Format::Markdown);
  EXPECT_EQ(text.find("Profiler steps"), std::string::npos);
  EXPECT_NE(text.find("0 ranges, 0 measurements"), std::string::npos);
}

}  // namespace
}  // namespace gtv::analysis
