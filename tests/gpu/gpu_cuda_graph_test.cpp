// cuda-graph against sequential on a GPU machine: the same forwards, launched kernel by kernel or as one CUDA graph
// per forward. Default sizes (3 models, hidden 10000, batch 100, 10 iterations; with one GPU all on cuda:0).
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <set>
#include <string>

#include "gpu_checks.h"
#include "gtv/experiments/runner.h"

namespace gtv::exp {
namespace {

using gpu_test::find_measurement;
using gpu_test::find_range;

RunResult run_logged(const std::string& scenario) {
  RunConfig config;
  config.scenario = scenario;
  return run_scenario(config, [](std::string_view line) { std::cerr << "  [" << line << "]\n"; });
}

// What the timed loop of a run did, read from its recording.
struct Loop {
  int iterations = 0;
  TimeNs host_launch_per_iteration_ns = 0;  // the stopwatch without synchronize over the loop, per iteration
  TimeNs kernel_ns = 0;                     // kernel time on the GPUs (sum of kernel durations)
  int kernels = 0;
  int graph_kernels = 0;  // kernels a graph launch ran (graph id set)
};

Loop timed_loop(const Trace& trace) {
  Loop loop;
  loop.iterations = std::stoi(trace.metadata().config.at("iters"));
  const Measurement* no_sync = find_measurement(trace, "timed loop", MeasurementMethod::StopwatchNoSync);
  if (no_sync == nullptr) {
    ADD_FAILURE() << "no stopwatch measurement of the timed loop";
    return loop;
  }
  loop.host_launch_per_iteration_ns = no_sync->reported_ns / loop.iterations;
  const Range range = find_range(trace, RangeKind::Phase, "timed loop");
  for (const Lane& lane : trace.lanes()) {
    if (!lane.is_gpu()) continue;
    for (const Event& e : lane.events) {
      if (e.kind != EventKind::Kernel || e.start_ns < range.start_ns || e.start_ns >= range.end_ns) continue;
      ++loop.kernels;
      loop.kernel_ns += e.duration_ns;
      const KernelDetail* k = trace.kernel_detail(e);
      if (k != nullptr && k->launched_by_graph()) ++loop.graph_kernels;
    }
  }
  return loop;
}

std::ostream& operator<<(std::ostream& out, const Loop& loop) {
  return out << "host launch " << loop.host_launch_per_iteration_ns / 1e3 << " us/iteration, " << loop.kernels
             << " kernels (" << loop.graph_kernels << " in graphs) for " << loop.kernel_ns / 1e6 << " ms of GPU time";
}

TEST(CudaGraphScenario, HostLaunchTimeCollapsesWhileGpuWorkStays) {
  if (cuda_device_count() < 1) GTEST_SKIP() << "needs a CUDA GPU, found none";
  RunResult sequential = run_logged("sequential");
  ASSERT_TRUE(sequential.status.ok()) << sequential.status.error().message;
  RunResult graph = run_logged("cuda-graph");
  ASSERT_TRUE(graph.status.ok()) << graph.status.error().message;
  for (const Trace* t : {&*sequential.trace, &*graph.trace}) {
    EXPECT_EQ(t->metadata().dropped_records, 0);
    EXPECT_FALSE(t->devices().empty());
  }
  EXPECT_EQ(graph.trace->metadata().config.at("devices"), sequential.trace->metadata().config.at("devices"));

  const Loop seq = timed_loop(*sequential.trace);
  const Loop cg = timed_loop(*graph.trace);
  std::cerr << "sequential: " << seq << "\ncuda-graph: " << cg << "\n";
  ASSERT_GT(seq.kernels, 0) << "no kernels recorded: is CUPTI tracing on?";
  ASSERT_GT(cg.host_launch_per_iteration_ns, 0);
  // The host's launch time collapses...
  EXPECT_LE(4 * cg.host_launch_per_iteration_ns, seq.host_launch_per_iteration_ns);
  // ...while the GPU does the same work: the captured kernels are the ones sequential launches one by one.
  EXPECT_LT(std::abs(static_cast<double>(cg.kernel_ns - seq.kernel_ns)), 0.1 * static_cast<double>(seq.kernel_ns));
  EXPECT_EQ(seq.graph_kernels, 0);
  EXPECT_EQ(cg.graph_kernels, seq.kernels);  // the captured forwards are the same kernels
}

// Every kernel of a replayed graph names its graph and node, and shares the correlation id of the cudaGraphLaunch
// that ran it: one launch per forward, one graph per model.
TEST(CudaGraphScenario, GraphKernelsCarryTheirGraphAndTheirLaunch) {
  if (cuda_device_count() < 1) GTEST_SKIP() << "needs a CUDA GPU, found none";
  RunResult result = run_logged("cuda-graph");
  ASSERT_TRUE(result.status.ok()) << result.status.error().message;
  const Trace& trace = *result.trace;
  const Range loop = find_range(trace, RangeKind::Phase, "timed loop");
  const int models = std::stoi(trace.metadata().config.at("models"));
  const int iterations = std::stoi(trace.metadata().config.at("iters"));
  int launches = 0;
  std::set<std::uint32_t> graphs;
  std::set<std::size_t> kernels_per_launch;
  std::set<std::string> other_work;  // names of launched GPU work that is not a kernel
  for (std::uint32_t l = 0; l < trace.lanes().size(); ++l) {
    const Lane& lane = trace.lane(l);
    if (lane.is_gpu()) continue;
    for (std::uint32_t i = 0; i < lane.events.size(); ++i) {
      const Event& e = lane.events[i];
      if (trace.name(e) != "cudaGraphLaunch" || e.start_ns < loop.start_ns || e.end_ns() > loop.end_ns) continue;
      ++launches;
      std::size_t kernels = 0;
      std::set<std::uint64_t> nodes;
      for (const Flow& f : trace.flows_from({l, i})) {
        const Event& target = trace.event(f.to);
        EXPECT_EQ(target.correlation_id, e.correlation_id);
        const KernelDetail* k = trace.kernel_detail(target);
        if (k == nullptr) {  // a graph may hold copy and memset nodes too
          other_work.insert(std::string(trace.name(target)));
          continue;
        }
        ++kernels;
        EXPECT_TRUE(k->launched_by_graph());
        graphs.insert(k->graph_id);
        nodes.insert(k->graph_node_id);
      }
      kernels_per_launch.insert(kernels);
      EXPECT_EQ(nodes.size(), kernels) << "each kernel of one launch is its own node";
    }
  }
  EXPECT_EQ(launches, models * iterations);
  EXPECT_EQ(graphs.size(), static_cast<std::size_t>(models));
  ASSERT_EQ(kernels_per_launch.size(), 1u) << "every forward replays the same number of kernels";
  EXPECT_GE(*kernels_per_launch.begin(), 15u);  // 8 linear layers and 7 ReLUs: one kernel each at least
  std::cerr << "cuda-graph: " << launches << " graph launches of " << *kernels_per_launch.begin() << " kernels, "
            << graphs.size() << " graphs\n";
  for (const std::string& name : other_work) std::cerr << "  graph launches also ran: " << name << "\n";
}

}  // namespace
}  // namespace gtv::exp
