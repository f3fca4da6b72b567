#pragma once
// TraceRecorder: the sink every collector of one recording feeds, and the owner of the TraceBuilder that turns
// it all into the final Trace. Records arrive with absolute Unix ns times from any thread (CUPTI delivers on
// its own thread, out of order); each call takes an internal lock, converts times to ns relative to the
// origin, and adds the event. finish() joins what needs the whole recording (synchronization records to the
// lane of the API call that waited and to the work they waited for, lane names, memory counters, merged devices)
// and builds the Trace.
//
// Lanes: API calls, host events, overhead and markers go to host lanes (pid, tid) named "thread <tid>", or
// "thread <tid> (<name>)" once named; kernels, copies and memsets to GPU lanes (device, stream) named
// "stream <N>" ("stream <N> (default)" for a context's legacy stream). See core/collect/README.md.
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "gtv/base/expected.h"
#include "gtv/collect/activity_sink.h"
#include "gtv/model/trace.h"

namespace gtv::collect {

namespace detail {
struct RecorderState;  // defined in src/recorder_state.h
}

class TraceRecorder final : public ActivitySink {
 public:
  // origin_unix_ns: relative 0 of the trace, normally the moment recording starts.
  explicit TraceRecorder(UnixNs origin_unix_ns);
  TraceRecorder();  // origin = now
  ~TraceRecorder() override;

  [[nodiscard]] UnixNs origin_unix_ns() const { return origin_unix_ns_; }
  [[nodiscard]] TimeNs to_relative(UnixNs unix_ns) const { return unix_ns - origin_unix_ns_; }

  // ActivitySink: thread-safe.
  void on_kernel(const KernelRecord& record) override;
  void on_memcpy(const MemcpyRecord& record) override;
  void on_memset(const MemsetRecord& record) override;
  void on_api_call(const ApiCallRecord& record) override;
  void on_sync(const SyncRecord& record) override;
  void on_event_record(const CudaEventRecord& record) override;
  void on_overhead(const OverheadRecord& record) override;
  void on_marker(const MarkerRecord& record) override;
  void on_device(const DeviceRecord& record) override;
  void on_context(const ContextRecord& record) override;
  void on_memory(const MemoryRecord& record) override;
  void on_dropped(std::size_t count) override;
  void on_note(std::string_view text) override;

  // Host side, thread-safe; times are Unix ns. HostRecorder is the friendlier front end.
  void add_range(std::string name, RangeKind kind, UnixNs start_ns, UnixNs end_ns, std::int64_t pid, std::int64_t tid,
                 std::int32_t device);
  void add_measurement(std::string name, MeasurementMethod method, TimeNs reported_ns, UnixNs host_start_ns,
                       UnixNs host_end_ns, std::int64_t pid, std::int64_t tid);
  // A host event of any kind (EventKind::CpuOp for framework ops, Annotation, Instant ...).
  void add_host_event(std::string_view name, EventKind kind, UnixNs start_ns, UnixNs end_ns, std::int64_t pid,
                      std::int64_t tid, std::uint64_t correlation_id = kNoCorrelation);
  // One sample of a counter series (pid, name): a value that holds from time_ns until the series' next sample.
  // GPU series use the device index as pid, as Kineto writes them.
  void add_counter_sample(std::int64_t pid, std::string_view name, UnixNs time_ns, double value);
  void set_thread_name(std::int64_t pid, std::int64_t tid, std::string name);
  // A default name (the OS thread name) that an explicit set_thread_name replaces, whatever the order.
  void set_default_thread_name(std::int64_t pid, std::int64_t tid, std::string_view name);
  void set_process_name(std::int64_t pid, std::string name);

  void set_source_tool(std::string tool);  // default "gtv <version>"
  void set_scenario(std::string scenario);
  void set_config(std::string key, std::string value);
  void set_machine(std::string key, std::string value);
  void add_note(std::string note);
  void set_distributed(DistributedInfo info);        // this process's rank in a torch.distributed run
  void add_recorder_cost(const RecorderCost& cost);  // what recording cost a process (gtv-cli record)

  [[nodiscard]] std::int64_t dropped_records() const;
  [[nodiscard]] std::size_t event_count() const;  // events added so far (pending sync records included)

  // Builds the Trace; the recorder is empty afterwards (ready for another recording with the same origin).
  // Call it once the collectors have stopped (CuptiSource::stop flushes its buffers first).
  [[nodiscard]] Expected<Trace> finish();

 private:
  void apply_pending(detail::RecorderState& s);  // lock held
  UnixNs origin_unix_ns_;
  mutable std::mutex mutex_;
  std::unique_ptr<detail::RecorderState> state_;
};

}  // namespace gtv::collect
