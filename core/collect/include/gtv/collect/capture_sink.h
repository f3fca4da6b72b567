#pragma once
// CaptureSink: an ActivitySink in front of another that keeps only what the capture range and the event limit
// allow. A timed record (kernel, copy, memset, API call, synchronization, overhead, NVTX range, allocation) is
// passed on when its start lies inside the CaptureGate and fewer than max_events records were passed on; the
// others are counted, never stored, so memory stays bounded whatever the program does. Descriptions (devices,
// contexts, cudaEventRecord joins), CUPTI's own dropped counts and notes always pass.
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "gtv/collect/activity_sink.h"
#include "gtv/collect/capture_gate.h"

namespace gtv::collect {

class CaptureSink final : public ActivitySink {
 public:
  // gate and target must outlive the sink. max_events <= 0: no record is kept.
  CaptureSink(ActivitySink& target, const CaptureGate& gate, std::int64_t max_events);

  void on_kernel(const KernelRecord& r) override;
  void on_memcpy(const MemcpyRecord& r) override;
  void on_memset(const MemsetRecord& r) override;
  void on_api_call(const ApiCallRecord& r) override;
  void on_sync(const SyncRecord& r) override;
  void on_event_record(const CudaEventRecord& r) override { target_.on_event_record(r); }
  void on_overhead(const OverheadRecord& r) override;
  void on_marker(const MarkerRecord& r) override;
  void on_device(const DeviceRecord& r) override { target_.on_device(r); }
  void on_context(const ContextRecord& r) override { target_.on_context(r); }
  void on_memory(const MemoryRecord& r) override;
  void on_dropped(std::size_t count) override { target_.on_dropped(count); }
  void on_note(std::string_view text) override { target_.on_note(text); }

  [[nodiscard]] std::int64_t seen() const { return seen_.load(); }              // timed records offered
  [[nodiscard]] std::int64_t kept() const { return kept_.load(); }              // passed on
  [[nodiscard]] std::int64_t outside() const { return outside_.load(); }        // outside the capture range
  [[nodiscard]] std::int64_t over_limit() const { return over_limit_.load(); }  // inside, but past max_events
  // The notes a trace needs about what was left out: the limit reached (and how many records it cost), nothing
  // inside the capture range. capture_text says what the range was ("between cudaProfilerStart and ...").
  [[nodiscard]] std::vector<std::string> notes(const std::string& capture_text) const;

 private:
  [[nodiscard]] bool admit(UnixNs start_ns);
  ActivitySink& target_;
  const CaptureGate& gate_;
  const std::int64_t max_events_;
  std::atomic<std::int64_t> seen_{0};
  std::atomic<std::int64_t> kept_{0};
  std::atomic<std::int64_t> outside_{0};
  std::atomic<std::int64_t> over_limit_{0};
};

}  // namespace gtv::collect
