// The oracle on a small trace whose numbers are worked out by hand, so a wrong oracle cannot agree with a wrong
// analysis unnoticed.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "gtv/io/trace_file.h"
#include "gtv/model/trace_builder.h"
#include "oracle.h"

namespace gtv::oracle {
namespace {

void add(TraceBuilder& b, LaneKey lane, std::string_view name, TimeNs start_ns, TimeNs duration_ns, EventKind kind,
         std::uint64_t correlation = kNoCorrelation) {
  Event e;
  e.name = b.intern(name);
  e.start_ns = start_ns;
  e.duration_ns = duration_ns;
  e.kind = kind;
  e.correlation_id = correlation;
  const LaneIndex index = b.lane(lane);
  if (kind == EventKind::Kernel)
    b.add_kernel(index, e, KernelDetail{});
  else if (kind == EventKind::Memcpy)
    b.add_memcpy(index, e, MemcpyDetail{});
  else
    b.add_event(index, e);
}

// GPU 0: kernel A [100, 300) on stream 7, a copy [250, 400) on stream 7, kernel B [200, 500) on stream 8.
// GPU 1: an NCCL kernel [450, 600) and kernel C [550, 650) on stream 7.
// The host launches A at 50 and B at 60, inside a stopwatch [40, 120) that reported 80 ns.
Trace two_gpus(bool with_launch_links) {
  TraceBuilder b;
  const std::uint64_t a = with_launch_links ? 1 : kNoCorrelation;
  const std::uint64_t k = with_launch_links ? 2 : kNoCorrelation;
  add(b, gpu_lane_key(0, 7), "A", 100, 200, EventKind::Kernel, a);
  add(b, gpu_lane_key(0, 7), "Memcpy HtoD", 250, 150, EventKind::Memcpy);
  add(b, gpu_lane_key(0, 8), "B", 200, 300, EventKind::Kernel, k);
  add(b, gpu_lane_key(1, 7), "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 450, 150, EventKind::Kernel);
  add(b, gpu_lane_key(1, 7), "C", 550, 100, EventKind::Kernel);
  add(b, host_lane_key(1, 1), "cudaLaunchKernel", 50, 5, EventKind::Runtime, a);
  add(b, host_lane_key(1, 1), "cudaLaunchKernel", 60, 5, EventKind::Runtime, k);
  b.add_measurement({"timed loop", MeasurementMethod::StopwatchNoSync, 80, 40, 120, 1, 1});
  Expected<Trace> t = b.build();
  if (!t) throw std::runtime_error(t.error().message);
  return std::move(t).value();
}

TEST(OracleSelf, MeasurementTruthFollowsTheLaunches) {
  const Trace trace = two_gpus(true);
  const Oracle o(trace);
  const Numbers& n = o.numbers();
  ASSERT_EQ(n.measurements.size(), 1u);
  const MeasurementNumbers& m = n.measurements[0];
  EXPECT_TRUE(m.by_flows);
  EXPECT_EQ(m.gpu_activity_count, 2u);  // A and B
  EXPECT_EQ(m.gpu_busy_ns, 400);        // [100, 500)
  EXPECT_EQ(m.truth_ns, 460);           // 40 to B's end at 500
  EXPECT_EQ(m.error_ns, 80 - 460);
  EXPECT_TRUE(n.region_from_measurements);
  EXPECT_EQ(n.region_start_ns, 40);
  EXPECT_EQ(n.region_end_ns, 500);
}

TEST(OracleSelf, WithoutLaunchLinksTheWorkOverlappingTheStopwatchCounts) {
  const Trace trace = two_gpus(false);
  const Oracle o(trace);
  const MeasurementNumbers& m = o.numbers().measurements.at(0);
  EXPECT_FALSE(m.by_flows);
  EXPECT_EQ(m.gpu_activity_count, 1u);  // only A starts before the stopwatch ends
  EXPECT_EQ(m.truth_ns, 260);
}

TEST(OracleSelf, BusyStreamsAndCopies) {
  const Trace trace = two_gpus(true);
  const Oracle o(trace);
  const Numbers& n = o.numbers();
  ASSERT_EQ(n.gpus.size(), 2u);
  const GpuNumbers& g0 = n.gpus[0];
  EXPECT_EQ(g0.busy_ns, 400);  // [100, 500)
  EXPECT_EQ(g0.kernel_ns, 500);
  EXPECT_EQ(g0.region_busy_ns, 400);
  EXPECT_EQ(n.gpus[1].busy_ns, 200);
  EXPECT_EQ(n.gpus[1].region_busy_ns, 50);  // [450, 500)
  ASSERT_EQ(n.streams.size(), 3u);
  EXPECT_EQ(n.streams[0].busy_ns, 300);
}

TEST(OracleSelf, StreamsOfOneGpuAndCopiesBesideKernels) {
  const Trace trace = two_gpus(true);
  const Oracle o(trace);
  const StreamOverlapNumbers s = o.stream_overlap_within(0, 0, 1000);
  EXPECT_EQ(s.stream_count, 2u);
  EXPECT_EQ(s.busy_ns, 400);             // [100, 500)
  EXPECT_EQ(s.multi_stream_ns, 200);     // [200, 400): streams 7 and 8 together
  EXPECT_EQ(s.stream_busy_sum_ns, 600);  // 300 + 300
  EXPECT_DOUBLE_EQ(s.stream_parallelism, 1.5);
  EXPECT_EQ(s.max_busy_streams, 2);
  EXPECT_EQ(s.kernel_busy_ns, 400);
  EXPECT_EQ(s.copy_busy_ns, 150);
  EXPECT_EQ(s.copy_compute_overlap_ns, 150);  // [250, 400)
  const StreamOverlapNumbers early = o.stream_overlap_within(0, 0, 250);
  EXPECT_EQ(early.multi_stream_ns, 50);  // [200, 250)
  EXPECT_EQ(early.copy_compute_overlap_ns, 0);
  EXPECT_EQ(o.stream_overlap_within(1, 0, 1000).stream_parallelism, 1.0);  // one stream
}

TEST(OracleSelf, HostThreadsLaunchingAtOnce) {
  const Trace trace = two_gpus(true);
  const HostLaunchNumbers h = Oracle(trace).host_launch_within(0, 1000);
  EXPECT_EQ(h.thread_count, 1u);
  EXPECT_EQ(h.launching_ns, 10);  // two 5 ns launches
  EXPECT_EQ(h.concurrent_ns, 0);
  EXPECT_EQ(h.max_threads, 1);
}

TEST(OracleSelf, ConcurrencyWholeAndRegion) {
  const Trace trace = two_gpus(true);
  const Oracle o(trace);
  const Numbers& n = o.numbers();
  EXPECT_EQ(n.whole.gpu_count, 2u);
  EXPECT_EQ(n.whole.any_busy_ns, 550);  // [100, 650)
  EXPECT_EQ(n.whole.overlap_ns, 50);    // [450, 500)
  EXPECT_EQ(n.whole.sum_busy_ns, 600);
  EXPECT_DOUBLE_EQ(n.whole.effective_parallelism, 600.0 / 550.0);
  EXPECT_EQ(n.region.any_busy_ns, 400);
  EXPECT_EQ(n.region.overlap_ns, 50);
  EXPECT_EQ(n.region.sum_busy_ns, 450);
}

TEST(OracleSelf, CommunicationAgainstComputation) {
  const Trace trace = two_gpus(true);
  const Oracle o(trace);
  const Numbers& n = o.numbers();
  ASSERT_EQ(n.communication.size(), 1u);
  const CommunicationNumbers& c = n.communication[0];
  EXPECT_EQ(c.device, 1);
  EXPECT_EQ(c.communication_ns, 150);
  EXPECT_EQ(c.computation_ns, 100);
  EXPECT_EQ(c.overlap_ns, 50);  // [550, 600)
  EXPECT_EQ(c.exposed_ns, 100);
  EXPECT_DOUBLE_EQ(c.overlap_ratio, 50.0 / 150.0);
}

TEST(OracleSelf, BusyWithinAWindow) {
  const Trace trace = two_gpus(true);
  const Oracle o(trace);
  EXPECT_EQ(o.busy_within(0, 0, 150), 50);
  EXPECT_EQ(o.busy_within(0, 500, 650), 0);
  EXPECT_EQ(o.busy_within(9, 0, 1000), 0);
}

// The sweep checked by brute force on the PyTorch fixtures: every stretch between two consecutive event boundaries
// is busy when some event covers it whole, found by looking at every event.
TEST(OracleSelf, SweepAgreesWithBruteForceOnFixtures) {
  std::size_t files = 0;
  std::size_t gpus = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(GTV_SOURCE_DIR) + "/tests/data/pytorch")) {
    if (entry.path().string().find(".json") == std::string::npos) continue;
    const Expected<Trace> trace = io::read_trace(entry.path().string());
    ASSERT_TRUE(trace.ok()) << trace.error().message;
    std::map<std::int64_t, std::vector<const Event*>> by_device;
    for (const Lane& lane : trace->lanes())
      if (lane.is_gpu())
        for (const Event& e : lane.events)
          if (e.kind == EventKind::Kernel || e.kind == EventKind::Memcpy || e.kind == EventKind::Memset)
            by_device[lane.device()].push_back(&e);
    const Oracle o(*trace);
    std::vector<TimeNs> all_bounds;
    for (const auto& [device, events] : by_device) {
      std::vector<TimeNs> bounds;
      for (const Event* e : events) {
        bounds.push_back(e->start_ns);
        bounds.push_back(e->end_ns());
      }
      std::sort(bounds.begin(), bounds.end());
      bounds.erase(std::unique(bounds.begin(), bounds.end()), bounds.end());
      all_bounds.insert(all_bounds.end(), bounds.begin(), bounds.end());
      TimeNs busy_ns = 0;
      for (std::size_t i = 0; i + 1 < bounds.size(); ++i)
        for (const Event* e : events)
          if (e->start_ns <= bounds[i] && e->end_ns() >= bounds[i + 1]) {
            busy_ns += bounds[i + 1] - bounds[i];
            break;
          }
      EXPECT_EQ(o.busy_within(device, trace->start_ns(), trace->end_ns()), busy_ns)
          << entry.path() << " GPU " << device;
      gpus += busy_ns > 0 ? 1 : 0;
    }
    // Two or more GPUs busy at once, the same way.
    std::sort(all_bounds.begin(), all_bounds.end());
    all_bounds.erase(std::unique(all_bounds.begin(), all_bounds.end()), all_bounds.end());
    TimeNs overlap_ns = 0;
    for (std::size_t i = 0; i + 1 < all_bounds.size(); ++i) {
      int busy_gpus = 0;
      for (const auto& [device, events] : by_device)
        busy_gpus += std::any_of(events.begin(), events.end(), [&](const Event* e) {
          return e->start_ns <= all_bounds[i] && e->end_ns() >= all_bounds[i + 1];
        });
      if (busy_gpus >= 2) overlap_ns += all_bounds[i + 1] - all_bounds[i];
    }
    EXPECT_EQ(o.numbers().whole.overlap_ns, overlap_ns) << entry.path();
    ++files;
  }
  EXPECT_GE(files, 5u);
  EXPECT_GE(gpus, 6u);  // GPUs with work, over all the fixtures
}

}  // namespace
}  // namespace gtv::oracle
