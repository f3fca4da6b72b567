#pragma once
// ActivityDispatcher: walks CUPTI activity buffers and hands each record, converted, to an ActivitySink. One
// switch over record kinds, small handlers per kind. It makes no CUPTI call itself: the record iterator
// (cuptiActivityGetNextRecord in production) and the API namer (cuptiGetCallbackName) are passed in, so tests
// drive it with synthetic buffers. Buffers may complete on several threads at once: state is locked, and
// neither CUPTI nor the namer is ever called while the lock is held.
#include <cupti.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>

#include "gtv/collect/activity_sink.h"
#include "record_conversion.h"

namespace gtv::collect::cupti {

using NextRecordFn = CUptiResult (*)(std::uint8_t* buffer, std::size_t valid_bytes, CUpti_Activity** record);
using ApiNamer = std::function<std::string(ApiKind api, std::uint32_t cbid)>;

class ActivityDispatcher {
 public:
  ActivityDispatcher(ActivitySink& sink, ApiNamer namer);

  // Delivers every record of one completed buffer; returns how many were delivered.
  std::size_t handle_buffer(std::uint8_t* buffer, std::size_t valid_bytes, NextRecordFn next);
  // Delivers one record; false when its kind is not one gtv converts (it is counted, not delivered).
  bool handle(const CUpti_Activity& record);
  // A device known from elsewhere (the driver): its SM count serves kernels, and the sink gets the record.
  void add_device(const DeviceRecord& device);
  // Reports what is left at the end (NVTX ranges never closed, ends without starts) as notes.
  void finish();

  [[nodiscard]] std::size_t delivered() const { return delivered_.load(); }
  [[nodiscard]] std::size_t ignored() const { return ignored_.load(); }

 private:
  void on_kernel(const KernelActivity& k);
  void on_api(const ApiActivity& a, ApiKind api);
  void on_marker(const MarkerActivity& m);
  void on_memory(const MemoryActivity& m);

  ActivitySink& sink_;
  ApiNamer namer_;
  std::mutex mutex_;                                // guards sm_counts_ and markers_
  std::map<std::int32_t, std::int32_t> sm_counts_;  // device -> multiprocessors, from DEVICE records
  MarkerPairer markers_;
  std::atomic<std::size_t> delivered_{0};
  std::atomic<std::size_t> ignored_{0};
};

}  // namespace gtv::collect::cupti
