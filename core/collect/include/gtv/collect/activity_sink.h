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

  virtual void onKernel(const KernelRecord& /*record*/) {}
  virtual void onMemcpy(const MemcpyRecord& /*record*/) {}
  virtual void onMemset(const MemsetRecord& /*record*/) {}
  virtual void onApiCall(const ApiCallRecord& /*record*/) {}
  virtual void onSync(const SyncRecord& /*record*/) {}
  virtual void onOverhead(const OverheadRecord& /*record*/) {}
  virtual void onMarker(const MarkerRecord& /*record*/) {}
  virtual void onDevice(const DeviceRecord& /*record*/) {}
  virtual void onContext(const ContextRecord& /*record*/) {}
  virtual void onMemory(const MemoryRecord& /*record*/) {}
  // count records the collector lost (CUPTI ran out of buffer space); called with the increment.
  virtual void onDropped(std::size_t /*count*/) {}
  // A one-line remark for the trace notes ("CUPTI unavailable: ...", "2 unpaired NVTX range starts").
  virtual void onNote(std::string_view /*text*/) {}
};

}  // namespace gtv::collect
