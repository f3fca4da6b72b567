// HostRecorder: ranges (RAII scopes), measurements, host events and metadata, from one thread or many.
#include "gtv/collect/host_recorder.h"

#include <gtest/gtest.h>
#include <pthread.h>

#include <algorithm>
#include <fstream>
#include <future>
#include <latch>
#include <thread>
#include <vector>

#include "gtv/collect/thread_id.h"

namespace gtv::collect {
namespace {

constexpr UnixNs kOrigin = 1'700'000'000'000'000'000;

Trace finish_ok(TraceRecorder& recorder) {
  Expected<Trace> trace = recorder.finish();
  EXPECT_TRUE(trace.ok()) << (trace.ok() ? "" : trace.error().message);
  return std::move(trace).value();
}

TEST(HostRecorder, NestedScopesRecordNestedRangesOnTheCallingThread) {
  TraceRecorder trace_recorder;  // origin = now, so the scopes' real clock times are near 0
  HostRecorder host(trace_recorder, /*emit_nvtx=*/false);
  const TimeNs before = unix_now_ns() - trace_recorder.origin_unix_ns();
  {
    auto outer = host.scope("timed loop", RangeKind::Phase);
    auto inner = host.scope("iteration 3", RangeKind::Iteration, 1);
  }
  const TimeNs after = unix_now_ns() - trace_recorder.origin_unix_ns();
  Trace trace = finish_ok(trace_recorder);
  ASSERT_EQ(trace.ranges().size(), 2u);
  const Range* outer = &trace.ranges()[0];
  const Range* inner = &trace.ranges()[1];
  if (outer->name != "timed loop") std::swap(outer, inner);  // same start possible: order by name instead
  EXPECT_EQ(outer->name, "timed loop");
  EXPECT_EQ(outer->kind, RangeKind::Phase);
  EXPECT_EQ(outer->device, -1);
  EXPECT_EQ(inner->name, "iteration 3");
  EXPECT_EQ(inner->kind, RangeKind::Iteration);
  EXPECT_EQ(inner->device, 1);
  EXPECT_LE(before, outer->start_ns);
  EXPECT_LE(outer->start_ns, inner->start_ns);
  EXPECT_LE(inner->end_ns, outer->end_ns);  // the inner scope is destroyed first
  EXPECT_LE(outer->end_ns, after);
  EXPECT_EQ(outer->pid, current_pid());
  EXPECT_EQ(outer->tid, current_tid());
}

TEST(HostRecorder, AScopeIsRecordedExactlyOnceWhenEndedEarlyOrMoved) {
  TraceRecorder trace_recorder;
  HostRecorder host(trace_recorder, false);
  {
    auto a = host.scope("ended early", RangeKind::WarmUp);
    a.end();
    EXPECT_FALSE(a.open());
    a.end();
    auto b = host.scope("moved", RangeKind::Forward, 0);
    HostRecorder::Scope c = std::move(b);
    EXPECT_FALSE(b.open());  // NOLINT(bugprone-use-after-move): the moved-from state is the point
    EXPECT_TRUE(c.open());
    auto d = host.scope("replaced", RangeKind::User);
    d = host.scope("replacement", RangeKind::User);  // assigning ends "replaced"
  }
  Trace trace = finish_ok(trace_recorder);
  std::vector<std::string> names;
  for (const Range& r : trace.ranges()) names.push_back(r.name);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"ended early", "moved", "replaced", "replacement"}));
}

TEST(HostRecorder, MeasurementsKeepTheReportedValueAndRelativeHostInterval) {
  TraceRecorder trace_recorder(kOrigin);
  HostRecorder host(trace_recorder, false);
  host.record_measurement("timed loop", MeasurementMethod::StopwatchNoSync, 4'200'000, kOrigin + 1'000,
                          kOrigin + 4'201'000);
  host.record_measurement("timed loop", MeasurementMethod::CudaEvents, 36'100'000, kOrigin + 1'000,
                          kOrigin + 36'200'000);
  Trace trace = finish_ok(trace_recorder);
  ASSERT_EQ(trace.measurements().size(), 2u);
  const Measurement& m = trace.measurements()[0];
  EXPECT_EQ(m.name, "timed loop");
  EXPECT_EQ(m.method, MeasurementMethod::StopwatchNoSync);
  EXPECT_EQ(m.reported_ns, 4'200'000);
  EXPECT_EQ(m.host_start_ns, 1'000);
  EXPECT_EQ(m.host_end_ns, 4'201'000);
  EXPECT_EQ(m.pid, current_pid());
  EXPECT_EQ(m.tid, current_tid());
  EXPECT_EQ(trace.measurements()[1].method, MeasurementMethod::CudaEvents);
}

TEST(HostRecorder, RecordRangeUsesTheGivenTimes) {
  TraceRecorder trace_recorder(kOrigin);
  HostRecorder host(trace_recorder, false);
  host.record_range("warm-up", RangeKind::WarmUp, kOrigin + 100, kOrigin + 900, 0);
  Trace trace = finish_ok(trace_recorder);
  ASSERT_EQ(trace.ranges().size(), 1u);
  EXPECT_EQ(trace.ranges()[0], (Range{"warm-up", RangeKind::WarmUp, 100, 900, current_pid(), current_tid(), 0}));
}

// The hook samples counters at the very instants ranges begin and end (here a counter of how often it ran).
TEST(HostRecorder, TheBoundaryHookRunsAtEveryScopeStartAndEnd) {
  TraceRecorder trace_recorder(kOrigin);
  HostRecorder host(trace_recorder, false);
  std::vector<UnixNs> calls;
  host.set_range_boundary_hook([&](UnixNs time_ns) {
    calls.push_back(time_ns);
    trace_recorder.add_counter_sample(0, "boundaries", time_ns, static_cast<double>(calls.size()));
  });
  {
    auto outer = host.scope("timed loop", RangeKind::Phase);
    auto inner = host.scope("iteration 0", RangeKind::Iteration);
  }
  host.record_range("measured elsewhere", RangeKind::User, kOrigin + 1, kOrigin + 2);  // past times: no sample
  host.set_range_boundary_hook({});
  { auto after = host.scope("after the hook", RangeKind::Phase); }
  Trace trace = finish_ok(trace_recorder);
  ASSERT_EQ(calls.size(), 4u);
  ASSERT_EQ(trace.counters().size(), 1u);
  const CounterSeries& series = trace.counters()[0];
  EXPECT_EQ(series.pid, 0);
  ASSERT_EQ(series.samples.size(), 4u);
  std::vector<TimeNs> boundaries;
  for (const Range& r : trace.ranges()) {
    if (r.name == "timed loop" || r.name == "iteration 0") {
      boundaries.push_back(r.start_ns);
      boundaries.push_back(r.end_ns);
    }
  }
  std::sort(boundaries.begin(), boundaries.end());
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(series.samples[i].time_ns, calls[i] - kOrigin);  // relative to the recorder's origin
    EXPECT_EQ(series.samples[i].time_ns, boundaries[i]);
  }
}

TEST(HostRecorder, HostEventsGoToTheThreadLane) {
  TraceRecorder trace_recorder(kOrigin);
  HostRecorder host(trace_recorder, false);
  host.record_host_event("aten::addmm", EventKind::CpuOp, kOrigin + 10, kOrigin + 60);
  host.record_host_event("aten::relu", EventKind::CpuOp, kOrigin + 70, kOrigin + 80, 5555);
  Trace trace = finish_ok(trace_recorder);
  auto mine = trace.find_lane(host_lane_key(current_pid(), current_tid()));
  auto other = trace.find_lane(host_lane_key(current_pid(), 5555));
  ASSERT_TRUE(mine && other);
  ASSERT_EQ(trace.lane(*mine).events.size(), 1u);
  const Event& e = trace.lane(*mine).events[0];
  EXPECT_EQ(trace.name(e), "aten::addmm");
  EXPECT_EQ(e.kind, EventKind::CpuOp);
  EXPECT_EQ(e.start_ns, 10);
  EXPECT_EQ(e.duration_ns, 50);
  EXPECT_EQ(trace.lane(*other).events.size(), 1u);
}

TEST(HostRecorder, MetadataThreadAndProcessNames) {
  TraceRecorder trace_recorder(kOrigin);
  HostRecorder host(trace_recorder, false);
  host.set_scenario("streams");
  host.set_config("iters", "10");
  host.set_machine("host", "test");
  host.add_note("ran on the CPU");
  host.name_current_thread("main");
  host.record_host_event("op", EventKind::CpuOp, kOrigin + 1, kOrigin + 2);
  Trace trace = finish_ok(trace_recorder);
  EXPECT_EQ(trace.metadata().scenario, "streams");
  EXPECT_EQ(trace.metadata().config.at("iters"), "10");
  EXPECT_EQ(trace.metadata().machine.at("host"), "test");
  EXPECT_EQ(trace.metadata().notes, std::vector<std::string>{"ran on the CPU"});
  auto lane = trace.find_lane(host_lane_key(current_pid(), current_tid()));
  ASSERT_TRUE(lane);
  EXPECT_EQ(trace.lane(*lane).name, "thread " + std::to_string(current_tid()) + " (main)");
  std::ifstream comm("/proc/self/comm");
  std::string expected_name;
  std::getline(comm, expected_name);
  ASSERT_EQ(trace.processes().size(), 1u);
  EXPECT_EQ(trace.processes()[0].pid, current_pid());
  EXPECT_EQ(trace.processes()[0].name, expected_name);
}

TEST(HostRecorder, LanesTakeTheOsThreadNameUntilNamedExplicitly) {
  TraceRecorder trace_recorder(kOrigin);
  HostRecorder host(trace_recorder, false);
  auto [tid_a, tid_b] = std::async(std::launch::async, [&host] {
                          ::pthread_setname_np(::pthread_self(), "loader");
                          host.record_host_event("op", EventKind::CpuOp, kOrigin + 1, kOrigin + 2);
                          const std::int64_t a = current_tid();
                          std::int64_t b = 0;
                          std::thread([&] {  // a second thread, named explicitly after it recorded under its OS name
                            ::pthread_setname_np(::pthread_self(), "os-name");
                            host.record_host_event("op", EventKind::CpuOp, kOrigin + 1, kOrigin + 2);
                            host.name_current_thread("worker cuda:1");
                            b = current_tid();
                          })
                              .join();
                          return std::make_pair(a, b);
                        }).get();
  Trace trace = finish_ok(trace_recorder);
  auto a = trace.find_lane(host_lane_key(current_pid(), tid_a));
  auto b = trace.find_lane(host_lane_key(current_pid(), tid_b));
  ASSERT_TRUE(a && b);
  EXPECT_EQ(trace.lane(*a).name, "thread " + std::to_string(tid_a) + " (loader)");
  EXPECT_EQ(trace.lane(*b).name, "thread " + std::to_string(tid_b) + " (worker cuda:1)");
}

TEST(HostRecorder, EachThreadRecordsOnItsOwnLane) {
  TraceRecorder trace_recorder;
  HostRecorder host(trace_recorder, false);
  constexpr int kThreads = 3, kIterations = 50;
  std::vector<std::future<std::int64_t>> tids;
  std::latch all_done(kThreads);  // keeps every thread alive until all have recorded, so no tid is reused
  for (int t = 0; t < kThreads; ++t) {
    tids.push_back(std::async(std::launch::async, [&host, &all_done, t] {
      for (int i = 0; i < kIterations; ++i) {
        auto r = host.scope("model " + std::to_string(t) + " forward", RangeKind::Forward, t);
        const UnixNs now = unix_now_ns();
        host.record_host_event("aten::linear", EventKind::CpuOp, now, now + 1);
      }
      all_done.arrive_and_wait();
      return current_tid();
    }));
  }
  std::vector<std::int64_t> thread_ids;
  for (auto& f : tids) thread_ids.push_back(f.get());
  Trace trace = finish_ok(trace_recorder);
  EXPECT_EQ(trace.ranges().size(), static_cast<std::size_t>(kThreads * kIterations));
  for (int t = 0; t < kThreads; ++t) {
    const std::string name = "model " + std::to_string(t) + " forward";
    int count = 0;
    for (const Range& r : trace.ranges()) {
      if (r.name != name) continue;
      ++count;
      EXPECT_EQ(r.tid, thread_ids[static_cast<std::size_t>(t)]);
      EXPECT_EQ(r.device, t);
    }
    EXPECT_EQ(count, kIterations);
    auto lane = trace.find_lane(host_lane_key(current_pid(), thread_ids[static_cast<std::size_t>(t)]));
    ASSERT_TRUE(lane);
    EXPECT_EQ(trace.lane(*lane).events.size(), static_cast<std::size_t>(kIterations));
  }
}

TEST(HostRecorder, NvtxEmissionIsSafeWithoutATool) {
  // With no NVTX tool injected the pushes are no-ops; this exercises the NVTX path itself.
  TraceRecorder trace_recorder;
  HostRecorder host(trace_recorder, true);
  {
    auto a = host.scope("scenario", RangeKind::Scenario);
    auto b = host.scope("phase", RangeKind::Phase);
  }
  Trace trace = finish_ok(trace_recorder);
  EXPECT_EQ(trace.ranges().size(), 2u);
}

}  // namespace
}  // namespace gtv::collect
