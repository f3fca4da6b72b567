// On the GPU test machine (2x H200): what the seed's scenarios really show, asserted on their recordings.
// Default sizes (hidden 10000, batch 100, 10 iterations, 3 models), as the seed ran them.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <string>

#include "gpu_checks.h"
#include "gtv/experiments/runner.h"

namespace gtv::exp {
namespace {

using gpu_test::find_measurement;
using gpu_test::find_range;

#define GTV_REQUIRE_GPUS(n)                                                                                        \
  do {                                                                                                             \
    if (cuda_device_count() < (n)) GTEST_SKIP() << "needs " << (n) << " CUDA GPUs, found " << cuda_device_count(); \
  } while (false)

RunResult run_default(const std::string& scenario) {
  RunConfig config;
  config.scenario = scenario;
  return run_scenario(config, [](std::string_view line) { std::cerr << "  [" << line << "]\n"; });
}

bool has_note(const Trace& trace, std::string_view text) {
  for (const auto& note : trace.metadata().notes)
    if (note.find(text) != std::string::npos) return true;
  return false;
}

// The checks every traced GPU run must pass.
void expect_clean_recording(const Trace& trace) {
  EXPECT_EQ(trace.metadata().dropped_records, 0);
  EXPECT_FALSE(has_note(trace, "CUPTI unavailable"));
  EXPECT_FALSE(trace.devices().empty());
}

class TwoGpuSeedScenario : public ::testing::TestWithParam<std::string> {};

TEST_P(TwoGpuSeedScenario, GpusOverlapAndTheStopwatchWithoutSyncMeasuresLaunches) {
  GTV_REQUIRE_GPUS(2);
  RunResult result = run_default(GetParam());
  ASSERT_TRUE(result.status.ok()) << result.status.error().message;
  const Trace& trace = *result.trace;
  expect_clean_recording(trace);
  EXPECT_EQ(trace.metadata().config.at("devices"), "0,1,0");
  EXPECT_GT(gpu_test::kernels_on_device(trace, 0), 0);
  EXPECT_GT(gpu_test::kernels_on_device(trace, 1), 0);
  EXPECT_EQ(find_range(trace, RangeKind::Forward, "model 1 forward").device, 1);

  const Range loop = find_range(trace, RangeKind::Phase, "timed loop");
  const double concurrency = gpu_test::gpu_concurrency(trace, loop.start_ns, loop.end_ns);
  std::cerr << GetParam() << ": GPU concurrency in the timed loop " << concurrency << "\n";
  EXPECT_GT(concurrency, 1.3);

  const Measurement* no_sync = find_measurement(trace, "timed loop", MeasurementMethod::StopwatchNoSync);
  const Measurement* sync = find_measurement(trace, "timed loop", MeasurementMethod::StopwatchSync);
  const Measurement* events = find_measurement(trace, "timed loop", MeasurementMethod::CudaEvents);
  ASSERT_TRUE(no_sync && sync && events);
  EXPECT_LT(2 * no_sync->reported_ns, sync->reported_ns);
  EXPECT_GT(events->reported_ns, 0);
}

INSTANTIATE_TEST_SUITE_P(Seed, TwoGpuSeedScenario, ::testing::Values("sequential", "streams"));

TEST(GpuFaults, OutOfMemoryGivesAClearErrorAndThePartialTrace) {
  GTV_REQUIRE_GPUS(1);
  RunConfig config;
  config.scenario = "sequential";
  config.hidden = 200000;  // a 200000 x 200000 layer is 160 GB of float32: more than an H200 holds
  RunResult result = run_scenario(config, {});
  ASSERT_FALSE(result.status.ok());
  EXPECT_NE(result.status.error().message.find("out of memory"), std::string::npos) << result.status.error().message;
  EXPECT_EQ(result.status.error().message.find('\n'), std::string::npos);
  ASSERT_TRUE(result.trace.has_value());
  EXPECT_EQ(find_range(*result.trace, RangeKind::Phase, "build models").kind, RangeKind::Phase);
  EXPECT_TRUE(has_note(*result.trace, "run failed: "));
}

}  // namespace
}  // namespace gtv::exp

namespace gtv::exp {
namespace {

double loop_concurrency(const Trace& trace) {
  const Range loop = find_range(trace, RangeKind::Phase, "timed loop");
  return gpu_test::gpu_concurrency(trace, loop.start_ns, loop.end_ns);
}

TEST(CopyScenarios, PageableCopiesSerializeTheGpus) {
  GTV_REQUIRE_GPUS(2);
  RunResult result = run_default("copy-pageable");
  ASSERT_TRUE(result.status.ok()) << result.status.error().message;
  expect_clean_recording(*result.trace);
  const double concurrency = loop_concurrency(*result.trace);
  std::cerr << "copy-pageable: GPU concurrency " << concurrency << "\n";
  EXPECT_LT(concurrency, 1.1);
}

TEST(CopyScenarios, PinnedNonBlockingCopiesKeepTheOverlap) {
  GTV_REQUIRE_GPUS(2);
  RunResult result = run_default("copy-pinned");
  ASSERT_TRUE(result.status.ok()) << result.status.error().message;
  expect_clean_recording(*result.trace);
  const double concurrency = loop_concurrency(*result.trace);
  std::cerr << "copy-pinned: GPU concurrency " << concurrency << "\n";
  EXPECT_GT(concurrency, 1.3);
}

TEST(WarmupScenario, FirstSmallProductCostsAtLeastFiveTimesTheSecond) {
  GTV_REQUIRE_GPUS(1);
  RunResult result = run_default("warmup");
  ASSERT_TRUE(result.status.ok()) << result.status.error().message;
  expect_clean_recording(*result.trace);
  const auto* first = find_measurement(*result.trace, "first matmul N=4 on cuda:0", MeasurementMethod::StopwatchSync);
  const auto* second = find_measurement(*result.trace, "second matmul N=4 on cuda:0", MeasurementMethod::StopwatchSync);
  ASSERT_TRUE(first && second);
  std::cerr << "warmup: first " << first->reported_ns << " ns, second " << second->reported_ns << " ns\n";
  EXPECT_GE(first->reported_ns, 5 * second->reported_ns);
}

TEST(TimingMethodsScenario, StopwatchWithoutSyncMissesTheWorkWhileEventsMatchTheTruth) {
  GTV_REQUIRE_GPUS(1);
  RunResult result = run_default("timing-methods");
  ASSERT_TRUE(result.status.ok()) << result.status.error().message;
  const Trace& trace = *result.trace;
  expect_clean_recording(trace);
  const Range work = find_range(trace, RangeKind::Phase, "timed work");
  const TimeNs truth_ns = gpu_test::gpu_span_ns(trace, work.start_ns, work.end_ns);
  const auto* no_sync = find_measurement(trace, "timed work", MeasurementMethod::StopwatchNoSync);
  const auto* events = find_measurement(trace, "timed work", MeasurementMethod::CudaEvents);
  ASSERT_TRUE(no_sync && events);
  std::cerr << "timing-methods: truth " << truth_ns << " ns, no sync " << no_sync->reported_ns << " ns, events "
            << events->reported_ns << " ns\n";
  ASSERT_GT(truth_ns, 0);
  EXPECT_LT(2 * no_sync->reported_ns, truth_ns);
  EXPECT_LT(std::abs(static_cast<double>(events->reported_ns - truth_ns)), 0.1 * static_cast<double>(truth_ns));
}

}  // namespace
}  // namespace gtv::exp

namespace gtv::exp {
namespace {

// Runs the scenario before anything else touches CUDA in this process (ctest runs each test in its own process):
// CUDA reads CUDA_LAUNCH_BLOCKING when it starts.
TEST(LaunchBlockingScenario, BlockingLaunchesSerializeTheGpus) {
  RunResult result = run_default("launch-blocking");
  ASSERT_TRUE(result.status.ok()) << result.status.error().message;
  if (result.trace->metadata().config.at("devices") != "0,1,0") GTEST_SKIP() << "needs 2 CUDA GPUs";
  expect_clean_recording(*result.trace);
  const Range loop = find_range(*result.trace, RangeKind::Phase, "timed loop");
  const double concurrency = gpu_test::gpu_concurrency(*result.trace, loop.start_ns, loop.end_ns);
  std::cerr << "launch-blocking: GPU concurrency " << concurrency << "\n";
  EXPECT_LT(concurrency, 1.1);
}

}  // namespace
}  // namespace gtv::exp

#include "gtv/config.h"
#if GTV_WITH_CUPTI
#include "gtv/collect/cupti_source.h"

namespace gtv::exp {
namespace {

// Another CUPTI client (here a second CuptiSource; in real life torch.profiler or nsys) holds CUPTI: the run goes
// on untraced and the trace says so.
TEST(GpuFaults, CuptiHeldElsewhereMeansAnUntracedRunWithANote) {
  GTV_REQUIRE_GPUS(1);
  collect::ActivitySink elsewhere;
  collect::CuptiSource holder;
  ASSERT_TRUE(holder.start({}, elsewhere).ok());
  RunConfig config;
  config.scenario = "sequential";
  config.models = 1;
  config.iters = 2;
  RunResult result = run_scenario(config, {});
  (void)holder.stop();
  ASSERT_TRUE(result.status.ok()) << result.status.error().message;
  EXPECT_TRUE(has_note(*result.trace, "CUPTI unavailable: "));
  EXPECT_EQ(gpu_test::kernels_on_device(*result.trace, 0), 0);
  int forwards = 0;
  for (const Range& r : result.trace->ranges()) forwards += r.kind == RangeKind::Forward ? 1 : 0;
  EXPECT_EQ(forwards, 3);  // warm-up and two iterations: the run itself went on
}

}  // namespace
}  // namespace gtv::exp
#endif

namespace gtv::exp {
namespace {

// Runs before anything else touches CUDA in this process: the workers are forked, and a CUDA the parent started
// would be unusable in them.
TEST(ProcessesScenario, OneProcessPerGpuOverlaps) {
  RunResult result = run_default("processes");
  ASSERT_TRUE(result.status.ok()) << result.status.error().message;
  const Trace& trace = *result.trace;
  if (trace.metadata().config.at("devices") != "0,1,0") GTEST_SKIP() << "needs 2 CUDA GPUs";
  expect_clean_recording(trace);
  EXPECT_EQ(trace.metadata().config.at("workers"), "2");
  EXPECT_GT(gpu_test::kernels_on_device(trace, 0), 0);
  EXPECT_GT(gpu_test::kernels_on_device(trace, 1), 0);
  EXPECT_FALSE(trace.flows().empty());
  const Range all = find_range(trace, RangeKind::Scenario, "processes");
  const double concurrency = gpu_test::gpu_concurrency(trace, all.start_ns, all.end_ns);
  std::cerr << "processes: GPU concurrency over the whole run " << concurrency << "\n";
  EXPECT_GT(concurrency, 1.3);
}

}  // namespace
}  // namespace gtv::exp
