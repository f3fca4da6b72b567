// On the GPU test machine: the memory counters of a `sequential` recording rise while its models are built and
// warmed up, and stay flat in the timed loop, whose forwards reuse the caching allocator's blocks.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <string>
#include <string_view>

#include "gpu_checks.h"
#include "gtv/config.h"
#include "gtv/experiments/runner.h"
#include "gtv/model/counter_names.h"

namespace gtv::exp {
namespace {

using gpu_test::find_range;

const CounterSeries* find_series(const Trace& trace, std::int64_t pid, std::string_view name) {
  for (const CounterSeries& s : trace.counters())
    if (s.pid == pid && s.name == name) return &s;
  return nullptr;
}

// The value in force at t_ns (the last sample at or before it), else fallback.
double value_at(const CounterSeries& series, TimeNs t_ns, double fallback) {
  double value = fallback;
  for (const CounterSample& s : series.samples)
    if (s.time_ns <= t_ns) value = s.value;
  return value;
}

// Rises from the recording's start to the end of warm-up; inside the timed loop, the values in force change by
// less than 1% of the series' peak.
void expect_rise_then_flat(const CounterSeries& series, double start_bytes, const Range& warmup, const Range& loop) {
  ASSERT_FALSE(series.samples.empty());
  double peak = start_bytes;
  for (const CounterSample& s : series.samples) peak = std::max(peak, s.value);
  const double after_warmup = value_at(series, warmup.end_ns, start_bytes);
  EXPECT_GT(after_warmup, start_bytes) << series.name << " on " << series.pid;
  double low = value_at(series, loop.start_ns, start_bytes);
  double high = low;
  for (const CounterSample& s : series.samples) {
    if (s.time_ns < loop.start_ns || s.time_ns > loop.end_ns) continue;
    low = std::min(low, s.value);
    high = std::max(high, s.value);
  }
  std::cerr << series.name << " on GPU " << series.pid << ": " << start_bytes << " at the start, " << after_warmup
            << " after warm-up, " << low << " .. " << high << " in the timed loop, peak " << peak << "\n";
  EXPECT_LT(high - low, 0.01 * peak) << series.name << " on " << series.pid;
}

TEST(MemoryCounters, RiseDuringBuildAndWarmUpAndStayFlatInTheTimedLoop) {
  if (cuda_device_count() < 1) GTEST_SKIP() << "needs a CUDA GPU";
  RunConfig config;
  config.scenario = "sequential";
  RunResult result = run_scenario(config, [](std::string_view line) { std::cerr << "  [" << line << "]\n"; });
  ASSERT_TRUE(result.status.ok()) << result.status.error().message;
  const Trace& trace = *result.trace;
  const Range warmup = find_range(trace, RangeKind::WarmUp, "warm-up");
  const Range loop = find_range(trace, RangeKind::Phase, "timed loop");
  for (std::int64_t device : {0, 1}) {
    if (gpu_test::kernels_on_device(trace, static_cast<int>(device)) == 0) continue;  // a GPU the run did not use
    // PyTorch's counts: the first sample is taken when the scenario starts, before any model exists.
    for (std::string_view name : {counters::kTorchReserved, counters::kTorchAllocated}) {
      const CounterSeries* series = find_series(trace, device, name);
      ASSERT_NE(series, nullptr) << "no series " << name << " for GPU " << device;
      expect_rise_then_flat(*series, series->samples.front().value, warmup, loop);
    }
#if GTV_WITH_CUPTI
    const CounterSeries* cupti = find_series(trace, device, counters::kDeviceMemorySinceStart);
    ASSERT_NE(cupti, nullptr) << "no CUPTI device memory series for GPU " << device;
    expect_rise_then_flat(*cupti, 0.0, warmup, loop);  // counts from 0 at the recording's start
#endif
  }
}

}  // namespace
}  // namespace gtv::exp
