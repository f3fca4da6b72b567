#include "activity_dispatch.h"

#include <optional>

namespace gtv::collect::cupti {

ActivityDispatcher::ActivityDispatcher(ActivitySink& sink, ApiNamer namer) : sink_(sink), namer_(std::move(namer)) {}

std::size_t ActivityDispatcher::handle_buffer(std::uint8_t* buffer, std::size_t valid_bytes, NextRecordFn next) {
  std::size_t count = 0;
  if (buffer == nullptr || valid_bytes == 0) return 0;
  CUpti_Activity* record = nullptr;
  // next() answers CUPTI_ERROR_MAX_LIMIT_REACHED at the end of the buffer; any other error also ends the walk
  // (the rest of a corrupt buffer cannot be trusted).
  while (next(buffer, valid_bytes, &record) == CUPTI_SUCCESS && record != nullptr) {
    if (handle(*record)) ++count;
  }
  return count;
}

bool ActivityDispatcher::handle(const CUpti_Activity& record) {
  // The casts follow CUPTI's contract: the kind field says which struct the record is.
  switch (record.kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL:
      on_kernel(reinterpret_cast<const KernelActivity&>(record));
      break;
    case CUPTI_ACTIVITY_KIND_MEMCPY:
      sink_.on_memcpy(to_memcpy_record(reinterpret_cast<const MemcpyActivity&>(record)));
      break;
    case CUPTI_ACTIVITY_KIND_MEMCPY2:
      sink_.on_memcpy(to_memcpy_record(reinterpret_cast<const PeerMemcpyActivity&>(record)));
      break;
    case CUPTI_ACTIVITY_KIND_MEMSET:
      sink_.on_memset(to_memset_record(reinterpret_cast<const MemsetActivity&>(record)));
      break;
    case CUPTI_ACTIVITY_KIND_RUNTIME:
      on_api(reinterpret_cast<const ApiActivity&>(record), ApiKind::Runtime);
      break;
    case CUPTI_ACTIVITY_KIND_DRIVER:
      on_api(reinterpret_cast<const ApiActivity&>(record), ApiKind::Driver);
      break;
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
      sink_.on_sync(to_sync_record(reinterpret_cast<const SyncActivity&>(record)));
      break;
    case CUPTI_ACTIVITY_KIND_CUDA_EVENT:
      sink_.on_event_record(to_event_record(reinterpret_cast<const CudaEventActivity&>(record)));
      break;
    case CUPTI_ACTIVITY_KIND_OVERHEAD:
      sink_.on_overhead(to_overhead_record(reinterpret_cast<const OverheadActivity&>(record)));
      break;
    case CUPTI_ACTIVITY_KIND_MARKER:
      on_marker(reinterpret_cast<const MarkerActivity&>(record));
      break;
    case CUPTI_ACTIVITY_KIND_DEVICE:
      add_device(to_device_record(reinterpret_cast<const DeviceActivity&>(record)));
      break;
    case CUPTI_ACTIVITY_KIND_CONTEXT:
      sink_.on_context(to_context_record(reinterpret_cast<const ContextActivity&>(record)));
      break;
    case CUPTI_ACTIVITY_KIND_MEMORY2:
      on_memory(reinterpret_cast<const MemoryActivity&>(record));
      break;
    default:
      ++ignored_;
      return false;
  }
  ++delivered_;
  return true;
}

void ActivityDispatcher::on_kernel(const KernelActivity& k) {
  std::int32_t sm_count = 0;
  {
    std::lock_guard lock(mutex_);
    if (auto it = sm_counts_.find(static_cast<std::int32_t>(k.deviceId)); it != sm_counts_.end()) sm_count = it->second;
  }
  sink_.on_kernel(to_kernel_record(k, sm_count));
}

void ActivityDispatcher::on_api(const ApiActivity& a, ApiKind api) {
  sink_.on_api_call(to_api_record(a, api, namer_(api, a.cbid)));
}

void ActivityDispatcher::on_marker(const MarkerActivity& m) {
  std::optional<MarkerRecord> done;
  {
    std::lock_guard lock(mutex_);
    done = markers_.add(m);
  }
  if (done) sink_.on_marker(*done);
}

void ActivityDispatcher::add_device(const DeviceRecord& r) {
  {
    std::lock_guard lock(mutex_);
    sm_counts_[r.info.index] = r.info.sm_count;
  }
  sink_.on_device(r);
}

void ActivityDispatcher::on_memory(const MemoryActivity& m) {
  if (auto r = to_memory_record(m)) sink_.on_memory(*r);
}

void ActivityDispatcher::finish() {
  std::size_t open = 0, orphans = 0;
  {
    std::lock_guard lock(mutex_);
    open = markers_.open_count();
    orphans = markers_.orphan_end_count();
  }
  if (open > 0) sink_.on_note(std::to_string(open) + " NVTX ranges were still open when recording stopped");
  if (orphans > 0) sink_.on_note(std::to_string(orphans) + " NVTX range ends had no start (started before recording)");
}

}  // namespace gtv::collect::cupti
