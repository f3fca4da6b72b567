#include "gtv/collect/host_recorder.h"

#include <fstream>
#include <utility>

#include "gtv/collect/nvtx.h"
#include "gtv/collect/thread_id.h"

namespace gtv::collect {
namespace {

// The program name as the OS shows it (/proc/self/comm), for the process entry of the trace.
std::string process_name() {
  std::ifstream comm("/proc/self/comm");
  std::string name;
  std::getline(comm, name);
  return name.empty() ? "process" : name;
}

}  // namespace

HostRecorder::HostRecorder(TraceRecorder& recorder, bool emit_nvtx)
    : recorder_(recorder), emit_nvtx_(emit_nvtx && nvtx_available()), pid_(current_pid()) {
  note_thread();
  recorder_.set_process_name(pid_, process_name());
}

void HostRecorder::note_thread() {
  // Once per thread and recorder; the lock-free check keeps per-op recording cheap.
  thread_local const TraceRecorder* noted_for = nullptr;
  if (noted_for == &recorder_) return;
  noted_for = &recorder_;
  register_current_thread();
  recorder_.set_default_thread_name(pid_, current_tid(), current_thread_name());
}

HostRecorder::Scope::Scope(HostRecorder* owner, std::string name, RangeKind kind, std::int32_t device, UnixNs start_ns)
    : owner_(owner), name_(std::move(name)), kind_(kind), device_(device), start_ns_(start_ns), tid_(current_tid()) {}

HostRecorder::Scope::Scope(Scope&& other) noexcept
    : owner_(std::exchange(other.owner_, nullptr)),
      name_(std::move(other.name_)),
      kind_(other.kind_),
      device_(other.device_),
      start_ns_(other.start_ns_),
      tid_(other.tid_) {}

HostRecorder::Scope& HostRecorder::Scope::operator=(Scope&& other) noexcept {
  if (this != &other) {
    end();
    owner_ = std::exchange(other.owner_, nullptr);
    name_ = std::move(other.name_);
    kind_ = other.kind_;
    device_ = other.device_;
    start_ns_ = other.start_ns_;
    tid_ = other.tid_;
  }
  return *this;
}

HostRecorder::Scope::~Scope() { end(); }

void HostRecorder::Scope::end() {
  if (owner_ == nullptr) return;
  HostRecorder* owner = std::exchange(owner_, nullptr);
  owner->end_scope(*this);
}

HostRecorder::Scope HostRecorder::scope(std::string name, RangeKind kind, std::int32_t device) {
  note_thread();
  if (emit_nvtx_) nvtx_push(name);
  const UnixNs start_ns = unix_now_ns();
  if (boundary_hook_) boundary_hook_(start_ns);
  return Scope(this, std::move(name), kind, device, start_ns);
}

void HostRecorder::end_scope(Scope& scope) {
  const UnixNs end_ns = unix_now_ns();
  // NVTX ranges are per thread: pop only on the thread that pushed, else the ranges of that thread get mixed.
  if (emit_nvtx_ && current_tid() == scope.tid_) nvtx_pop();
  recorder_.add_range(std::move(scope.name_), scope.kind_, scope.start_ns_, end_ns, pid_, scope.tid_, scope.device_);
  if (boundary_hook_) boundary_hook_(end_ns);
}

void HostRecorder::record_range(std::string name, RangeKind kind, UnixNs start_ns, UnixNs end_ns, std::int32_t device) {
  note_thread();
  recorder_.add_range(std::move(name), kind, start_ns, end_ns, pid_, current_tid(), device);
}

void HostRecorder::record_measurement(std::string name, MeasurementMethod method, TimeNs reported_ns,
                                      UnixNs host_start_ns, UnixNs host_end_ns) {
  note_thread();
  recorder_.add_measurement(std::move(name), method, reported_ns, host_start_ns, host_end_ns, pid_, current_tid());
}

void HostRecorder::record_host_event(std::string_view name, EventKind kind, UnixNs start_ns, UnixNs end_ns,
                                     std::int64_t tid) {
  note_thread();
  recorder_.add_host_event(name, kind, start_ns, end_ns, pid_, tid < 0 ? current_tid() : tid);
}

void HostRecorder::name_current_thread(std::string name) {
  note_thread();
  recorder_.set_thread_name(pid_, current_tid(), std::move(name));
}

}  // namespace gtv::collect
