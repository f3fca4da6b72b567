#pragma once
// HostRecorder: what the experiment code says about itself while it runs. Named ranges (scenario, phase,
// warm-up, iteration, model forward), measurements (what a timing method reported, with its host interval),
// framework ops (e.g. PyTorch RecordFunction callbacks, fed by code that knows torch) and metadata. Ranges are
// also pushed as NVTX ranges when the build has CUDA headers, so Nsight users see the same structure.
// All methods are thread-safe; each thread records on its own lane (OS pid/tid).
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>

#include "gtv/collect/trace_recorder.h"

namespace gtv::collect {

class HostRecorder {
 public:
  // emit_nvtx: also push/pop NVTX ranges (no effect in builds without CUDA headers).
  explicit HostRecorder(TraceRecorder& recorder, bool emit_nvtx = true);

  // An open range; ends (and records) when end() is called or it is destroyed. Move-only.
  class Scope {
   public:
    Scope(Scope&& other) noexcept;
    Scope& operator=(Scope&& other) noexcept;
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
    ~Scope();
    void end();  // records the range now; later calls do nothing
    [[nodiscard]] bool open() const { return owner_ != nullptr; }
    [[nodiscard]] UnixNs start_ns() const { return start_ns_; }

   private:
    friend class HostRecorder;
    Scope(HostRecorder* owner, std::string name, RangeKind kind, std::int32_t device, UnixNs start_ns);
    HostRecorder* owner_ = nullptr;
    std::string name_;
    RangeKind kind_ = RangeKind::User;
    std::int32_t device_ = -1;
    UnixNs start_ns_ = 0;
    std::int64_t tid_ = 0;
  };

  // auto r = recorder.scope("iteration 3", RangeKind::Iteration, 1);
  [[nodiscard]] Scope scope(std::string name, RangeKind kind, std::int32_t device = -1);
  // A range whose times the caller measured itself (Unix ns), on the calling thread's lane.
  void record_range(std::string name, RangeKind kind, UnixNs start_ns, UnixNs end_ns, std::int32_t device = -1);

  // What a timing method reported (reported_ns) for work that ran on the host over [host_start, host_end].
  void record_measurement(std::string name, MeasurementMethod method, TimeNs reported_ns, UnixNs host_start_ns,
                          UnixNs host_end_ns);

  // A host event on a thread's lane: framework ops (EventKind::CpuOp), annotations, instants. tid < 0 means the
  // calling thread.
  void record_host_event(std::string_view name, EventKind kind, UnixNs start_ns, UnixNs end_ns, std::int64_t tid = -1);

  void set_scenario(std::string scenario) { recorder_.set_scenario(std::move(scenario)); }
  void set_config(std::string key, std::string value) { recorder_.set_config(std::move(key), std::move(value)); }
  void set_machine(std::string key, std::string value) { recorder_.set_machine(std::move(key), std::move(value)); }
  void add_note(std::string note) { recorder_.add_note(std::move(note)); }
  void set_distributed(DistributedInfo info) { recorder_.set_distributed(std::move(info)); }
  // Names the calling thread's lane ("main", "worker cuda:1").
  void name_current_thread(std::string name);

  // Called on the recording thread at the start and at the end of every scope, with that moment (Unix ns), so
  // that code which knows more than this library (a framework's memory allocator) samples its counters at the
  // instants ranges begin and end. Set it before ranges are recorded and clear it (an empty function) once no
  // other thread records: it is not guarded against changing while another thread calls it.
  using BoundaryHook = std::function<void(UnixNs time_ns)>;
  void set_range_boundary_hook(BoundaryHook hook) { boundary_hook_ = std::move(hook); }

  [[nodiscard]] TraceRecorder& recorder() { return recorder_; }
  [[nodiscard]] std::int64_t pid() const { return pid_; }

 private:
  void end_scope(Scope& scope);
  // Registers the calling thread (for CUPTI's thread ids) and gives its lane the OS thread name by default.
  void note_thread();
  TraceRecorder& recorder_;
  BoundaryHook boundary_hook_;
  bool emit_nvtx_;
  std::int64_t pid_;
};

}  // namespace gtv::collect
