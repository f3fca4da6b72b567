// Conversion of the records that describe the machine and the tracer: overhead, devices, contexts, memory,
// NVTX markers.
#include "gtv/collect/thread_id.h"
#include "record_conversion.h"

namespace gtv::collect::cupti {

OverheadRecord to_overhead_record(const OverheadActivity& o) {
  OverheadRecord r;
  r.name = std::string(overhead_name(o.overheadKind));
  r.start_ns = static_cast<UnixNs>(o.start);
  r.end_ns = static_cast<UnixNs>(o.end);
  r.correlation_id = o.correlationId;
  if (o.objectKind == CUPTI_ACTIVITY_OBJECT_PROCESS || o.objectKind == CUPTI_ACTIVITY_OBJECT_THREAD) {
    r.on_host = true;
    r.pid = o.objectId.pt.processId;
    r.tid = o.objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ? os_tid_from_cupti(o.objectId.pt.threadId) : 0;
  } else {
    r.on_host = false;
    r.device = static_cast<std::int32_t>(o.objectId.dcs.deviceId);
    r.stream = o.objectKind == CUPTI_ACTIVITY_OBJECT_STREAM ? id_or_unknown(o.objectId.dcs.streamId) : kUnknownStream;
  }
  return r;
}

DeviceRecord to_device_record(const DeviceActivity& d) {
  DeviceRecord r;
  r.info.index = static_cast<std::int32_t>(d.id);
  r.info.name = d.name != nullptr ? d.name : "";
  r.info.total_memory_bytes = static_cast<std::int64_t>(d.globalMemorySize);
  r.info.compute_major = static_cast<std::int32_t>(d.computeCapabilityMajor);
  r.info.compute_minor = static_cast<std::int32_t>(d.computeCapabilityMinor);
  r.info.sm_count = static_cast<std::int32_t>(d.numMultiprocessors);
  return r;
}

ContextRecord to_context_record(const ContextActivity& c) {
  return ContextRecord{c.contextId, static_cast<std::int32_t>(c.deviceId), static_cast<std::int64_t>(c.nullStreamId)};
}

std::optional<MemoryRecord> to_memory_record(const MemoryActivity& m) {
  MemoryRecord r;
  if (m.memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION)
    r.operation = MemoryOperation::Allocate;
  else if (m.memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE)
    r.operation = MemoryOperation::Release;
  else
    return std::nullopt;
  r.memory_kind = memory_kind_from_cupti(m.memoryKind);
  r.time_ns = static_cast<UnixNs>(m.timestamp);
  r.bytes = static_cast<std::int64_t>(m.bytes);
  r.address = m.address;
  r.device = static_cast<std::int32_t>(m.deviceId);
  r.stream = id_or_unknown(m.streamId);
  r.pid = m.processId;
  r.correlation_id = m.correlationId;
  return r;
}

std::optional<MarkerRecord> MarkerPairer::add(const MarkerActivity& m) {
  const bool instant = (m.flags & CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS) != 0;
  const bool start = (m.flags & CUPTI_ACTIVITY_FLAG_MARKER_START) != 0 ||
                     (!instant && m.name != nullptr && (m.flags & CUPTI_ACTIVITY_FLAG_MARKER_END) == 0);
  if (instant || start) {
    MarkerRecord r;
    r.name = m.name != nullptr ? m.name : "";
    r.domain = m.domain != nullptr ? m.domain : "";
    r.start_ns = r.end_ns = static_cast<UnixNs>(m.timestamp);
    r.instant = instant;
    r.id = m.id;
    if (m.objectKind == CUPTI_ACTIVITY_OBJECT_PROCESS || m.objectKind == CUPTI_ACTIVITY_OBJECT_THREAD) {
      r.pid = m.objectId.pt.processId;
      r.tid = os_tid_from_cupti(m.objectId.pt.threadId);
    }
    if (instant) return r;
    open_[m.id] = std::move(r);
    return std::nullopt;
  }
  auto it = open_.find(m.id);
  if (it == open_.end()) {
    ++orphan_ends_;
    return std::nullopt;
  }
  MarkerRecord r = std::move(it->second);
  open_.erase(it);
  r.end_ns = static_cast<UnixNs>(m.timestamp);
  return r;
}

}  // namespace gtv::collect::cupti
