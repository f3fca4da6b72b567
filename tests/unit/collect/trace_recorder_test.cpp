// TraceRecorder: records with absolute Unix times in, a Trace with relative times, lanes and flows out.
#include "gtv/collect/trace_recorder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <thread>
#include <vector>

namespace gtv::collect {
namespace {

constexpr UnixNs kOrigin = 1'700'000'000'000'000'000;

const Lane& lane_of(const Trace& trace, const LaneKey& key) {
  auto index = trace.find_lane(key);
  EXPECT_TRUE(index.has_value());
  return trace.lane(index.value_or(0));
}

Trace finish_ok(TraceRecorder& recorder) {
  Expected<Trace> trace = recorder.finish();
  EXPECT_TRUE(trace.ok()) << (trace.ok() ? "" : trace.error().message);
  return std::move(trace).value();
}

bool has_note_containing(const Trace& trace, std::string_view text) {
  const auto& notes = trace.metadata().notes;
  return std::any_of(notes.begin(), notes.end(), [&](const std::string& n) { return n.find(text) != n.npos; });
}

KernelRecord kernel(UnixNs start, UnixNs end, std::int32_t device, std::int64_t stream, std::uint64_t corr) {
  KernelRecord k;
  k.name = "gemm";
  k.start_ns = start;
  k.end_ns = end;
  k.device = device;
  k.stream = stream;
  k.correlation_id = corr;
  k.detail.grid[0] = 80;
  k.detail.block[0] = 256;
  return k;
}

ApiCallRecord api(std::string name, UnixNs start, UnixNs end, std::int64_t tid, std::uint64_t corr) {
  ApiCallRecord a;
  a.name = std::move(name);
  a.start_ns = start;
  a.end_ns = end;
  a.pid = 42;
  a.tid = tid;
  a.correlation_id = corr;
  return a;
}

TEST(TraceRecorder, KernelTimesBecomeRelativeToTheOrigin) {
  TraceRecorder recorder(kOrigin);
  recorder.on_kernel(kernel(kOrigin + 500'000, kOrigin + 700'000, 1, 7, 11));
  Trace trace = finish_ok(recorder);
  EXPECT_EQ(trace.metadata().origin_unix_ns, kOrigin);
  const Lane& lane = lane_of(trace, gpu_lane_key(1, 7));
  EXPECT_EQ(lane.name, "stream 7");
  ASSERT_EQ(lane.events.size(), 1u);
  EXPECT_EQ(lane.events[0].start_ns, 500'000);
  EXPECT_EQ(lane.events[0].duration_ns, 200'000);
  EXPECT_EQ(lane.events[0].kind, EventKind::Kernel);
  EXPECT_EQ(trace.name(lane.events[0]), "gemm");
  ASSERT_NE(trace.kernel_detail(lane.events[0]), nullptr);
  EXPECT_EQ(*trace.kernel_detail(lane.events[0]), kernel(0, 0, 0, 0, 0).detail);
}

TEST(TraceRecorder, LaunchAndKernelAreJoinedByCorrelationIdWhateverTheArrivalOrder) {
  TraceRecorder recorder(kOrigin);
  recorder.on_kernel(kernel(kOrigin + 9'000, kOrigin + 12'000, 0, 7, 5));  // GPU buffer completes first
  recorder.on_api_call(api("cudaLaunchKernel", kOrigin + 1'000, kOrigin + 3'000, 43, 5));
  Trace trace = finish_ok(recorder);
  ASSERT_EQ(trace.flows().size(), 1u);
  const Flow& flow = trace.flows()[0];
  EXPECT_EQ(flow.correlation_id, 5u);
  EXPECT_EQ(trace.name(trace.event(flow.from)), "cudaLaunchKernel");
  EXPECT_EQ(trace.event(flow.from).kind, EventKind::Runtime);
  EXPECT_EQ(trace.lane(flow.from.lane).key, host_lane_key(42, 43));
  EXPECT_EQ(trace.event(flow.to).start_ns, 9'000);
}

TEST(TraceRecorder, EventsArrivingOutOfOrderAreSortedPerLane) {
  TraceRecorder recorder(kOrigin);
  for (int i = 4; i >= 0; --i) recorder.on_kernel(kernel(kOrigin + i * 100, kOrigin + i * 100 + 50, 0, 7, 0));
  Trace trace = finish_ok(recorder);
  const Lane& lane = lane_of(trace, gpu_lane_key(0, 7));
  ASSERT_EQ(lane.events.size(), 5u);
  for (std::size_t i = 0; i < 5; ++i) EXPECT_EQ(lane.events[i].start_ns, static_cast<TimeNs>(i) * 100);
}

TEST(TraceRecorder, CopiesAreNamedByDirectionAndMemoryKinds) {
  TraceRecorder recorder(kOrigin);
  MemcpyRecord copy;
  copy.start_ns = kOrigin + 10;
  copy.end_ns = kOrigin + 30;
  copy.device = 0;
  copy.stream = 7;
  copy.detail = MemcpyDetail{4096, CopyKind::DeviceToHost, MemoryKind::Device, MemoryKind::Pageable, -1};
  recorder.on_memcpy(copy);
  MemsetRecord set;
  set.start_ns = kOrigin + 40;
  set.end_ns = kOrigin + 45;
  set.device = 0;
  set.stream = 7;
  set.detail = MemsetDetail{256, MemoryKind::Device, 0};
  recorder.on_memset(set);
  Trace trace = finish_ok(recorder);
  const Lane& lane = lane_of(trace, gpu_lane_key(0, 7));
  ASSERT_EQ(lane.events.size(), 2u);
  EXPECT_EQ(trace.name(lane.events[0]), "Memcpy DtoH (Device -> Pageable)");
  EXPECT_EQ(*trace.memcpy_detail(lane.events[0]), copy.detail);
  EXPECT_EQ(trace.name(lane.events[1]), "Memset (Device)");
  EXPECT_EQ(*trace.memset_detail(lane.events[1]), set.detail);
}

TEST(TraceRecorder, SyncGoesOnTheLaneOfTheApiCallThatWaited) {
  TraceRecorder recorder(kOrigin);
  SyncRecord sync;
  sync.kind = SyncKind::StreamSynchronize;
  sync.start_ns = kOrigin + 120;
  sync.end_ns = kOrigin + 480;
  sync.correlation_id = 9;
  recorder.on_sync(sync);  // arrives before the API record: placed only at finish()
  recorder.on_api_call(api("cudaStreamSynchronize", kOrigin + 100, kOrigin + 500, 43, 9));
  Trace trace = finish_ok(recorder);
  const Lane& lane = lane_of(trace, host_lane_key(42, 43));
  ASSERT_EQ(lane.events.size(), 2u);
  EXPECT_EQ(lane.events[1].kind, EventKind::Sync);
  EXPECT_EQ(trace.name(lane.events[1]), "Stream Sync");
  EXPECT_EQ(lane.events[1].depth, 1);
  EXPECT_EQ(lane.events[1].start_ns, 120);
}

TEST(TraceRecorder, SyncWithoutItsApiCallGoesOnTheUnknownThreadLaneWithANote) {
  TraceRecorder recorder(kOrigin);
  SyncRecord sync;
  sync.kind = SyncKind::ContextSynchronize;
  sync.start_ns = kOrigin + 1;
  sync.end_ns = kOrigin + 2;
  sync.correlation_id = 77;
  recorder.on_sync(sync);
  Trace trace = finish_ok(recorder);
  ASSERT_EQ(trace.lanes().size(), 1u);
  EXPECT_EQ(trace.lanes()[0].name, "synchronization (thread unknown)");
  EXPECT_EQ(trace.lanes()[0].key.tid, 0);
  EXPECT_TRUE(has_note_containing(trace, "1 synchronization records had no matching API call"));
}

SyncRecord sync_record(SyncKind kind, UnixNs start, UnixNs end, std::int64_t stream, std::uint64_t corr) {
  SyncRecord s;
  s.kind = kind;
  s.start_ns = start;
  s.end_ns = end;
  s.stream = stream;
  s.correlation_id = corr;
  return s;
}

CudaEventRecord event_record(std::int64_t cuda_event, std::int32_t device, std::int64_t stream, std::uint64_t corr) {
  CudaEventRecord r;
  r.cuda_event = cuda_event;
  r.device = device;
  r.stream = stream;
  r.correlation_id = corr;
  return r;
}

std::string_view name_at(const Trace& trace, EventRef ref) { return trace.name(trace.event(ref)); }

TEST(TraceRecorder, EventWaitsLinkTheWorkBeforeTheRecordToTheWaitingStreamAndTheSyncEvent) {
  TraceRecorder recorder(kOrigin);
  KernelRecord producer = kernel(kOrigin + 100, kOrigin + 400, 0, 7, 1);
  producer.name = "producer";
  recorder.on_kernel(producer);
  KernelRecord consumer = kernel(kOrigin + 400, kOrigin + 500, 0, 22, 5);
  consumer.name = "consumer";
  recorder.on_kernel(consumer);
  KernelRecord later = kernel(kOrigin + 500, kOrigin + 900, 0, 9, 7);
  later.name = "recorded later";
  recorder.on_kernel(later);
  recorder.on_event_record(event_record(3, 0, 7, 2));  // cudaEventRecord(event 3, stream 7), after the producer
  recorder.on_event_record(event_record(3, 0, 9, 8));  // the same event recorded again, after both waits
  recorder.on_api_call(api("cudaStreamWaitEvent", kOrigin + 300, kOrigin + 310, 43, 4));
  SyncRecord wait = sync_record(SyncKind::StreamWaitEvent, kOrigin + 301, kOrigin + 309, 22, 4);
  wait.cuda_event = 3;
  recorder.on_sync(wait);
  recorder.on_api_call(api("cudaEventSynchronize", kOrigin + 320, kOrigin + 420, 43, 6));
  SyncRecord host_wait = sync_record(SyncKind::EventSynchronize, kOrigin + 321, kOrigin + 419, kUnknownStream, 6);
  host_wait.cuda_event = 3;
  recorder.on_sync(host_wait);
  const Trace trace = finish_ok(recorder);
  ASSERT_EQ(trace.dependencies().size(), 2u);
  const Flow& stream_wait = trace.dependencies()[0];
  EXPECT_EQ(stream_wait.kind, FlowKind::Dependency);
  EXPECT_EQ(stream_wait.correlation_id, 4u);
  EXPECT_EQ(name_at(trace, stream_wait.from), "producer");
  EXPECT_EQ(name_at(trace, stream_wait.to), "consumer");
  const Flow& event_sync = trace.dependencies()[1];
  EXPECT_EQ(name_at(trace, event_sync.from), "producer");
  EXPECT_EQ(trace.event(event_sync.to).kind, EventKind::Sync);
  EXPECT_EQ(name_at(trace, event_sync.to), "Event Sync");
  EXPECT_EQ(trace.event(event_sync.to).start_ns, 321);
  EXPECT_TRUE(trace.flows().empty());  // no launch flow among them
}

TEST(TraceRecorder, StreamAndDeviceSynchronizeLinkTheLastWorkBeforeTheCall) {
  TraceRecorder recorder(kOrigin);
  ContextRecord context;
  context.context_id = 4;
  context.device = 1;
  context.null_stream = 7;
  recorder.on_context(context);
  KernelRecord short_one = kernel(kOrigin + 0, kOrigin + 100, 1, 7, 1);
  short_one.name = "stream 7";
  recorder.on_kernel(short_one);
  KernelRecord long_one = kernel(kOrigin + 0, kOrigin + 800, 1, 13, 2);
  long_one.name = "stream 13, ends last";
  recorder.on_kernel(long_one);
  KernelRecord other_device = kernel(kOrigin + 0, kOrigin + 5'000, 0, 9, 3);
  other_device.name = "device 0";
  recorder.on_kernel(other_device);
  recorder.on_api_call(api("cudaStreamSynchronize", kOrigin + 50, kOrigin + 110, 43, 10));
  recorder.on_sync(sync_record(SyncKind::StreamSynchronize, kOrigin + 51, kOrigin + 109, 7, 10));
  recorder.on_api_call(api("cudaDeviceSynchronize", kOrigin + 200, kOrigin + 810, 43, 11));
  SyncRecord device_sync = sync_record(SyncKind::ContextSynchronize, kOrigin + 201, kOrigin + 809, kUnknownStream, 11);
  device_sync.context_id = 4;  // device 1, known from the CONTEXT record
  recorder.on_sync(device_sync);
  SyncRecord unknown_context = device_sync;  // a context never described: which device is unknown, so no link
  unknown_context.context_id = 5;
  unknown_context.correlation_id = 12;
  unknown_context.start_ns = kOrigin + 900;
  unknown_context.end_ns = kOrigin + 901;
  recorder.on_sync(unknown_context);
  const Trace trace = finish_ok(recorder);
  ASSERT_EQ(trace.dependencies().size(), 2u);
  EXPECT_EQ(name_at(trace, trace.dependencies()[0].from), "stream 7");
  EXPECT_EQ(name_at(trace, trace.dependencies()[0].to), "Stream Sync");
  EXPECT_EQ(name_at(trace, trace.dependencies()[1].from), "stream 13, ends last");
  EXPECT_EQ(name_at(trace, trace.dependencies()[1].to), "Context Sync");
}

TEST(TraceRecorder, RecordsWithoutTimesAreLeftOutAndReversedOnesClampedWithNotes) {
  TraceRecorder recorder(kOrigin);
  recorder.on_api_call(api("cudaMalloc", 0, 0, 43, 1));
  recorder.on_api_call(api("cudaFree", kOrigin + 50, kOrigin + 40, 43, 2));
  Trace trace = finish_ok(recorder);
  const Lane& lane = lane_of(trace, host_lane_key(42, 43));
  ASSERT_EQ(lane.events.size(), 1u);
  EXPECT_EQ(trace.name(lane.events[0]), "cudaFree");
  EXPECT_EQ(lane.events[0].duration_ns, 0);
  EXPECT_TRUE(has_note_containing(trace, "1 records without timestamps"));
  EXPECT_TRUE(has_note_containing(trace, "1 records ended before they started"));
}

TEST(TraceRecorder, DroppedRecordsAddUpIntoTheMetadata) {
  TraceRecorder recorder(kOrigin);
  recorder.on_dropped(3);
  recorder.on_dropped(4);
  EXPECT_EQ(recorder.dropped_records(), 7);
  Trace trace = finish_ok(recorder);
  EXPECT_EQ(trace.metadata().dropped_records, 7);
  EXPECT_TRUE(has_note_containing(trace, "CUPTI dropped 7 records"));
}

TEST(TraceRecorder, MetadataIsKept) {
  TraceRecorder recorder(kOrigin);
  recorder.set_scenario("sequential");
  recorder.set_config("models", "3");
  recorder.set_machine("gpu0", "NVIDIA H200");
  recorder.add_note("ran on the CPU");
  recorder.on_note("CUPTI unavailable: test");
  Trace trace = finish_ok(recorder);
  EXPECT_EQ(trace.metadata().scenario, "sequential");
  EXPECT_EQ(trace.metadata().config.at("models"), "3");
  EXPECT_EQ(trace.metadata().machine.at("gpu0"), "NVIDIA H200");
  EXPECT_EQ(trace.metadata().notes, (std::vector<std::string>{"ran on the CPU", "CUPTI unavailable: test"}));
  EXPECT_EQ(trace.metadata().source_tool.rfind("gtv ", 0), 0u);
}

TEST(TraceRecorder, LanesAreNamedFromThreadNamesAndDefaultStreams) {
  TraceRecorder recorder(kOrigin);
  recorder.on_api_call(api("cudaLaunchKernel", kOrigin + 1, kOrigin + 2, 43, 1));
  recorder.on_kernel(kernel(kOrigin + 5, kOrigin + 6, 0, 7, 1));
  recorder.on_kernel(kernel(kOrigin + 5, kOrigin + 6, 0, 13, 0));
  recorder.set_thread_name(42, 43, "worker");
  recorder.set_thread_name(42, 99, "no events");  // names no lane: creates none
  recorder.on_context(ContextRecord{1, 0, 7});
  Trace trace = finish_ok(recorder);
  EXPECT_EQ(trace.lanes().size(), 3u);
  EXPECT_EQ(lane_of(trace, host_lane_key(42, 43)).name, "thread 43 (worker)");
  EXPECT_EQ(lane_of(trace, gpu_lane_key(0, 7)).name, "stream 7 (default)");
  EXPECT_EQ(lane_of(trace, gpu_lane_key(0, 13)).name, "stream 13");
}

TEST(TraceRecorder, MarkersBecomeAnnotationsExceptGtvsOwnRanges) {
  TraceRecorder recorder(kOrigin);
  recorder.on_marker(MarkerRecord{"user range", "", kOrigin + 10, kOrigin + 90, false, 42, 43, 1});
  recorder.on_marker(MarkerRecord{"tick", "", kOrigin + 20, kOrigin + 20, true, 42, 43, 2});
  recorder.on_marker(MarkerRecord{"iteration 1", "gtv", kOrigin + 10, kOrigin + 90, false, 42, 43, 3});
  Trace trace = finish_ok(recorder);
  const Lane& lane = lane_of(trace, host_lane_key(42, 43));
  ASSERT_EQ(lane.events.size(), 2u);
  EXPECT_EQ(lane.events[0].kind, EventKind::Annotation);
  EXPECT_EQ(lane.events[0].duration_ns, 80);
  EXPECT_EQ(lane.events[1].kind, EventKind::Instant);
  EXPECT_EQ(lane.events[1].duration_ns, 0);
}

TEST(TraceRecorder, MemoryRecordsBecomeCountersOfMemoryInUse) {
  TraceRecorder recorder(kOrigin);
  auto memory = [](MemoryOperation op, UnixNs t, std::int64_t bytes, MemoryKind kind) {
    MemoryRecord m;
    m.operation = op;
    m.time_ns = t;
    m.bytes = bytes;
    m.memory_kind = kind;
    m.device = 1;
    m.pid = 42;
    return m;
  };
  recorder.on_memory(memory(MemoryOperation::Release, kOrigin + 30, 100, MemoryKind::Device));  // out of order
  recorder.on_memory(memory(MemoryOperation::Allocate, kOrigin + 10, 100, MemoryKind::Device));
  recorder.on_memory(memory(MemoryOperation::Allocate, kOrigin + 20, 50, MemoryKind::Device));
  recorder.on_memory(memory(MemoryOperation::Allocate, kOrigin + 25, 8, MemoryKind::Pinned));
  recorder.on_memory(memory(MemoryOperation::Allocate, kOrigin + 25, 8, MemoryKind::Pageable));  // not tracked
  Trace trace = finish_ok(recorder);
  ASSERT_EQ(trace.counters().size(), 2u);
  const CounterSeries& device = trace.counters()[0];
  EXPECT_EQ(device.pid, 1);
  EXPECT_EQ(device.name, "device memory allocated since start (bytes)");
  EXPECT_EQ(device.samples, (std::vector<CounterSample>{{10, 100.0}, {20, 150.0}, {30, 50.0}}));
  const CounterSeries& pinned = trace.counters()[1];
  EXPECT_EQ(pinned.pid, 42);
  EXPECT_EQ(pinned.samples, (std::vector<CounterSample>{{25, 8.0}}));
}

TEST(TraceRecorder, OverheadGoesToHostOrDeviceLanes) {
  TraceRecorder recorder(kOrigin);
  OverheadRecord host{"CUPTI buffer flush", kOrigin + 1, kOrigin + 5, true, 42, 43, -1, -1, 0};
  OverheadRecord device{"lazy function loading", kOrigin + 2, kOrigin + 9, false, 0, 0, 1, -1, 0};
  recorder.on_overhead(host);
  recorder.on_overhead(device);
  Trace trace = finish_ok(recorder);
  EXPECT_EQ(lane_of(trace, host_lane_key(42, 43)).events.at(0).kind, EventKind::Overhead);
  const Lane& device_lane = lane_of(trace, gpu_lane_key(1, -1));
  EXPECT_EQ(device_lane.name, "device overhead");
  EXPECT_EQ(device_lane.events.at(0).duration_ns, 7);
}

TEST(TraceRecorder, DevicesComeFromDeviceRecords) {
  TraceRecorder recorder(kOrigin);
  recorder.on_device(DeviceRecord{DeviceInfo{1, "NVIDIA H200", 150'000'000'000, 9, 0, 132}});
  recorder.on_device(DeviceRecord{DeviceInfo{0, "NVIDIA H200", 150'000'000'000, 9, 0, 132}});
  Trace trace = finish_ok(recorder);
  ASSERT_EQ(trace.devices().size(), 2u);
  EXPECT_EQ(trace.devices()[0].index, 0);
  EXPECT_EQ(trace.devices()[1].sm_count, 132);
}

TEST(TraceRecorder, PartialDeviceDescriptionsAreMergedNotBlanked) {
  TraceRecorder recorder(kOrigin);
  recorder.on_device(DeviceRecord{DeviceInfo{0, "NVIDIA H200", 150'000'000'000, 9, 0, 132}});
  DeviceRecord name_only;
  name_only.info.index = 0;
  name_only.info.name = "H200 (renamed)";
  recorder.on_device(name_only);
  Trace trace = finish_ok(recorder);
  ASSERT_EQ(trace.devices().size(), 1u);
  EXPECT_EQ(trace.devices()[0], (DeviceInfo{0, "H200 (renamed)", 150'000'000'000, 9, 0, 132}));
}

TEST(TraceRecorder, FinishEmptiesTheRecorderButKeepsTheOrigin) {
  TraceRecorder recorder(kOrigin);
  recorder.on_kernel(kernel(kOrigin + 1, kOrigin + 2, 0, 7, 0));
  recorder.set_scenario("first");
  EXPECT_EQ(recorder.event_count(), 1u);
  Trace first = finish_ok(recorder);
  EXPECT_EQ(first.event_count(), 1u);
  EXPECT_EQ(recorder.event_count(), 0u);
  Trace second = finish_ok(recorder);
  EXPECT_EQ(second.event_count(), 0u);
  EXPECT_EQ(second.metadata().scenario, "");
  EXPECT_EQ(second.metadata().origin_unix_ns, kOrigin);
}

TEST(TraceRecorder, RecordsFromManyThreadsAreAllKept) {
  TraceRecorder recorder(kOrigin);
  constexpr int kThreads = 4, kPerThread = 2000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&recorder, t] {
      for (int i = 0; i < kPerThread; ++i) {
        const UnixNs start = kOrigin + i * 10;
        recorder.add_host_event("op", EventKind::CpuOp, start, start + 5, 42, 100 + t);
        recorder.on_kernel(kernel(start, start + 5, t % 2, 7, 0));
      }
    });
  }
  for (auto& th : threads) th.join();
  Trace trace = finish_ok(recorder);
  EXPECT_EQ(trace.event_count(), static_cast<std::size_t>(2 * kThreads * kPerThread));
  for (int t = 0; t < kThreads; ++t)
    EXPECT_EQ(lane_of(trace, host_lane_key(42, 100 + t)).events.size(), static_cast<std::size_t>(kPerThread));
  EXPECT_EQ(lane_of(trace, gpu_lane_key(0, 7)).events.size(), static_cast<std::size_t>(2 * kPerThread));
}

}  // namespace
}  // namespace gtv::collect
