#pragma once
// Launch latency (host API call start to GPU activity start, for every launch joined by a flow) and queue depth
// (work launched on a stream but not yet finished): how far the host ran ahead of the GPU.
#include <cstdint>
#include <string>
#include <vector>

#include "gtv/model/trace.h"

namespace gtv::analysis {

struct LatencyStats {
  std::size_t count = 0;
  TimeNs min_ns = 0;
  TimeNs p50_ns = 0;  // nearest rank: the smallest value with at least 50% of values at or below it
  TimeNs p90_ns = 0;
  TimeNs max_ns = 0;
  TimeNs mean_ns = 0;
};

// Nearest-rank statistics of values; all zero when empty. Reorders values.
[[nodiscard]] LatencyStats latency_stats(std::vector<TimeNs>& values);

struct DeviceLatency {
  std::int64_t device = 0;
  LatencyStats stats;
};

struct QueueStep {
  TimeNs start_ns = 0;
  TimeNs end_ns = 0;
  int depth = 0;
  friend bool operator==(const QueueStep&, const QueueStep&) = default;
};

struct StreamQueue {
  std::int64_t device = 0;
  std::int64_t stream = 0;
  std::vector<QueueStep> steps;  // from the first launch to the last end; neighbours differ in depth
  int max_depth = 0;
  TimeNs max_depth_at_ns = 0;
};

struct LaunchAnalysis {
  LatencyStats all;
  std::vector<DeviceLatency> devices;       // by device
  std::vector<StreamQueue> streams;         // GPU lane order
  std::size_t activities_without_flow = 0;  // GPU activity whose launch is not in the trace
  std::vector<std::string> findings;
};

[[nodiscard]] LaunchAnalysis analyze_launches(const Trace& trace);

}  // namespace gtv::analysis
