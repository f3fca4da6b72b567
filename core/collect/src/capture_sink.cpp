#include "gtv/collect/capture_sink.h"

namespace gtv::collect {

CaptureSink::CaptureSink(ActivitySink& target, const CaptureGate& gate, std::int64_t max_events)
    : target_(target), gate_(gate), max_events_(max_events) {}

bool CaptureSink::admit(UnixNs start_ns) {
  ++seen_;
  if (!gate_.contains(start_ns)) {
    ++outside_;
    return false;
  }
  // A slot is taken before the record is passed on, so concurrent buffers never pass more than max_events.
  if (kept_.fetch_add(1) >= max_events_) {
    --kept_;
    ++over_limit_;
    return false;
  }
  return true;
}

void CaptureSink::on_kernel(const KernelRecord& r) {
  if (admit(r.start_ns)) target_.on_kernel(r);
}
void CaptureSink::on_memcpy(const MemcpyRecord& r) {
  if (admit(r.start_ns)) target_.on_memcpy(r);
}
void CaptureSink::on_memset(const MemsetRecord& r) {
  if (admit(r.start_ns)) target_.on_memset(r);
}
void CaptureSink::on_api_call(const ApiCallRecord& r) {
  if (admit(r.start_ns)) target_.on_api_call(r);
}
void CaptureSink::on_sync(const SyncRecord& r) {
  if (admit(r.start_ns)) target_.on_sync(r);
}
void CaptureSink::on_overhead(const OverheadRecord& r) {
  if (admit(r.start_ns)) target_.on_overhead(r);
}
void CaptureSink::on_marker(const MarkerRecord& r) {
  if (admit(r.start_ns)) target_.on_marker(r);
}
void CaptureSink::on_memory(const MemoryRecord& r) {
  if (admit(r.time_ns)) target_.on_memory(r);
}

std::vector<std::string> CaptureSink::notes(const std::string& capture_text) const {
  std::vector<std::string> out;
  if (over_limit() > 0)
    out.push_back("the event limit (--max-events " + std::to_string(max_events_) +
                  ") was reached: " + std::to_string(over_limit()) + " of " + std::to_string(seen()) +
                  " records, those that arrived after it, were left out: the timeline misses them, mostly at its "
                  "end; raise --max-events to keep them");
  if (gate_.window_count() == 0)
    out.push_back("the capture range (" + capture_text + ") never began: nothing of the run was kept");
  else if (outside() > 0)
    out.push_back("capture range " + capture_text + ": " + std::to_string(gate_.window_count()) +
                  (gate_.window_count() == 1 ? " window" : " windows") + "; " + std::to_string(outside()) + " of " +
                  std::to_string(seen()) + " records lay outside and were left out");
  return out;
}

}  // namespace gtv::collect
