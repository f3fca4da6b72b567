// Raw CUPTI records (filled by hand, as CUDA 13's CUPTI lays them out) -> gtv records. No GPU needed.
#include <gtest/gtest.h>
#include <pthread.h>

#include "gtv/collect/thread_id.h"
#include "record_conversion.h"

namespace gtv::collect::cupti {
namespace {

constexpr std::uint64_t kT0 = 1'764'470'000'000'000'000ull;

KernelActivity make_kernel() {
  KernelActivity k{};
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.start = kT0 + 1'000;
  k.end = kT0 + 26'000;
  k.deviceId = 1;
  k.contextId = 3;
  k.streamId = 7;
  k.correlationId = 4242;
  k.gridX = 264;
  k.gridY = 1;
  k.gridZ = 1;
  k.blockX = 128;
  k.blockY = 2;
  k.blockZ = 1;
  k.registersPerThread = 96;
  k.staticSharedMemory = 1024;
  k.dynamicSharedMemory = 48 * 1024;
  k.name = "_Z6matmulPKfS0_Pfi";
  return k;
}

TEST(CuptiConversion, KernelFieldsAndDemangledName) {
  const KernelRecord r = to_kernel_record(make_kernel(), 132);
  EXPECT_EQ(r.name, "matmul(float const*, float const*, float*, int)");
  EXPECT_EQ(r.start_ns, static_cast<UnixNs>(kT0 + 1'000));
  EXPECT_EQ(r.end_ns, static_cast<UnixNs>(kT0 + 26'000));
  EXPECT_EQ(r.device, 1);
  EXPECT_EQ(r.context_id, 3u);
  EXPECT_EQ(r.stream, 7);
  EXPECT_EQ(r.correlation_id, 4242u);
  KernelDetail expected;
  expected.grid[0] = 264;
  expected.grid[1] = expected.grid[2] = 1;
  expected.block[0] = 128;
  expected.block[1] = 2;
  expected.block[2] = 1;
  expected.registers_per_thread = 96;
  expected.shared_memory_bytes = 1024 + 48 * 1024;
  expected.blocks_per_sm_x100 = 200;  // 264 blocks on 132 SMs
  EXPECT_EQ(r.detail, expected);
}

// A kernel run by a CUDA graph launch names its graph and node; its correlation id is the cudaGraphLaunch's.
TEST(CuptiConversion, GraphKernelKeepsItsGraphAndNodeIds) {
  KernelActivity k = make_kernel();
  k.graphId = 3;
  k.graphNodeId = 0x1'0000'0011ull;  // node ids are 64-bit
  k.correlationId = 977;
  const KernelRecord r = to_kernel_record(k, 132);
  EXPECT_EQ(r.detail.graph_id, 3u);
  EXPECT_EQ(r.detail.graph_node_id, 0x1'0000'0011ull);
  EXPECT_TRUE(r.detail.launched_by_graph());
  EXPECT_EQ(r.correlation_id, 977u);
  // A kernel launched on its own: CUPTI reports 0 for both.
  const KernelRecord plain = to_kernel_record(make_kernel(), 132);
  EXPECT_EQ(plain.detail.graph_id, 0u);
  EXPECT_EQ(plain.detail.graph_node_id, 0u);
  EXPECT_FALSE(plain.detail.launched_by_graph());
}

TEST(CuptiConversion, KernelWithoutSmCountOrValidStreamOrMangledName) {
  KernelActivity k = make_kernel();
  k.streamId = CUPTI_INVALID_STREAM_ID;
  k.name = "plain_c_kernel";
  const KernelRecord r = to_kernel_record(k, 0);
  EXPECT_EQ(r.name, "plain_c_kernel");
  EXPECT_EQ(r.stream, -1);
  EXPECT_EQ(r.detail.blocks_per_sm_x100, 0);
  k.name = nullptr;
  EXPECT_EQ(to_kernel_record(k, 0).name, "");
}

TEST(CuptiConversion, MemcpyKindsAndPageableVersusPinned) {
  MemcpyActivity m{};
  m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
  m.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  m.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
  m.bytes = 40'000;
  m.start = kT0 + 5;
  m.end = kT0 + 905;
  m.deviceId = 0;
  m.streamId = 7;
  m.correlationId = 12;
  m.runtimeCorrelationId = 11;
  MemcpyRecord r = to_memcpy_record(m);
  EXPECT_EQ(r.detail, (MemcpyDetail{40'000, CopyKind::DeviceToHost, MemoryKind::Device, MemoryKind::Pageable, -1}));
  EXPECT_EQ(r.correlation_id, 12u);
  EXPECT_EQ(r.end_ns - r.start_ns, 900);
  m.correlationId = 0;  // only the runtime correlation known
  m.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
  r = to_memcpy_record(m);
  EXPECT_EQ(r.correlation_id, 11u);
  EXPECT_EQ(r.detail.dst_kind, MemoryKind::Pinned);
}

TEST(CuptiConversion, PeerCopyKeepsBothDevices) {
  PeerMemcpyActivity m{};
  m.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
  m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
  m.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  m.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  m.bytes = 1 << 20;
  m.start = kT0;
  m.end = kT0 + 50;
  m.deviceId = 0;
  m.srcDeviceId = 0;
  m.dstDeviceId = 1;
  m.streamId = 13;
  m.correlationId = 99;
  const MemcpyRecord r = to_memcpy_record(m);
  EXPECT_EQ(r.detail, (MemcpyDetail{1 << 20, CopyKind::PeerToPeer, MemoryKind::Device, MemoryKind::Device, 1}));
  EXPECT_EQ(r.device, 0);
  EXPECT_EQ(r.stream, 13);
  m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOD;  // a device-to-device copy between two devices is still peer
  EXPECT_EQ(to_memcpy_record(m).detail.copy_kind, CopyKind::PeerToPeer);
}

TEST(CuptiConversion, Memset) {
  MemsetActivity m{};
  m.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  m.value = 0;
  m.bytes = 4096;
  m.start = kT0 + 1;
  m.end = kT0 + 3;
  m.deviceId = 1;
  m.streamId = 7;
  m.correlationId = 5;
  m.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  const MemsetRecord r = to_memset_record(m);
  EXPECT_EQ(r.detail, (MemsetDetail{4096, MemoryKind::Device, 0}));
  EXPECT_EQ(r.device, 1);
  EXPECT_EQ(r.correlation_id, 5u);
}

TEST(CuptiConversion, ApiCallMapsCuptiThreadIdToTheOsTid) {
  register_current_thread();
  CUpti_ActivityAPI a{};
  a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
  a.cbid = 211;
  a.start = kT0 + 10;
  a.end = kT0 + 20;
  a.processId = 1234;
  a.threadId = static_cast<std::uint32_t>(static_cast<std::uint64_t>(::pthread_self()));
  a.correlationId = 77;
  a.returnValue = 0;
  const ApiCallRecord r = to_api_record(a, ApiKind::Runtime, "cudaLaunchKernel");
  EXPECT_EQ(r.name, "cudaLaunchKernel");
  EXPECT_EQ(r.api, ApiKind::Runtime);
  EXPECT_EQ(r.cbid, 211u);
  EXPECT_EQ(r.pid, 1234);
  EXPECT_EQ(r.tid, current_tid());
  EXPECT_EQ(r.correlation_id, 77u);
  EXPECT_EQ(r.end_ns - r.start_ns, 10);
}

TEST(CuptiConversion, ApiNamesLoseTheRuntimeVersionSuffixOnly) {
  EXPECT_EQ(api_name_from_callback_name("cudaLaunchKernel_v7000"), "cudaLaunchKernel");
  EXPECT_EQ(api_name_from_callback_name("cudaMemcpyAsync_ptsz_v7000"), "cudaMemcpyAsync_ptsz");
  EXPECT_EQ(api_name_from_callback_name("cudaStreamIsCapturing_v10000"), "cudaStreamIsCapturing");
  EXPECT_EQ(api_name_from_callback_name("cuMemcpyDtoHAsync_v2"), "cuMemcpyDtoHAsync_v2");
  EXPECT_EQ(api_name_from_callback_name("cuLaunchKernel"), "cuLaunchKernel");
  EXPECT_EQ(api_name_from_callback_name("cuda_vx1234"), "cuda_vx1234");
  EXPECT_EQ(fallback_api_name(ApiKind::Driver, 17), "driver API 17");
}

TEST(CuptiConversion, SynchronizationTypes) {
  SyncActivity s{};
  s.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
  s.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
  s.start = kT0 + 100;
  s.end = kT0 + 400;
  s.correlationId = 9;
  s.contextId = 1;
  s.streamId = 7;
  SyncRecord r = to_sync_record(s);
  EXPECT_EQ(r.kind, SyncKind::StreamSynchronize);
  EXPECT_EQ(r.correlation_id, 9u);
  EXPECT_EQ(r.stream, 7);
  EXPECT_EQ(r.end_ns - r.start_ns, 300);
  EXPECT_EQ(sync_kind_from_cupti(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE), SyncKind::EventSynchronize);
  EXPECT_EQ(sync_kind_from_cupti(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT), SyncKind::StreamWaitEvent);
  EXPECT_EQ(sync_kind_from_cupti(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE),
            SyncKind::ContextSynchronize);
  EXPECT_EQ(sync_kind_from_cupti(12345), SyncKind::Unknown);
  EXPECT_EQ(r.cuda_event, kUnknownCudaEvent);  // a stream synchronize waits on no event (the id 0 is not read)
  EXPECT_EQ(r.event_sync_id, kNoEventSyncId);
  s.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE;
  s.cudaEventId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
  s.cudaEventSyncId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
  EXPECT_EQ(to_sync_record(s).cuda_event, kUnknownCudaEvent);
  EXPECT_EQ(to_sync_record(s).event_sync_id, kNoEventSyncId);
}

TEST(CuptiConversion, EventWaitsAndEventRecordsCarryTheEventAndItsSyncId) {
  SyncActivity wait{};
  wait.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
  wait.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT;
  wait.start = kT0 + 100;
  wait.end = kT0 + 110;
  wait.correlationId = 12;
  wait.streamId = 22;
  wait.cudaEventId = 5;
  wait.cudaEventSyncId = 77;
  const SyncRecord w = to_sync_record(wait);
  EXPECT_EQ(w.kind, SyncKind::StreamWaitEvent);
  EXPECT_EQ(w.stream, 22);
  EXPECT_EQ(w.cuda_event, 5);
  EXPECT_EQ(w.event_sync_id, 77u);
  CudaEventActivity record{};
  record.kind = CUPTI_ACTIVITY_KIND_CUDA_EVENT;
  record.correlationId = 11;
  record.contextId = 1;
  record.streamId = 7;
  record.eventId = 5;
  record.deviceId = 1;
  record.cudaEventSyncId = 77;
  const CudaEventRecord e = to_event_record(record);
  EXPECT_EQ(e.correlation_id, 11u);
  EXPECT_EQ(e.context_id, 1u);
  EXPECT_EQ(e.stream, 7);
  EXPECT_EQ(e.cuda_event, 5);
  EXPECT_EQ(e.device, 1);
  EXPECT_EQ(e.event_sync_id, 77u);
  record.cudaEventSyncId = ~std::uint64_t{0};
  EXPECT_EQ(to_event_record(record).event_sync_id, kNoEventSyncId);
}

TEST(CuptiConversion, CopyAndMemoryKindTables) {
  EXPECT_EQ(copy_kind_from_cupti(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD), CopyKind::HostToDevice);
  EXPECT_EQ(copy_kind_from_cupti(CUPTI_ACTIVITY_MEMCPY_KIND_HTOA), CopyKind::HostToDevice);
  EXPECT_EQ(copy_kind_from_cupti(CUPTI_ACTIVITY_MEMCPY_KIND_ATOH), CopyKind::DeviceToHost);
  EXPECT_EQ(copy_kind_from_cupti(CUPTI_ACTIVITY_MEMCPY_KIND_ATOD), CopyKind::DeviceToDevice);
  EXPECT_EQ(copy_kind_from_cupti(CUPTI_ACTIVITY_MEMCPY_KIND_HTOH), CopyKind::HostToHost);
  EXPECT_EQ(copy_kind_from_cupti(CUPTI_ACTIVITY_MEMCPY_KIND_UNKNOWN), CopyKind::Unknown);
  EXPECT_EQ(memory_kind_from_cupti(CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE), MemoryKind::Pageable);
  EXPECT_EQ(memory_kind_from_cupti(CUPTI_ACTIVITY_MEMORY_KIND_PINNED), MemoryKind::Pinned);
  EXPECT_EQ(memory_kind_from_cupti(CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC), MemoryKind::Device);
  EXPECT_EQ(memory_kind_from_cupti(CUPTI_ACTIVITY_MEMORY_KIND_ARRAY), MemoryKind::Device);
  EXPECT_EQ(memory_kind_from_cupti(CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC), MemoryKind::Managed);
  EXPECT_EQ(memory_kind_from_cupti(999), MemoryKind::Unknown);
}

TEST(CuptiConversion, OverheadOnAThreadOrOnADevice) {
  OverheadActivity o{};
  o.kind = CUPTI_ACTIVITY_KIND_OVERHEAD;
  o.overheadKind = CUPTI_ACTIVITY_OVERHEAD_LAZY_FUNCTION_LOADING;
  o.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
  o.objectId.pt.processId = 1234;
  o.objectId.pt.threadId = 0xfffffff3u;  // an id no thread registered: kept as given
  o.start = kT0;
  o.end = kT0 + 70;
  OverheadRecord r = to_overhead_record(o);
  EXPECT_EQ(r.name, "lazy function loading");
  EXPECT_TRUE(r.on_host);
  EXPECT_EQ(r.pid, 1234);
  EXPECT_EQ(r.tid, 0xfffffff3ll);
  o.overheadKind = CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH;
  o.objectKind = CUPTI_ACTIVITY_OBJECT_DEVICE;
  o.objectId.dcs.deviceId = 1;
  r = to_overhead_record(o);
  EXPECT_EQ(r.name, "CUPTI buffer flush");
  EXPECT_FALSE(r.on_host);
  EXPECT_EQ(r.device, 1);
  EXPECT_EQ(r.stream, -1);
}

TEST(CuptiConversion, DeviceAndContext) {
  DeviceActivity d{};
  d.kind = CUPTI_ACTIVITY_KIND_DEVICE;
  d.id = 1;
  d.name = "NVIDIA H200";
  d.globalMemorySize = 150'121'971'712ull;
  d.computeCapabilityMajor = 9;
  d.computeCapabilityMinor = 0;
  d.numMultiprocessors = 132;
  EXPECT_EQ(to_device_record(d).info, (DeviceInfo{1, "NVIDIA H200", 150'121'971'712, 9, 0, 132}));
  ContextActivity c{};
  c.kind = CUPTI_ACTIVITY_KIND_CONTEXT;
  c.contextId = 4;
  c.deviceId = 1;
  c.nullStreamId = 7;
  const ContextRecord r = to_context_record(c);
  EXPECT_EQ(r.context_id, 4u);
  EXPECT_EQ(r.device, 1);
  EXPECT_EQ(r.null_stream, 7);
}

TEST(CuptiConversion, MemoryAllocationsAndReleases) {
  MemoryActivity m{};
  m.kind = CUPTI_ACTIVITY_KIND_MEMORY2;
  m.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION;
  m.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  m.bytes = 2'400'000'000ull;
  m.address = 0x7f0000000000ull;
  m.timestamp = kT0 + 5;
  m.deviceId = 1;
  m.processId = 1234;
  auto r = to_memory_record(m);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->operation, MemoryOperation::Allocate);
  EXPECT_EQ(r->memory_kind, MemoryKind::Device);
  EXPECT_EQ(r->bytes, 2'400'000'000);
  EXPECT_EQ(r->device, 1);
  EXPECT_EQ(r->pid, 1234);
  m.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE;
  EXPECT_EQ(to_memory_record(m)->operation, MemoryOperation::Release);
  m.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_INVALID;
  EXPECT_FALSE(to_memory_record(m));
}

MarkerActivity marker(std::uint32_t flags, std::uint32_t id, std::uint64_t t, const char* name) {
  MarkerActivity m{};
  m.kind = CUPTI_ACTIVITY_KIND_MARKER;
  m.flags = static_cast<CUpti_ActivityFlag>(flags);
  m.id = id;
  m.timestamp = t;
  m.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
  m.objectId.pt.processId = 1234;
  m.objectId.pt.threadId = 0xfffffff4u;
  m.name = name;
  return m;
}

TEST(CuptiConversion, MarkerStartAndEndArePairedById) {
  MarkerPairer pairer;
  EXPECT_FALSE(pairer.add(marker(CUPTI_ACTIVITY_FLAG_MARKER_START, 1, kT0 + 10, "forward")));
  EXPECT_FALSE(pairer.add(marker(CUPTI_ACTIVITY_FLAG_MARKER_START, 2, kT0 + 20, "inner")));
  EXPECT_EQ(pairer.open_count(), 2u);
  auto inner = pairer.add(marker(CUPTI_ACTIVITY_FLAG_MARKER_END, 2, kT0 + 30, nullptr));
  ASSERT_TRUE(inner);
  EXPECT_EQ(inner->name, "inner");
  EXPECT_EQ(inner->end_ns - inner->start_ns, 10);
  auto outer = pairer.add(marker(CUPTI_ACTIVITY_FLAG_MARKER_END, 1, kT0 + 90, nullptr));
  ASSERT_TRUE(outer);
  EXPECT_EQ(outer->name, "forward");
  EXPECT_EQ(outer->start_ns, static_cast<UnixNs>(kT0 + 10));
  EXPECT_EQ(outer->end_ns, static_cast<UnixNs>(kT0 + 90));
  EXPECT_EQ(outer->pid, 1234);
  EXPECT_EQ(outer->tid, 0xfffffff4ll);
  EXPECT_FALSE(outer->instant);
  EXPECT_EQ(pairer.open_count(), 0u);
}

TEST(CuptiConversion, InstantMarkersAndEndsWithoutStarts) {
  MarkerPairer pairer;
  auto instant = pairer.add(marker(CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS, 5, kT0 + 3, "tick"));
  ASSERT_TRUE(instant);
  EXPECT_TRUE(instant->instant);
  EXPECT_EQ(instant->start_ns, instant->end_ns);
  EXPECT_FALSE(pairer.add(marker(CUPTI_ACTIVITY_FLAG_MARKER_END, 6, kT0 + 4, nullptr)));
  EXPECT_EQ(pairer.orphan_end_count(), 1u);
  // Without flags, a name means a start and no name an end (what older CUPTI versions gave).
  EXPECT_FALSE(pairer.add(marker(0, 7, kT0 + 5, "unflagged")));
  auto done = pairer.add(marker(0, 7, kT0 + 8, nullptr));
  ASSERT_TRUE(done);
  EXPECT_EQ(done->name, "unflagged");
}

}  // namespace
}  // namespace gtv::collect::cupti
