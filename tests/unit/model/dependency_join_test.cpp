// Dependency links joined at build() from wait hints (the rule of TraceBuilder::WaitHint) and from explicit pairs:
// which GPU work an event wait, a stream synchronize and a device synchronize point at, and what waited.
#include <gtest/gtest.h>

#include "gtv/model/trace_builder.h"

namespace gtv {
namespace {

constexpr std::int64_t kPid = 100, kTid = 101;

class DependencyJoin : public ::testing::Test {
 protected:
  // A kernel on (device, stream) launched by call `correlation`, running [start, start + duration).
  void kernel(std::int64_t device, std::int64_t stream, std::uint64_t correlation, TimeNs start, TimeNs duration,
              const char* name) {
    Event e;
    e.start_ns = start;
    e.duration_ns = duration;
    e.correlation_id = correlation;
    e.name = b.intern(name);
    b.add_kernel(b.lane(gpu_lane_key(device, stream)), e, KernelDetail{});
  }
  void host(EventKind kind, TimeNs start, TimeNs duration, const char* name, std::uint64_t correlation) {
    Event e;
    e.start_ns = start;
    e.duration_ns = duration;
    e.kind = kind;
    e.correlation_id = correlation;
    e.name = b.intern(name);
    b.add_event(b.lane(host_lane_key(kPid, kTid)), e);
  }
  Trace build() {
    Expected<Trace> t = b.build();
    EXPECT_TRUE(t.ok());
    return std::move(*t);
  }
  static std::string_view name_of(const Trace& t, EventRef ref) { return t.name(t.event(ref)); }

  TraceBuilder b;
};

TEST_F(DependencyJoin, AStreamWaitLinksTheWorkBeforeTheRecordToTheFirstWorkAfterTheWait) {
  kernel(0, 7, 1, 0, 100, "producer early");
  kernel(0, 7, 3, 100, 400, "producer");          // launched before the cudaEventRecord (correlation 4)
  kernel(0, 7, 6, 500, 100, "after the record");  // launched after it: not waited for
  kernel(0, 22, 2, 0, 50, "consumer before");     // launched before the wait (correlation 5)
  kernel(0, 22, 8, 600, 100, "consumer");         // the first launched after the wait
  kernel(0, 22, 9, 700, 100, "consumer later");
  TraceBuilder::WaitHint wait;
  wait.waiter = TraceBuilder::Waiter::StreamWork;
  wait.source_device = 0;
  wait.source_stream = 7;
  wait.source_before_correlation = 4;
  wait.wait_correlation = 5;
  wait.waiter_device = 0;
  wait.waiter_stream = 22;
  b.add_wait(wait);
  const Trace t = build();
  ASSERT_EQ(t.dependencies().size(), 1u);
  const Flow& link = t.dependencies()[0];
  EXPECT_EQ(link.kind, FlowKind::Dependency);
  EXPECT_EQ(link.correlation_id, 5u);
  EXPECT_EQ(name_of(t, link.from), "producer");
  EXPECT_EQ(name_of(t, link.to), "consumer");
  EXPECT_TRUE(t.flows().empty());  // apart from the launch flows
  const std::vector<Flow> of_from = t.dependencies_of(link.from);
  ASSERT_EQ(of_from.size(), 1u);
  EXPECT_EQ(of_from[0], link);
  EXPECT_EQ(t.dependencies_of(link.to).size(), 1u);
  EXPECT_TRUE(t.dependencies_of(EventRef{link.to.lane, link.to.index + 1}).empty());
}

TEST_F(DependencyJoin, HostSynchronizationsLinkTheLastWorkOfTheStreamOrDeviceToTheSyncEvent) {
  kernel(0, 7, 1, 0, 300, "stream 7 work");
  kernel(0, 9, 2, 0, 900, "stream 9 work, ends last");
  kernel(1, 9, 3, 0, 2'000, "other device");
  kernel(0, 7, 20, 5'000, 10, "launched after both syncs");
  host(EventKind::Runtime, 1'000, 500, "cudaStreamSynchronize", 10);
  host(EventKind::Sync, 1'000, 400, "Stream Sync", 10);  // same start as its call: the Sync event is the waiter
  host(EventKind::Runtime, 2'000, 500, "cudaDeviceSynchronize", 11);
  host(EventKind::Sync, 2'100, 300, "Context Sync", 11);
  TraceBuilder::WaitHint stream_sync;
  stream_sync.source_device = 0;
  stream_sync.source_stream = 7;
  stream_sync.source_before_correlation = 10;
  stream_sync.wait_correlation = 10;
  stream_sync.waiter_lane = host_lane_key(kPid, kTid);
  stream_sync.waiter_ts_ns = 1'000;
  b.add_wait(stream_sync);
  TraceBuilder::WaitHint device_sync = stream_sync;
  device_sync.source_stream = -1;  // every stream of device 0
  device_sync.source_before_correlation = 11;
  device_sync.wait_correlation = 11;
  device_sync.waiter_ts_ns = 2'100;
  b.add_wait(device_sync);
  const Trace t = build();
  ASSERT_EQ(t.dependencies().size(), 2u);
  EXPECT_EQ(name_of(t, t.dependencies()[0].from), "stream 7 work");
  EXPECT_EQ(name_of(t, t.dependencies()[0].to), "Stream Sync");
  EXPECT_EQ(name_of(t, t.dependencies()[1].from), "stream 9 work, ends last");
  EXPECT_EQ(name_of(t, t.dependencies()[1].to), "Context Sync");
}

TEST_F(DependencyJoin, AStreamKnownOnlyByItsIdIsFoundOnAnyDevice) {
  kernel(1, 13, 1, 0, 100, "producer on device 1");
  kernel(0, 22, 5, 200, 100, "consumer");
  TraceBuilder::WaitHint wait;
  wait.waiter = TraceBuilder::Waiter::StreamWork;
  wait.source_device = 0;  // the waiting side's device: stream 13 lives on device 1
  wait.source_stream = 13;
  wait.source_before_correlation = 3;
  wait.wait_correlation = 4;
  wait.waiter_stream = 22;  // waiter device unknown
  b.add_wait(wait);
  const Trace t = build();
  ASSERT_EQ(t.dependencies().size(), 1u);
  EXPECT_EQ(name_of(t, t.dependencies()[0].from), "producer on device 1");
  EXPECT_EQ(name_of(t, t.dependencies()[0].to), "consumer");
}

TEST_F(DependencyJoin, NoLinkWithoutWorkBeforeTheRecordOrAfterTheWait) {
  kernel(0, 7, 6, 0, 100, "launched after the record");
  kernel(0, 22, 2, 0, 100, "launched before the wait");
  kernel(0, 23, 1, 0, 100, "work before");
  TraceBuilder::WaitHint nothing_recorded;
  nothing_recorded.waiter = TraceBuilder::Waiter::StreamWork;
  nothing_recorded.source_device = 0;
  nothing_recorded.source_stream = 7;
  nothing_recorded.source_before_correlation = 4;
  nothing_recorded.wait_correlation = 5;
  nothing_recorded.waiter_device = 0;
  nothing_recorded.waiter_stream = 23;
  b.add_wait(nothing_recorded);
  TraceBuilder::WaitHint nothing_held = nothing_recorded;
  nothing_held.source_stream = 23;
  nothing_held.waiter_stream = 22;
  b.add_wait(nothing_held);
  TraceBuilder::WaitHint no_sync_event = nothing_held;
  no_sync_event.waiter = TraceBuilder::Waiter::HostSync;
  no_sync_event.waiter_lane = host_lane_key(kPid, kTid);  // a lane that does not exist
  b.add_wait(no_sync_event);
  EXPECT_TRUE(build().dependencies().empty());
}

TEST_F(DependencyJoin, ALinkJoinedTwiceIsKeptOnce) {
  kernel(0, 7, 1, 0, 100, "producer");
  host(EventKind::Sync, 500, 100, "Event Sync", 9);
  const LaneIndex gpu = b.lane(gpu_lane_key(0, 7));
  const LaneIndex cpu = b.lane(host_lane_key(kPid, kTid));
  b.add_dependency_hint(9, gpu, 0, cpu, 500);
  TraceBuilder::WaitHint wait;
  wait.source_device = 0;
  wait.source_stream = 7;
  wait.source_before_correlation = 2;
  wait.wait_correlation = 9;
  wait.waiter_lane = host_lane_key(kPid, kTid);
  wait.waiter_ts_ns = 500;
  b.add_wait(wait);
  const Trace t = build();
  ASSERT_EQ(t.dependencies().size(), 1u);
  EXPECT_EQ(name_of(t, t.dependencies()[0].from), "producer");
  EXPECT_EQ(name_of(t, t.dependencies()[0].to), "Event Sync");
}

}  // namespace
}  // namespace gtv
