#pragma once
// Where collected activity goes. A collector calls one typed method per record; every method has an empty
// default so a sink only overrides what it needs. Calls may come from any thread (CUPTI delivers its buffers
// on its own thread), possibly concurrently: an implementation that keeps state must lock.
#include <cstddef>
#include <string_view>

#include "gtv/collect/records.h"

namespace gtv::collect {

class ActivitySink {
 public:
  ActivitySink() = default;
  ActivitySink(const ActivitySink&) = delete;
  ActivitySink& operator=(const ActivitySink&) = delete;
  virtual ~ActivitySink() = default;

  virtual void on_kernel(const KernelRecord& /*record*/) {}
  virtual void on_memcpy(const MemcpyRecord& /*record*/) {}
  virtual void on_memset(const MemsetRecord& /*record*/) {}
  virtual void on_api_call(const ApiCallRecord& /*record*/) {}
  virtual void on_sync(const SyncRecord& /*record*/) {}
  virtual void on_event_record(const CudaEventRecord& /*record*/) {}
  virtual void on_overhead(const OverheadRecord& /*record*/) {}
  virtual void on_marker(const MarkerRecord& /*record*/) {}
  virtual void on_device(const DeviceRecord& /*record*/) {}
  virtual void on_context(const ContextRecord& /*record*/) {}
  virtual void on_memory(const MemoryRecord& /*record*/) {}
  // count records the collector lost (CUPTI ran out of buffer space); called with the increment.
  virtual void on_dropped(std::size_t /*count*/) {}
  // A one-line remark for the trace notes ("CUPTI unavailable: ...", "2 unpaired NVTX range starts").
  virtual void on_note(std::string_view /*text*/) {}
};

}  // namespace gtv::collect
