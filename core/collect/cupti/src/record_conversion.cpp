#include "record_conversion.h"

#include <cxxabi.h>

#include <cmath>
#include <cstdlib>
#include <memory>

#include "gtv/collect/thread_id.h"
#include "gtv/model/cupti_kinds.h"

namespace gtv::collect::cupti {

// The model's table of CUPTI's kinds (gtv/model/cupti_kinds.h) holds CUPTI's numbers: checked against cupti.h here.
static_assert(
    CUPTI_ACTIVITY_MEMCPY_KIND_HTOD == cupti_kind::kHtoD && CUPTI_ACTIVITY_MEMCPY_KIND_DTOH == cupti_kind::kDtoH &&
    CUPTI_ACTIVITY_MEMCPY_KIND_HTOA == cupti_kind::kHtoA && CUPTI_ACTIVITY_MEMCPY_KIND_ATOH == cupti_kind::kAtoH &&
    CUPTI_ACTIVITY_MEMCPY_KIND_ATOA == cupti_kind::kAtoA && CUPTI_ACTIVITY_MEMCPY_KIND_ATOD == cupti_kind::kAtoD &&
    CUPTI_ACTIVITY_MEMCPY_KIND_DTOA == cupti_kind::kDtoA && CUPTI_ACTIVITY_MEMCPY_KIND_DTOD == cupti_kind::kDtoD &&
    CUPTI_ACTIVITY_MEMCPY_KIND_HTOH == cupti_kind::kHtoH && CUPTI_ACTIVITY_MEMCPY_KIND_PTOP == cupti_kind::kPtoP);
static_assert(CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE == cupti_kind::kPageable &&
              CUPTI_ACTIVITY_MEMORY_KIND_PINNED == cupti_kind::kPinned &&
              CUPTI_ACTIVITY_MEMORY_KIND_DEVICE == cupti_kind::kDevice &&
              CUPTI_ACTIVITY_MEMORY_KIND_ARRAY == cupti_kind::kArray &&
              CUPTI_ACTIVITY_MEMORY_KIND_MANAGED == cupti_kind::kManaged &&
              CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC == cupti_kind::kDeviceStatic &&
              CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC == cupti_kind::kManagedStatic);

CopyKind copy_kind_from_cupti(std::uint32_t kind) { return gtv::copy_kind_from_cupti(kind); }

MemoryKind memory_kind_from_cupti(std::uint32_t kind) { return gtv::memory_kind_from_cupti(kind); }

SyncKind sync_kind_from_cupti(std::uint32_t type) {
  switch (type) {
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE:
      return SyncKind::EventSynchronize;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT:
      return SyncKind::StreamWaitEvent;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE:
      return SyncKind::StreamSynchronize;
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE:
      return SyncKind::ContextSynchronize;
    default:
      return SyncKind::Unknown;
  }
}

std::string_view overhead_name(std::uint32_t kind) {
  switch (kind) {
    case CUPTI_ACTIVITY_OVERHEAD_DRIVER_COMPILER:
      return "driver compiler";
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH:
      return "CUPTI buffer flush";
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_INSTRUMENTATION:
      return "CUPTI instrumentation";
    case CUPTI_ACTIVITY_OVERHEAD_CUPTI_RESOURCE:
      return "CUPTI resource";
    case CUPTI_ACTIVITY_OVERHEAD_RUNTIME_TRIGGERED_MODULE_LOADING:
      return "module loading";
    case CUPTI_ACTIVITY_OVERHEAD_LAZY_FUNCTION_LOADING:
      return "lazy function loading";
    case CUPTI_ACTIVITY_OVERHEAD_COMMAND_BUFFER_FULL:
      return "command buffer full";
    case CUPTI_ACTIVITY_OVERHEAD_ACTIVITY_BUFFER_REQUEST:
      return "CUPTI buffer request";
    case CUPTI_ACTIVITY_OVERHEAD_UVM_ACTIVITY_INIT:
      return "UVM activity init";
    default:
      return "overhead";
  }
}

std::string demangle(const char* name) {
  if (name == nullptr) return {};
  int status = 0;
  std::unique_ptr<char, decltype(&std::free)> out(abi::__cxa_demangle(name, nullptr, nullptr, &status), &std::free);
  return status == 0 && out ? std::string(out.get()) : std::string(name);
}

std::string api_name_from_callback_name(std::string_view name) {
  const std::size_t at = name.rfind("_v");
  if (at == std::string_view::npos) return std::string(name);
  const std::string_view digits = name.substr(at + 2);
  const bool all_digits = digits.find_first_not_of("0123456789") == std::string_view::npos;
  if (!all_digits || digits.size() < 4) return std::string(name);
  return std::string(name.substr(0, at));
}

std::string fallback_api_name(ApiKind api, std::uint32_t cbid) {
  return std::string(api == ApiKind::Runtime ? "runtime API " : "driver API ") + std::to_string(cbid);
}

std::int64_t id_or_unknown(std::uint32_t cupti_id) {
  return cupti_id == CUPTI_INVALID_STREAM_ID ? -1 : static_cast<std::int64_t>(cupti_id);
}

// CUPTI marks a 64-bit event sync id "not applicable" with its 32-bit invalid value (or all ones): kNoEventSyncId,
// so that the wait is matched by its event id instead.
std::uint64_t event_sync_id_or_none(std::uint64_t cupti_id) {
  const bool invalid = cupti_id == CUPTI_SYNCHRONIZATION_INVALID_VALUE || cupti_id == ~std::uint64_t{0};
  return invalid ? kNoEventSyncId : cupti_id;
}

// The fields every GPU activity record carries (kernels, copies, memsets) under the same names in CUPTI.
template <typename Record, typename Activity>
void fill_gpu_activity(Record& r, const Activity& a) {
  r.start_ns = static_cast<UnixNs>(a.start);
  r.end_ns = static_cast<UnixNs>(a.end);
  r.device = static_cast<std::int32_t>(a.deviceId);
  r.context_id = a.contextId;
  r.stream = id_or_unknown(a.streamId);
  r.correlation_id = a.correlationId;
}

KernelRecord to_kernel_record(const KernelActivity& k, std::int32_t sm_count) {
  KernelRecord r;
  r.name = demangle(k.name);
  fill_gpu_activity(r, k);
  r.detail.grid[0] = k.gridX;
  r.detail.grid[1] = k.gridY;
  r.detail.grid[2] = k.gridZ;
  r.detail.block[0] = k.blockX;
  r.detail.block[1] = k.blockY;
  r.detail.block[2] = k.blockZ;
  r.detail.registers_per_thread = k.registersPerThread;
  r.detail.shared_memory_bytes = k.staticSharedMemory + k.dynamicSharedMemory;
  if (sm_count > 0) {
    const double blocks = static_cast<double>(k.gridX) * k.gridY * k.gridZ;
    r.detail.blocks_per_sm_x100 = static_cast<std::int32_t>(std::lround(100.0 * blocks / sm_count));
  }
  // Both 0 unless a graph launch ran the kernel; correlationId is then the cudaGraphLaunch's.
  r.detail.graph_id = k.graphId;
  r.detail.graph_node_id = k.graphNodeId;
  return r;
}

MemcpyRecord to_memcpy_record(const MemcpyActivity& m) {
  MemcpyRecord r;
  fill_gpu_activity(r, m);
  // correlationId joins the driver call; with driver tracing off CUPTI may give only the runtime one.
  if (m.correlationId == 0) r.correlation_id = m.runtimeCorrelationId;
  r.detail.bytes = static_cast<std::int64_t>(m.bytes);
  r.detail.copy_kind = copy_kind_from_cupti(m.copyKind);
  r.detail.src_kind = memory_kind_from_cupti(m.srcKind);
  r.detail.dst_kind = memory_kind_from_cupti(m.dstKind);
  return r;
}

MemcpyRecord to_memcpy_record(const PeerMemcpyActivity& m) {
  MemcpyRecord r;
  fill_gpu_activity(r, m);
  r.detail.bytes = static_cast<std::int64_t>(m.bytes);
  r.detail.copy_kind = copy_kind_from_cupti(m.copyKind);
  if (r.detail.copy_kind == CopyKind::Unknown || r.detail.copy_kind == CopyKind::DeviceToDevice)
    r.detail.copy_kind = CopyKind::PeerToPeer;  // MEMCPY2 records are copies between two devices
  r.detail.src_kind = memory_kind_from_cupti(m.srcKind);
  r.detail.dst_kind = memory_kind_from_cupti(m.dstKind);
  r.detail.dst_device = static_cast<std::int32_t>(m.dstDeviceId);
  return r;
}

MemsetRecord to_memset_record(const MemsetActivity& m) {
  MemsetRecord r;
  fill_gpu_activity(r, m);
  r.detail.bytes = static_cast<std::int64_t>(m.bytes);
  r.detail.memory_kind = memory_kind_from_cupti(m.memoryKind);
  r.detail.value = static_cast<std::int32_t>(m.value);
  return r;
}

ApiCallRecord to_api_record(const ApiActivity& a, ApiKind api, std::string name) {
  ApiCallRecord r;
  r.api = api;
  r.cbid = a.cbid;
  r.name = std::move(name);
  r.start_ns = static_cast<UnixNs>(a.start);
  r.end_ns = static_cast<UnixNs>(a.end);
  r.pid = a.processId;
  r.tid = os_tid_from_cupti(a.threadId);
  r.correlation_id = a.correlationId;
  r.return_value = static_cast<std::int32_t>(a.returnValue);
  return r;
}

SyncRecord to_sync_record(const SyncActivity& s) {
  SyncRecord r;
  r.kind = sync_kind_from_cupti(s.type);
  r.start_ns = static_cast<UnixNs>(s.start);
  r.end_ns = static_cast<UnixNs>(s.end);
  r.context_id = s.contextId;
  r.stream = id_or_unknown(s.streamId);
  r.correlation_id = s.correlationId;
  // The event fields mean something only for the waits on an event.
  const bool on_event = r.kind == SyncKind::EventSynchronize || r.kind == SyncKind::StreamWaitEvent;
  if (on_event && s.cudaEventId != CUPTI_SYNCHRONIZATION_INVALID_VALUE) r.cuda_event = s.cudaEventId;
  if (on_event) r.event_sync_id = event_sync_id_or_none(s.cudaEventSyncId);
  return r;
}

CudaEventRecord to_event_record(const CudaEventActivity& e) {
  CudaEventRecord r;
  r.device = static_cast<std::int32_t>(e.deviceId);
  r.context_id = e.contextId;
  r.stream = id_or_unknown(e.streamId);
  r.cuda_event = e.eventId;
  r.correlation_id = e.correlationId;
  r.event_sync_id = event_sync_id_or_none(e.cudaEventSyncId);
  return r;
}

}  // namespace gtv::collect::cupti
