// The dispatch code walks a synthetic activity buffer (laid out like CUPTI's: records back to back, 8-byte
// aligned) exactly as it walks real ones, and feeds a sink: here a counting sink and the real TraceRecorder.
#include <generated_nvtx_meta.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <thread>
#include <vector>

#include "activity_dispatch.h"
#include "capture_callbacks.h"
#include "cupti_calls.h"
#include "gtv/collect/capture_gate.h"
#include "gtv/collect/capture_sink.h"
#include "gtv/collect/trace_recorder.h"

namespace gtv::collect::cupti {
namespace {

constexpr std::uint64_t kT0 = 1'764'470'000'000'000'000ull;

std::size_t record_size(CUpti_ActivityKind kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
      return sizeof(KernelActivity);
    case CUPTI_ACTIVITY_KIND_MEMCPY:
      return sizeof(MemcpyActivity);
    case CUPTI_ACTIVITY_KIND_MEMCPY2:
      return sizeof(PeerMemcpyActivity);
    case CUPTI_ACTIVITY_KIND_MEMSET:
      return sizeof(MemsetActivity);
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER:
      return sizeof(CUpti_ActivityAPI);
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
      return sizeof(SyncActivity);
    case CUPTI_ACTIVITY_KIND_CUDA_EVENT:
      return sizeof(CudaEventActivity);
    case CUPTI_ACTIVITY_KIND_OVERHEAD:
      return sizeof(OverheadActivity);
    case CUPTI_ACTIVITY_KIND_MARKER:
      return sizeof(MarkerActivity);
    case CUPTI_ACTIVITY_KIND_DEVICE:
      return sizeof(DeviceActivity);
    case CUPTI_ACTIVITY_KIND_CONTEXT:
      return sizeof(ContextActivity);
    case CUPTI_ACTIVITY_KIND_MEMORY2:
      return sizeof(MemoryActivity);
    case CUPTI_ACTIVITY_KIND_NAME:
      return sizeof(CUpti_ActivityName);
    default:
      return 0;
  }
}

// Like kineto's MockCuptiActivityBuffer: records appended back to back.
class SyntheticBuffer {
 public:
  template <typename Record>
  void add(const Record& record) {
    const std::size_t at = bytes_.size();
    bytes_.resize(at + (sizeof(Record) + 7) / 8 * 8);
    std::memcpy(bytes_.data() + at, &record, sizeof(Record));
  }
  [[nodiscard]] std::uint8_t* data() { return reinterpret_cast<std::uint8_t*>(bytes_.data()); }
  [[nodiscard]] std::size_t size() const { return bytes_.size(); }

 private:
  std::vector<std::byte> bytes_;
};

// cuptiActivityGetNextRecord's contract: *record == nullptr starts at the first record, else moves past it.
CUptiResult synthetic_next(std::uint8_t* buffer, std::size_t valid_bytes, CUpti_Activity** record) {
  std::size_t offset = 0;
  if (*record != nullptr) {
    offset = static_cast<std::size_t>(reinterpret_cast<std::uint8_t*>(*record) - buffer);
    offset += (record_size((*record)->kind) + 7) / 8 * 8;
  }
  if (offset >= valid_bytes) return CUPTI_ERROR_MAX_LIMIT_REACHED;
  *record = reinterpret_cast<CUpti_Activity*>(buffer + offset);
  return record_size((*record)->kind) == 0 ? CUPTI_ERROR_INVALID_KIND : CUPTI_SUCCESS;
}

struct CountingSink : ActivitySink {
  std::vector<KernelRecord> kernels;
  std::vector<ApiCallRecord> apis;
  std::vector<MarkerRecord> markers;
  std::vector<std::string> notes;
  int memcpys = 0, memsets = 0, syncs = 0, event_records = 0, overheads = 0, devices = 0, contexts = 0, memory = 0;
  void on_kernel(const KernelRecord& r) override { kernels.push_back(r); }
  void on_memcpy(const MemcpyRecord&) override { ++memcpys; }
  void on_memset(const MemsetRecord&) override { ++memsets; }
  void on_api_call(const ApiCallRecord& r) override { apis.push_back(r); }
  void on_sync(const SyncRecord&) override { ++syncs; }
  void on_event_record(const CudaEventRecord&) override { ++event_records; }
  void on_overhead(const OverheadRecord&) override { ++overheads; }
  void on_marker(const MarkerRecord& r) override { markers.push_back(r); }
  void on_device(const DeviceRecord&) override { ++devices; }
  void on_context(const ContextRecord&) override { ++contexts; }
  void on_memory(const MemoryRecord&) override { ++memory; }
  void on_note(std::string_view text) override { notes.emplace_back(text); }
};

std::string fake_namer(ApiKind api, std::uint32_t cbid) {
  return (api == ApiKind::Runtime ? "runtime#" : "driver#") + std::to_string(cbid);
}

KernelActivity kernel(std::uint32_t device, std::uint32_t stream, std::uint32_t corr, std::uint64_t start) {
  KernelActivity k{};
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.start = start;
  k.end = start + 1'000;
  k.deviceId = device;
  k.streamId = stream;
  k.correlationId = corr;
  k.gridX = k.gridY = k.gridZ = 1;
  k.gridX = 264;
  k.name = "gemm";
  return k;
}

CUpti_ActivityAPI api(CUpti_ActivityKind kind, std::uint32_t cbid, std::uint32_t corr, std::uint64_t start) {
  CUpti_ActivityAPI a{};
  a.kind = kind;
  a.cbid = cbid;
  a.start = start;
  a.end = start + 500;
  a.processId = 1234;
  a.threadId = 0xfffffff5u;
  a.correlationId = corr;
  return a;
}

MarkerActivity marker(std::uint32_t flags, std::uint32_t id, std::uint64_t t, const char* name) {
  MarkerActivity m{};
  m.kind = CUPTI_ACTIVITY_KIND_MARKER;
  m.flags = static_cast<CUpti_ActivityFlag>(flags);
  m.id = id;
  m.timestamp = t;
  m.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
  m.objectId.pt.processId = 1234;
  m.objectId.pt.threadId = 0xfffffff5u;
  m.name = name;
  return m;
}

SyntheticBuffer mixed_buffer() {
  SyntheticBuffer b;
  DeviceActivity d{};
  d.kind = CUPTI_ACTIVITY_KIND_DEVICE;
  d.id = 0;
  d.name = "NVIDIA H200";
  d.numMultiprocessors = 132;
  b.add(d);
  b.add(api(CUPTI_ACTIVITY_KIND_RUNTIME, 211, 1, kT0 + 100));
  b.add(api(CUPTI_ACTIVITY_KIND_DRIVER, 17, 1, kT0 + 150));
  b.add(kernel(0, 7, 1, kT0 + 2'000));
  MemcpyActivity m{};
  m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  m.start = kT0 + 3'000;
  m.end = kT0 + 3'500;
  b.add(m);
  CUpti_ActivityName unknown{};  // a kind gtv does not convert
  unknown.kind = CUPTI_ACTIVITY_KIND_NAME;
  b.add(unknown);
  b.add(marker(CUPTI_ACTIVITY_FLAG_MARKER_START, 9, kT0 + 50, "user range"));
  return b;
}

TEST(CuptiDispatch, EveryKnownRecordOfABufferReachesTheSink) {
  CountingSink sink;
  ActivityDispatcher dispatcher(sink, fake_namer);
  SyntheticBuffer buffer = mixed_buffer();
  EXPECT_EQ(dispatcher.handle_buffer(buffer.data(), buffer.size(), synthetic_next), 6u);
  EXPECT_EQ(dispatcher.delivered(), 6u);
  EXPECT_EQ(dispatcher.ignored(), 1u);
  EXPECT_EQ(sink.devices, 1);
  ASSERT_EQ(sink.apis.size(), 2u);
  EXPECT_EQ(sink.apis[0].name, "runtime#211");
  EXPECT_EQ(sink.apis[0].api, ApiKind::Runtime);
  EXPECT_EQ(sink.apis[1].name, "driver#17");
  EXPECT_EQ(sink.apis[1].api, ApiKind::Driver);
  ASSERT_EQ(sink.kernels.size(), 1u);
  EXPECT_EQ(sink.kernels[0].detail.blocks_per_sm_x100, 200);  // SM count taken from the DEVICE record
  EXPECT_EQ(sink.memcpys, 1);
  EXPECT_TRUE(sink.markers.empty());  // the start waits for its end
}

TEST(CuptiDispatch, MarkerEndInALaterBufferCompletesTheRange) {
  CountingSink sink;
  ActivityDispatcher dispatcher(sink, fake_namer);
  SyntheticBuffer first = mixed_buffer();
  (void)dispatcher.handle_buffer(first.data(), first.size(), synthetic_next);
  SyntheticBuffer second;
  second.add(marker(CUPTI_ACTIVITY_FLAG_MARKER_END, 9, kT0 + 5'000, nullptr));
  second.add(marker(CUPTI_ACTIVITY_FLAG_MARKER_START, 10, kT0 + 6'000, "never closed"));
  EXPECT_EQ(dispatcher.handle_buffer(second.data(), second.size(), synthetic_next), 2u);
  ASSERT_EQ(sink.markers.size(), 1u);
  EXPECT_EQ(sink.markers[0].name, "user range");
  EXPECT_EQ(sink.markers[0].end_ns - sink.markers[0].start_ns, 4'950);
  dispatcher.finish();
  EXPECT_EQ(sink.notes, std::vector<std::string>{"1 NVTX ranges were still open when recording stopped"});
}

TEST(CuptiDispatch, DevicesKnownFromTheDriverServeKernelsToo) {
  CountingSink sink;
  ActivityDispatcher dispatcher(sink, fake_namer);
  dispatcher.add_device(DeviceRecord{DeviceInfo{1, "NVIDIA H200", 0, 9, 0, 66}});
  EXPECT_EQ(sink.devices, 1);
  SyntheticBuffer b;
  b.add(kernel(1, 7, 3, kT0));
  (void)dispatcher.handle_buffer(b.data(), b.size(), synthetic_next);
  ASSERT_EQ(sink.kernels.size(), 1u);
  EXPECT_EQ(sink.kernels[0].detail.blocks_per_sm_x100, 400);  // 264 blocks on 66 SMs
}

// One cudaGraphLaunch and the kernels of its graph, as CUPTI delivers them: every kernel carries the launch's
// correlation id and its graph and node ids; in the trace the launch has a flow to each of them.
TEST(CuptiDispatch, GraphLaunchJoinsEveryKernelOfItsGraph) {
  TraceRecorder recorder(static_cast<UnixNs>(kT0));
  ActivityDispatcher dispatcher(recorder, fake_namer);
  SyntheticBuffer b;
  b.add(api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000, 50, kT0 + 100));
  for (std::uint32_t node = 1; node <= 3; ++node) {
    KernelActivity k = kernel(0, 7, 50, kT0 + node * 2'000);
    k.graphId = 4;
    k.graphNodeId = node;
    b.add(k);
  }
  EXPECT_EQ(dispatcher.handle_buffer(b.data(), b.size(), synthetic_next), 4u);
  Expected<Trace> trace = recorder.finish();
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  ASSERT_EQ(trace->flows().size(), 3u);
  const EventRef launch = trace->flows().front().from;
  EXPECT_EQ(trace->name(trace->event(launch)),
            "runtime#" + std::to_string(CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000));
  const std::vector<Flow> launched = trace->flows_from(launch);
  ASSERT_EQ(launched.size(), 3u);
  for (std::size_t i = 0; i < launched.size(); ++i) {
    const KernelDetail* k = trace->kernel_detail(trace->event(launched[i].to));
    ASSERT_NE(k, nullptr);
    EXPECT_EQ(k->graph_id, 4u);
    EXPECT_EQ(k->graph_node_id, i + 1);
  }
}

TEST(CuptiDispatch, BuffersCompletingOnSeveralThreadsAtOnceLoseNothing) {
  TraceRecorder recorder(static_cast<UnixNs>(kT0));
  ActivityDispatcher dispatcher(recorder, fake_namer);
  constexpr int kThreads = 4, kBuffers = 50;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&dispatcher, t] {
      for (int i = 0; i < kBuffers; ++i) {
        const auto id = static_cast<std::uint32_t>(t * kBuffers + i + 1);
        SyntheticBuffer b;
        b.add(kernel(0, 7, id, kT0 + id * 10'000));
        b.add(api(CUPTI_ACTIVITY_KIND_RUNTIME, 211, id, kT0 + id * 10'000 - 5'000));
        b.add(marker(CUPTI_ACTIVITY_FLAG_MARKER_START, id, kT0 + id * 10'000, "range"));
        b.add(marker(CUPTI_ACTIVITY_FLAG_MARKER_END, id, kT0 + id * 10'000 + 1, nullptr));
        (void)dispatcher.handle_buffer(b.data(), b.size(), synthetic_next);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(dispatcher.delivered(), static_cast<std::size_t>(4 * kThreads * kBuffers));
  Expected<Trace> trace = recorder.finish();
  ASSERT_TRUE(trace.ok());
  EXPECT_EQ(trace->flows().size(), static_cast<std::size_t>(kThreads * kBuffers));
  EXPECT_EQ(trace->event_count(), static_cast<std::size_t>(3 * kThreads * kBuffers));  // kernel, API, marker
}

TEST(CuptiDispatch, EmptyAndMissingBuffersDeliverNothing) {
  CountingSink sink;
  ActivityDispatcher dispatcher(sink, fake_namer);
  SyntheticBuffer empty;
  EXPECT_EQ(dispatcher.handle_buffer(empty.data(), 0, synthetic_next), 0u);
  EXPECT_EQ(dispatcher.handle_buffer(nullptr, 128, synthetic_next), 0u);
  EXPECT_EQ(dispatcher.delivered(), 0u);
}

SyntheticBuffer all_other_kinds_buffer() {
  SyntheticBuffer b;
  PeerMemcpyActivity peer{};
  peer.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
  b.add(peer);
  MemsetActivity set{};
  set.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  b.add(set);
  SyncActivity sync{};
  sync.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
  b.add(sync);
  CudaEventActivity event_record{};
  event_record.kind = CUPTI_ACTIVITY_KIND_CUDA_EVENT;
  b.add(event_record);
  OverheadActivity overhead{};
  overhead.kind = CUPTI_ACTIVITY_KIND_OVERHEAD;
  b.add(overhead);
  ContextActivity context{};
  context.kind = CUPTI_ACTIVITY_KIND_CONTEXT;
  b.add(context);
  MemoryActivity memory{};
  memory.kind = CUPTI_ACTIVITY_KIND_MEMORY2;
  memory.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION;
  b.add(memory);
  return b;
}

TEST(CuptiDispatch, OneSwitchCoversEveryEnabledKind) {
  CountingSink sink;
  ActivityDispatcher dispatcher(sink, fake_namer);
  SyntheticBuffer b = all_other_kinds_buffer();
  EXPECT_EQ(dispatcher.handle_buffer(b.data(), b.size(), synthetic_next), 7u);
  EXPECT_EQ(sink.memcpys, 1);
  EXPECT_EQ(sink.memsets, 1);
  EXPECT_EQ(sink.syncs, 1);
  EXPECT_EQ(sink.event_records, 1);
  EXPECT_EQ(sink.overheads, 1);
  EXPECT_EQ(sink.contexts, 1);
  EXPECT_EQ(sink.memory, 1);
}

TEST(CuptiDispatch, BuffersIntoATraceJoinLaunchesToKernels) {
  TraceRecorder recorder(static_cast<UnixNs>(kT0));
  ActivityDispatcher dispatcher(recorder, fake_namer);
  SyntheticBuffer gpu;  // the GPU buffer completes before the host one
  gpu.add(kernel(0, 7, 1, kT0 + 2'000));
  gpu.add(kernel(1, 13, 2, kT0 + 2'100));
  SyntheticBuffer host;
  host.add(api(CUPTI_ACTIVITY_KIND_RUNTIME, 211, 1, kT0 + 100));
  host.add(api(CUPTI_ACTIVITY_KIND_RUNTIME, 211, 2, kT0 + 700));
  (void)dispatcher.handle_buffer(gpu.data(), gpu.size(), synthetic_next);
  (void)dispatcher.handle_buffer(host.data(), host.size(), synthetic_next);
  Expected<Trace> trace = recorder.finish();
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  ASSERT_EQ(trace->flows().size(), 2u);
  for (const Flow& f : trace->flows()) {
    EXPECT_EQ(trace->event(f.from).kind, EventKind::Runtime);
    EXPECT_EQ(trace->event(f.to).kind, EventKind::Kernel);
    EXPECT_EQ(trace->lane(f.to.lane).device(), static_cast<std::int64_t>(f.correlation_id) - 1);
  }
  auto host_lane = trace->find_lane(host_lane_key(1234, 0xfffffff5ll));
  ASSERT_TRUE(host_lane);
  EXPECT_EQ(trace->lane(*host_lane).events[0].start_ns, 100);
}

SyncActivity sync_activity(CUpti_ActivitySynchronizationType type, std::uint32_t stream, std::uint32_t corr,
                           std::uint64_t start) {
  SyncActivity s{};
  s.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
  s.type = type;
  s.start = start;
  s.end = start + 100;
  s.correlationId = corr;
  s.streamId = stream;
  s.cudaEventId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
  s.cudaEventSyncId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
  return s;
}

// cudaEventRecord(e, stream 7) after a kernel on stream 7; cudaStreamWaitEvent(stream 22, e) and then a kernel on
// stream 22; cudaEventSynchronize(e) on the host. CUPTI ties the waits to the record by its cudaEventSyncId.
TEST(CuptiDispatch, EventRecordsAndSynchronizationsBecomeDependencyLinks) {
  TraceRecorder recorder(static_cast<UnixNs>(kT0));
  ActivityDispatcher dispatcher(recorder, fake_namer);
  SyntheticBuffer gpu;
  gpu.add(kernel(0, 7, 1, kT0 + 1'000));   // the work the event marks (ends at 2'000)
  gpu.add(kernel(0, 22, 4, kT0 + 2'100));  // the first work on stream 22 after the wait
  SyntheticBuffer host;
  host.add(api(CUPTI_ACTIVITY_KIND_RUNTIME, 211, 1, kT0 + 100));
  CudaEventActivity record{};
  record.kind = CUPTI_ACTIVITY_KIND_CUDA_EVENT;
  record.correlationId = 2;
  record.streamId = 7;
  record.eventId = 3;
  record.cudaEventSyncId = 1'001;
  host.add(record);
  host.add(api(CUPTI_ACTIVITY_KIND_RUNTIME, 147, 3, kT0 + 700));  // cudaStreamWaitEvent
  SyncActivity wait = sync_activity(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT, 22, 3, kT0 + 710);
  wait.cudaEventId = 3;
  wait.cudaEventSyncId = 1'001;
  host.add(wait);
  host.add(api(CUPTI_ACTIVITY_KIND_RUNTIME, 211, 4, kT0 + 900));
  host.add(api(CUPTI_ACTIVITY_KIND_RUNTIME, 130, 5, kT0 + 1'100));  // cudaEventSynchronize
  SyncActivity host_wait = sync_activity(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE,
                                         CUPTI_SYNCHRONIZATION_INVALID_VALUE, 5, kT0 + 1'110);
  host_wait.cudaEventId = 3;
  host_wait.cudaEventSyncId = 1'001;
  host.add(host_wait);
  (void)dispatcher.handle_buffer(host.data(), host.size(), synthetic_next);
  (void)dispatcher.handle_buffer(gpu.data(), gpu.size(), synthetic_next);
  Expected<Trace> trace = recorder.finish();
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  ASSERT_EQ(trace->dependencies().size(), 2u);
  const Flow& stream_wait = trace->dependencies()[0];
  EXPECT_EQ(trace->event(stream_wait.from).correlation_id, 1u);
  EXPECT_EQ(trace->lane(stream_wait.from.lane).stream(), 7);
  EXPECT_EQ(trace->event(stream_wait.to).correlation_id, 4u);
  EXPECT_EQ(trace->lane(stream_wait.to.lane).stream(), 22);
  const Flow& host_sync = trace->dependencies()[1];
  EXPECT_EQ(host_sync.from, stream_wait.from);
  EXPECT_EQ(trace->event(host_sync.to).kind, EventKind::Sync);
  EXPECT_EQ(trace->name(trace->event(host_sync.to)), "Event Sync");
  EXPECT_EQ(trace->event(host_sync.to).start_ns, 1'110);
  EXPECT_EQ(trace->flows().size(), 2u);  // the two launches, apart from the dependencies
}

}  // namespace
}  // namespace gtv::collect::cupti

namespace gtv::collect::cupti {
namespace {

// CUPTI's own iterator and callback names work without a GPU, so the production walk is checked here too:
// this also proves the synthetic layout above matches what CUPTI expects for these struct versions.
TEST(CuptiDispatch, CuptisOwnIteratorAndNamesWalkTheSameBuffer) {
  CountingSink sink;
  ActivityDispatcher dispatcher(sink, cached_api_namer());
  SyntheticBuffer buffer = mixed_buffer();
  EXPECT_EQ(dispatcher.handle_buffer(buffer.data(), buffer.size(), cuptiActivityGetNextRecord), 6u);
  EXPECT_EQ(dispatcher.ignored(), 1u);
  ASSERT_EQ(sink.apis.size(), 2u);
  EXPECT_EQ(sink.apis[0].name, "cudaLaunchKernel");  // CUPTI says "cudaLaunchKernel_v7000"
  EXPECT_EQ(sink.apis[1].name, "cuCtxSynchronize");
  ASSERT_EQ(sink.kernels.size(), 1u);
  EXPECT_EQ(sink.kernels[0].name, "gemm");
  EXPECT_EQ(sink.kernels[0].correlation_id, 1u);
  SyntheticBuffer others = all_other_kinds_buffer();
  EXPECT_EQ(dispatcher.handle_buffer(others.data(), others.size(), cuptiActivityGetNextRecord), 7u);
  EXPECT_EQ(sink.memcpys, 2);  // one in each buffer
  EXPECT_EQ(sink.memsets, 1);
  EXPECT_EQ(sink.syncs, 1);
  EXPECT_EQ(sink.event_records, 1);
  EXPECT_EQ(sink.overheads, 1);
  EXPECT_EQ(sink.contexts, 1);
  EXPECT_EQ(sink.memory, 1);
}

}  // namespace
}  // namespace gtv::collect::cupti

// The pieces of gtv-cli record's recorder, CUPTI aside: NVTX ranges reach the trace as ranges on the host lane of
// the thread that pushed them, beside that thread's API calls; gtv's own domain is left out.
namespace gtv::collect::cupti {
namespace {

TEST(RecordPipeline, NvtxRangesBecomeRangesOnTheirThreadsHostLane) {
  TraceRecorder recorder(static_cast<UnixNs>(kT0));
  ActivityDispatcher dispatcher(recorder, fake_namer);
  SyntheticBuffer b;
  b.add(marker(CUPTI_ACTIVITY_FLAG_MARKER_START, 3, kT0 + 1'000, "train step"));
  b.add(api(CUPTI_ACTIVITY_KIND_RUNTIME, 211, 1, kT0 + 2'000));
  b.add(kernel(0, 7, 1, kT0 + 3'000));
  MarkerActivity own = marker(CUPTI_ACTIVITY_FLAG_MARKER_START, 4, kT0 + 1'500, "gtv range");
  own.domain = "gtv";
  b.add(own);
  b.add(marker(CUPTI_ACTIVITY_FLAG_MARKER_END, 4, kT0 + 1'600, nullptr));
  SyntheticBuffer later;  // the end arrives in another buffer
  later.add(marker(CUPTI_ACTIVITY_FLAG_MARKER_END, 3, kT0 + 9'000, nullptr));
  later.add(marker(CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS, 5, kT0 + 9'500, "checkpoint"));
  (void)dispatcher.handle_buffer(b.data(), b.size(), synthetic_next);
  (void)dispatcher.handle_buffer(later.data(), later.size(), synthetic_next);
  dispatcher.finish();
  Expected<Trace> trace = recorder.finish();
  ASSERT_TRUE(trace.ok()) << trace.error().message;
  const auto lane = trace->find_lane(host_lane_key(1234, 0xfffffff5u));
  ASSERT_TRUE(lane.has_value());
  std::vector<std::string> names;
  for (const Event& e : trace->lane(*lane).events) {
    const std::string name(trace->name(e));
    names.push_back(name);
    if (name == "train step") {
      EXPECT_EQ(e.kind, EventKind::Annotation);
      EXPECT_EQ(e.start_ns, 1'000);
      EXPECT_EQ(e.duration_ns, 8'000);
      EXPECT_EQ(e.depth, 0);
    } else if (name == "runtime#211") {
      EXPECT_EQ(e.depth, 1);  // inside the range that was open around it
    } else if (name == "checkpoint") {
      EXPECT_EQ(e.kind, EventKind::Instant);
    }
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"checkpoint", "runtime#211", "train step"}));
}

CUpti_NvtxData nvtx_data(const void* params, const void* returned = nullptr) {
  CUpti_NvtxData d{};
  d.functionName = "nvtx";
  d.functionParams = params;
  d.functionReturnValue = returned;
  return d;
}

// The capture range nvtx:step as the recorder runs it: CUPTI's NVTX callbacks move the gate while the program
// runs, the buffers arrive later and only what started inside a range named "step" reaches the trace.
TEST(RecordPipeline, NvtxCallbacksGateWhatTheTraceKeeps) {
  CaptureGate gate;
  NvtxRangeWatch watch("step");
  const CaptureWatch capture{&gate, false, &watch};
  nvtxRangePushA_params other{"forward"};
  apply_nvtx_call(capture, CUPTI_CBID_NVTX_nvtxRangePushA, nvtx_data(&other), 5, kT0 + 100);
  nvtxRangePushA_params step{"step"};
  apply_nvtx_call(capture, CUPTI_CBID_NVTX_nvtxRangePushA, nvtx_data(&step), 5, kT0 + 1'000);
  nvtxRangePop_params pop{};
  apply_nvtx_call(capture, CUPTI_CBID_NVTX_nvtxRangePop, nvtx_data(&pop), 5, kT0 + 5'000);
  apply_nvtx_call(capture, CUPTI_CBID_NVTX_nvtxRangePop, nvtx_data(&pop), 5, kT0 + 5'500);  // "forward"
  nvtxEventAttributes_t attributes{};
  attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
  attributes.message.ascii = "step";
  nvtxDomainRangeStartEx_params start{nullptr, {&attributes}};
  const nvtxRangeId_t id = 77;
  apply_nvtx_call(capture, CUPTI_CBID_NVTX_nvtxDomainRangeStartEx, nvtx_data(&start, &id), 6, kT0 + 20'000);
  nvtxDomainRangeEnd_params end{nullptr, {id}};
  apply_nvtx_call(capture, CUPTI_CBID_NVTX_nvtxDomainRangeEnd, nvtx_data(&end), 6, kT0 + 30'000);
  EXPECT_EQ(gate.window_count(), 2u);

  TraceRecorder recorder(static_cast<UnixNs>(kT0));
  CaptureSink sink(recorder, gate, 1'000);
  ActivityDispatcher dispatcher(sink, fake_namer);
  SyntheticBuffer b;
  for (std::uint64_t at : {500, 2'000, 4'999, 6'000, 25'000, 31'000}) b.add(kernel(0, 7, 0, kT0 + at));
  EXPECT_EQ(dispatcher.handle_buffer(b.data(), b.size(), synthetic_next), 6u);
  EXPECT_EQ(sink.kept(), 3);
  EXPECT_EQ(sink.outside(), 3);
  Expected<Trace> trace = recorder.finish();
  ASSERT_TRUE(trace.ok());
  std::vector<TimeNs> starts;
  for (const Lane& lane : trace->lanes())
    for (const Event& e : lane.events) starts.push_back(e.start_ns);
  std::sort(starts.begin(), starts.end());
  EXPECT_EQ(starts, (std::vector<TimeNs>{2'000, 4'999, 25'000}));
}

TEST(RecordPipeline, ProfilerApiOpensAtTheEndOfStartAndClosesAtTheStartOfStop) {
  CaptureGate gate;
  const CaptureWatch capture{&gate, true, nullptr};
  apply_driver_call(capture, CUPTI_DRIVER_TRACE_CBID_cuProfilerStart, CUPTI_API_ENTER, kT0 + 10);
  EXPECT_EQ(gate.window_count(), 0u);
  apply_driver_call(capture, CUPTI_DRIVER_TRACE_CBID_cuProfilerStart, CUPTI_API_EXIT, kT0 + 20);
  apply_driver_call(capture, CUPTI_DRIVER_TRACE_CBID_cuProfilerStop, CUPTI_API_EXIT, kT0 + 50);  // not the edge
  EXPECT_TRUE(gate.contains(kT0 + 60));
  apply_driver_call(capture, CUPTI_DRIVER_TRACE_CBID_cuProfilerStop, CUPTI_API_ENTER, kT0 + 70);
  EXPECT_FALSE(gate.contains(kT0 + 15));
  EXPECT_TRUE(gate.contains(kT0 + 20));
  EXPECT_FALSE(gate.contains(kT0 + 70));
  EXPECT_EQ(capture_callbacks(capture).size(), 2u);
  EXPECT_EQ(capture_callbacks(CaptureWatch{&gate, false, nullptr}).size(), 0u);
  NvtxRangeWatch nvtx("x");
  EXPECT_EQ(capture_callbacks(CaptureWatch{&gate, false, &nvtx}).size(), 10u);
  EXPECT_EQ(capture_callbacks(CaptureWatch{}).size(), 0u);
}

}  // namespace
}  // namespace gtv::collect::cupti
