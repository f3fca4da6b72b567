#include "gtv/analysis/summary.h"

#include <gtest/gtest.h>

#include "gtv/analysis/busy.h"
#include "trace_helpers.h"

namespace gtv::analysis {
using namespace testing;

namespace {

Trace two_gpu_trace() {
  TraceBuilder b;
  b.metadata().source_tool = "PyTorch Profiler (Kineto)";
  b.process(100).name = "python";
  b.set_lane_name(b.lane(host_lane_key(100, 5)), "main");
  host_call(b, 100, 5, "cudaLaunchKernel", 1000, 10, EventKind::Runtime, 1);
  host_call(b, 100, 5, "aten::mm", 990, 30, EventKind::CpuOp);
  host_call(b, 100, 6, "cuLaunchKernel", 1200, 10, EventKind::Driver, 2);
  b.add_other(b.lane(host_lane_key(100, 6)), make_event(b, "mystery", 1300, 5, EventKind::Other), "python_function");
  kernel(b, 0, 7, "gemm", 1050, 400, 1);
  kernel(b, 0, 8, "relu", 1300, 200);  // overlaps gemm for 150
  kernel(b, 1, 7, "gemm", 1250, 100, 2);
  memcpy_event(b, 1, 7, 1400, 100);
  DeviceInfo d0;
  d0.index = 0;
  d0.name = "NVIDIA H200";
  b.add_device(d0);
  DeviceInfo d2;  // a GPU with no activity still shows up
  d2.index = 2;
  d2.name = "NVIDIA H200";
  b.add_device(d2);
  return build(b);
}

}  // namespace

TEST(Summary, CountsProcessesGpusAndCategories) {
  const Trace t = two_gpu_trace();
  const TraceSummary s = summarize(t);
  EXPECT_EQ(s.source_tool, "PyTorch Profiler (Kineto)");
  EXPECT_EQ(s.start_ns, 990);
  EXPECT_EQ(s.end_ns, 1500);
  EXPECT_EQ(s.event_count, 8u);
  EXPECT_EQ(s.flow_count, 2u);
  ASSERT_EQ(s.processes.size(), 1u);
  EXPECT_EQ(s.processes[0].pid, 100);
  EXPECT_EQ(s.processes[0].name, "python");
  ASSERT_EQ(s.processes[0].threads.size(), 2u);
  EXPECT_EQ(s.processes[0].threads[0].tid, 5);
  EXPECT_EQ(s.processes[0].threads[0].name, "main");
  EXPECT_EQ(s.processes[0].threads[0].event_count, 2u);
  EXPECT_EQ(s.processes[0].threads[1].event_count, 2u);

  ASSERT_EQ(s.gpus.size(), 3u);
  EXPECT_EQ(s.gpus[0].index, 0);
  EXPECT_EQ(s.gpus[0].name, "NVIDIA H200");
  EXPECT_EQ(s.gpus[0].streams.size(), 2u);
  EXPECT_EQ(s.gpus[0].kernel_count, 2u);
  EXPECT_EQ(s.gpus[0].kernel_ns, 600);
  EXPECT_EQ(s.gpus[0].busy_ns, 450);  // [1050,1500)
  EXPECT_EQ(s.gpus[1].name, "");
  EXPECT_EQ(s.gpus[1].kernel_ns, 100);
  EXPECT_EQ(s.gpus[1].busy_ns, 200);  // [1250,1350) kernel + [1400,1500) copy
  EXPECT_EQ(s.gpus[2].index, 2);
  EXPECT_TRUE(s.gpus[2].streams.empty());
  EXPECT_EQ(s.gpus[2].busy_ns, 0);

  const std::vector<std::pair<std::string, std::size_t>> expected{
      {"cpu_op", 1}, {"cuda_driver", 1}, {"cuda_runtime", 1}, {"gpu_memcpy", 1}, {"kernel", 3}, {"python_function", 1}};
  ASSERT_EQ(s.categories.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(s.categories[i].category, expected[i].first);
    EXPECT_EQ(s.categories[i].count, expected[i].second);
  }
}

TEST(Summary, TextNamesEverything) {
  const Trace t = two_gpu_trace();
  const std::string text = format_summary_text(summarize(t));
  EXPECT_NE(text.find("Source: PyTorch Profiler (Kineto)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("Time span: 510 ns (990 ns to 1.50 us after the origin)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  process 100 (python): 2 thread(s)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("    thread 5 \"main\": 2 events\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  GPU 0 (NVIDIA H200): 2 stream(s), 2 kernel(s), kernel time 600 ns, busy 450 ns\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  python_function: 1\n"), std::string::npos) << text;
}

TEST(Summary, JsonIsWellFormedAndDeterministic) {
  const Trace t = two_gpu_trace();
  const std::string json = format_summary_json(summarize(t));
  EXPECT_EQ(json, format_summary_json(summarize(t)));
  EXPECT_EQ(json, format_summary_json(summarize(t, analyze_busy(t))));  // reusing busy times changes nothing
  EXPECT_EQ(json.front(), '{');
  EXPECT_NE(json.find("\"event_count\": 8"), std::string::npos) << json;
  EXPECT_NE(json.find("\"kernel\": 3"), std::string::npos) << json;
  EXPECT_NE(json.find("\"busy_ns\": 450"), std::string::npos) << json;
  // Balanced brackets.
  int depth = 0;
  for (char c : json) depth += (c == '{' || c == '[') - (c == '}' || c == ']');
  EXPECT_EQ(depth, 0);
}

TEST(Summary, EmptyTraceSaysSo) {
  TraceBuilder b;
  const Trace t = build(b);
  const TraceSummary s = summarize(t);
  EXPECT_TRUE(s.gpus.empty());
  EXPECT_EQ(s.duration_ns(), 0);
  const std::string text = format_summary_text(s);
  EXPECT_NE(text.find("none: this trace holds no GPU activity"), std::string::npos) << text;
  EXPECT_NE(text.find("Source: unknown"), std::string::npos);
  EXPECT_NE(format_summary(s, Format::Markdown).find("# Trace summary"), std::string::npos);
}
}  // namespace gtv::analysis
