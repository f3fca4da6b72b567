// Every scenario with a CPU mode runs for real at a small size, and its trace has the structure the scenario
// promises. Expected counts come from the scenario definitions: 3 models, 3 iterations, LargeFcNet's 8 linear
// layers (input, 6 hidden, output).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "gtv/experiments/runner.h"
#include "trace_checks.h"

namespace gtv::exp {
namespace {

using test::count_events;
using test::count_measurements;
using test::count_ranges;
using test::count_ranges_named;

constexpr int kModels = 3;
constexpr int kIters = 3;
constexpr int kLinearPerForward = 8;
constexpr int kReluPerForward = 7;

RunConfig small_cpu_config(const std::string& scenario) {
  RunConfig config;
  config.scenario = scenario;
  config.models = kModels;
  config.hidden = 64;
  config.batch = 8;
  config.iters = kIters;
  config.force_cpu = true;
  return config;
}

struct Want {
  std::string scenario;
  int timed_phases;  // phases measured by the stopwatches
  int iterations;
  int forwards;  // including the warm-up pass
  int models_used = kModels;
};

void PrintTo(const Want& want, std::ostream* out) { *out << want.scenario; }

class SeedScenarioOnCpu : public ::testing::TestWithParam<Want> {};

TEST_P(SeedScenarioOnCpu, TraceHasRangesMeasurementsMetadataAndOps) {
  const Want& want = GetParam();
  std::vector<std::string> progress;
  RunResult result =
      run_scenario(small_cpu_config(want.scenario), [&](std::string_view line) { progress.emplace_back(line); });
  ASSERT_TRUE(result.status.ok()) << result.status.error().message;
  ASSERT_TRUE(result.trace.has_value());
  const Trace& trace = *result.trace;

  EXPECT_EQ(trace.metadata().scenario, want.scenario);
  EXPECT_EQ(trace.metadata().config.at("models"), "3");
  EXPECT_EQ(trace.metadata().config.at("hidden"), "64");
  EXPECT_EQ(trace.metadata().config.at("batch"), "8");
  EXPECT_EQ(trace.metadata().config.at("iters"), "3");
  EXPECT_EQ(trace.metadata().config.at("devices"), "cpu");
  EXPECT_FALSE(trace.metadata().machine.at("libtorch").empty());
  EXPECT_FALSE(trace.metadata().machine.at("host").empty());
  EXPECT_TRUE(test::has_note_containing(trace, "running on the CPU with hidden=64"));
  EXPECT_TRUE(test::has_note_containing(trace, "CUDA events"));
  ASSERT_FALSE(progress.empty());
  EXPECT_EQ(progress.front(), "CPU requested: running on the CPU with hidden=64");
  // Each timed loop says how far it got; its last report names the phase and every iteration done (the threads
  // scenarios loop in their worker threads, not through iterate).
  const std::string done = ": " + std::to_string(kIters) + " of " + std::to_string(kIters) + " iterations";
  if (!want.scenario.starts_with("threads")) {
    EXPECT_EQ(
        std::count_if(progress.begin(), progress.end(), [&](const std::string& line) { return line.ends_with(done); }),
        want.timed_phases)
        << want.scenario;
  }

  EXPECT_EQ(count_ranges_named(trace, RangeKind::Scenario, want.scenario), 1);
  EXPECT_EQ(count_ranges(trace, RangeKind::Scenario), 1);
  EXPECT_EQ(count_ranges(trace, RangeKind::WarmUp), 1);
  EXPECT_EQ(count_ranges(trace, RangeKind::Iteration), want.iterations);
  EXPECT_EQ(count_ranges(trace, RangeKind::Forward), want.forwards);
  for (int m = 0; m < kModels; ++m)
    EXPECT_EQ(count_ranges_named(trace, RangeKind::Forward, "model " + std::to_string(m) + " forward"),
              m < want.models_used ? want.forwards / want.models_used : 0);
  for (const Range& r : trace.ranges()) {
    if (r.kind == RangeKind::Scenario) continue;
    EXPECT_TRUE(test::inside_some(trace, r, RangeKind::Scenario)) << r.name;
    if (r.kind == RangeKind::Forward) {
      EXPECT_EQ(r.device, -1);
      EXPECT_TRUE(test::inside_some(trace, r, RangeKind::Iteration) || test::inside_some(trace, r, RangeKind::WarmUp));
    }
  }

  EXPECT_EQ(count_measurements(trace, MeasurementMethod::StopwatchNoSync), want.timed_phases);
  EXPECT_EQ(count_measurements(trace, MeasurementMethod::StopwatchSync), want.timed_phases);
  EXPECT_EQ(count_measurements(trace, MeasurementMethod::CudaEvents), 0);
  for (const Measurement& m : trace.measurements()) {
    EXPECT_EQ(m.reported_ns, m.host_end_ns - m.host_start_ns) << m.name;
    EXPECT_GT(m.reported_ns, 0) << m.name;
  }

  EXPECT_EQ(count_events(trace, EventKind::CpuOp, "aten::linear"), want.forwards * kLinearPerForward);
  EXPECT_EQ(count_events(trace, EventKind::CpuOp, "aten::relu"), want.forwards * kReluPerForward);
}

INSTANTIATE_TEST_SUITE_P(Seed, SeedScenarioOnCpu,
                         ::testing::Values(Want{"baseline", kModels, kModels* kIters, kModels + kModels* kIters},
                                           Want{"sequential", 1, kIters, kModels + kModels* kIters},
                                           Want{"sequential-to", 1, kIters, kModels + kModels* kIters},
                                           Want{"list", 1, kIters, kModels + kModels* kIters},
                                           Want{"streams", 1, kIters, kModels + kModels* kIters},
                                           // Each worker thread records its own iterations.
                                           Want{"threads", 1, kModels* kIters, kModels + kModels* kIters},
                                           Want{"threads-streams", 1, kModels* kIters, kModels + kModels* kIters},
                                           Want{"copy-pageable", 1, kIters, kModels + kModels* kIters},
                                           Want{"copy-pinned", 1, kIters, kModels + kModels* kIters},
                                           Want{"copy-pageable-nonblocking", 1, kIters, kModels + kModels* kIters},
                                           Want{"copy-batched", 1, kIters, kModels + kModels* kIters},
                                           Want{"timing-methods", 1, kIters, 1 + kIters, 1},
                                           Want{"launch-blocking", 1, kIters, kModels + kModels* kIters}),
                         [](const auto& param_info) {
                           std::string name = param_info.param.scenario;
                           for (char& c : name)
                             if (c == '-') c = '_';
                           return name;
                         });

TEST(ThreadsOnCpu, EachModelRunsOnItsOwnHostThread) {
  RunResult result = run_scenario(small_cpu_config("threads"), {});
  ASSERT_TRUE(result.status.ok()) << result.status.error().message;
  std::set<std::int64_t> forward_threads;
  std::int64_t main_tid = -1;
  for (const Range& r : result.trace->ranges()) {
    if (r.kind == RangeKind::Forward) forward_threads.insert(r.tid);
    if (r.kind == RangeKind::Scenario) main_tid = r.tid;
  }
  EXPECT_EQ(forward_threads.size(), static_cast<std::size_t>(2 * kModels));  // warm-up and timed loop threads
  EXPECT_EQ(forward_threads.count(main_tid), 0u);
}

TEST(CopyBatchedOnCpu, CopiesOnceAfterTheLoop) {
  RunResult result = run_scenario(small_cpu_config("copy-batched"), {});
  ASSERT_TRUE(result.status.ok()) << result.status.error().message;
  EXPECT_EQ(count_ranges_named(*result.trace, RangeKind::Phase, "copy outputs to host"), 2);  // warm-up, loop
  EXPECT_EQ(count_events(*result.trace, EventKind::CpuOp, "aten::cat"), 2 * kModels);
}

TEST(WarmupOnCpu, FirstAndSecondProductsAndForwardsAreRangedAndMeasured) {
  RunResult result = run_scenario(small_cpu_config("warmup"), {});
  ASSERT_TRUE(result.status.ok()) << result.status.error().message;
  const Trace& trace = *result.trace;
  for (const char* name : {"first matmul N=4 on cpu", "first matmul N=64 on cpu", "first forward of model 0"})
    EXPECT_EQ(count_ranges_named(trace, RangeKind::WarmUp, name), 1) << name;
  for (const char* name : {"second matmul N=4 on cpu", "second matmul N=64 on cpu", "second forward of model 0"})
    EXPECT_EQ(count_ranges_named(trace, RangeKind::Phase, name), 1) << name;
  EXPECT_EQ(count_ranges_named(trace, RangeKind::WarmUp, "first use of cpu (operands)"), 1);
  EXPECT_EQ(count_measurements(trace, MeasurementMethod::StopwatchSync), 6);
  EXPECT_EQ(count_events(trace, EventKind::CpuOp, "aten::mm"), 4);
  EXPECT_EQ(count_ranges(trace, RangeKind::Forward), 2);
}

TEST(CpuVsGpuOnCpu, TimesTheCpuProductsAtBothSizes) {
  RunResult result = run_scenario(small_cpu_config("cpu-vs-gpu"), {});
  ASSERT_TRUE(result.status.ok()) << result.status.error().message;
  const Trace& trace = *result.trace;
  EXPECT_EQ(count_ranges_named(trace, RangeKind::Phase, "3 x matmul N=4 on cpu"), 1);
  EXPECT_EQ(count_ranges_named(trace, RangeKind::Phase, "3 x matmul N=64 on cpu"), 1);
  EXPECT_EQ(count_ranges(trace, RangeKind::WarmUp), 2);
  EXPECT_EQ(count_ranges(trace, RangeKind::Iteration), 2 * kIters);
  EXPECT_EQ(count_events(trace, EventKind::CpuOp, "aten::mm"), 2 * (1 + kIters));
  EXPECT_TRUE(test::has_note_containing(trace, "only the CPU side ran"));
}

TEST(ProcessesOnCpu, OneWorkerProcessPerModelMergedIntoOneTrace) {
  RunResult result = run_scenario(small_cpu_config("processes"), {});
  ASSERT_TRUE(result.status.ok()) << result.status.error().message;
  const Trace& trace = *result.trace;
  EXPECT_EQ(trace.metadata().scenario, "processes");
  EXPECT_EQ(trace.metadata().config.at("workers"), "3");
  EXPECT_EQ(trace.metadata().config.at("devices"), "cpu,cpu,cpu");
  ASSERT_EQ(count_ranges_named(trace, RangeKind::Scenario, "processes"), 1);
  EXPECT_EQ(count_ranges_named(trace, RangeKind::Scenario, "sequential"), kModels);
  EXPECT_EQ(count_ranges(trace, RangeKind::Forward), kModels * (1 + kIters));
  EXPECT_EQ(count_measurements(trace, MeasurementMethod::StopwatchSync), kModels);
  EXPECT_EQ(count_events(trace, EventKind::CpuOp, "aten::linear"), kModels * (1 + kIters) * kLinearPerForward);
  std::set<std::int64_t> worker_pids;
  Range all;
  for (const Range& r : trace.ranges())
    if (r.name == "processes") all = r;
  for (const Range& r : trace.ranges()) {
    if (r.kind == RangeKind::Forward) worker_pids.insert(r.pid);
    EXPECT_LE(all.start_ns, r.start_ns) << r.name;
    EXPECT_LE(r.end_ns, all.end_ns) << r.name;
  }
  EXPECT_EQ(worker_pids.size(), static_cast<std::size_t>(kModels));
  EXPECT_EQ(worker_pids.count(all.pid), 0u);
  EXPECT_EQ(trace.processes().size(), static_cast<std::size_t>(kModels));
}

// CUDA graphs capture GPU work: on the CPU the scenario stops with one line before building anything, and never
// pretends to have replayed a graph.
TEST(CudaGraphOnCpu, FailsWithAOneLineErrorAndReplaysNothing) {
  RunResult result = run_scenario(small_cpu_config("cuda-graph"), {});
  ASSERT_FALSE(result.status.ok());
  const std::string& message = result.status.error().message;
  EXPECT_EQ(message.rfind("cuda-graph: ", 0), 0u) << message;
  EXPECT_NE(message.find("no CUDA GPU"), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos);
  ASSERT_TRUE(result.trace.has_value());
  EXPECT_EQ(count_ranges_named(*result.trace, RangeKind::Scenario, "cuda-graph"), 1);
  EXPECT_EQ(count_ranges(*result.trace, RangeKind::Forward), 0);
  EXPECT_EQ(count_measurements(*result.trace, MeasurementMethod::StopwatchNoSync), 0);
  EXPECT_TRUE(test::has_note_containing(*result.trace, "run failed: CUDA graphs capture GPU work"));
}

TEST(RunOptions, NoWarmupAndNoOpTracing) {
  RunConfig config = small_cpu_config("sequential");
  config.warmup = false;
  config.trace_ops = false;
  RunResult result = run_scenario(config, {});
  ASSERT_TRUE(result.status.ok()) << result.status.error().message;
  const Trace& trace = *result.trace;
  EXPECT_EQ(count_ranges(trace, RangeKind::WarmUp), 0);
  EXPECT_EQ(count_ranges(trace, RangeKind::Forward), kModels * kIters);
  EXPECT_EQ(count_events(trace, EventKind::CpuOp), 0);
}

TEST(RunOptions, DefaultHiddenOnTheCpuIs512) {
  RunConfig config = small_cpu_config("baseline");
  config.hidden = 0;
  config.models = 1;
  config.iters = 1;
  RunResult result = run_scenario(config, {});
  ASSERT_TRUE(result.status.ok()) << result.status.error().message;
  EXPECT_EQ(result.trace->metadata().config.at("hidden"), std::to_string(kDefaultHiddenCpu));
}

// A model too large for any allocator (4e18 bytes for the first layer) fails while building: the run reports a
// clear error and still returns the trace of what ran.
TEST(RunFaults, AllocationFailureGivesAnErrorAndThePartialTrace) {
  RunConfig config = small_cpu_config("sequential");
  config.input = 1'000'000'000;
  config.hidden = 1'000'000'000;
  RunResult result = run_scenario(config, {});
  ASSERT_FALSE(result.status.ok());
  EXPECT_EQ(result.status.error().message.rfind("sequential: ", 0), 0u) << result.status.error().message;
  EXPECT_EQ(result.status.error().message.find('\n'), std::string::npos);
  ASSERT_TRUE(result.trace.has_value());
  EXPECT_EQ(count_ranges(*result.trace, RangeKind::Scenario), 1);
  EXPECT_EQ(count_ranges_named(*result.trace, RangeKind::Phase, "build models"), 1);
  EXPECT_EQ(count_ranges(*result.trace, RangeKind::Iteration), 0);
  EXPECT_TRUE(test::has_note_containing(*result.trace, "run failed: "));
}

}  // namespace
}  // namespace gtv::exp
