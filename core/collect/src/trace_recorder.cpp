#include "gtv/collect/trace_recorder.h"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

#include "gtv/collect/names.h"
#include "gtv/collect/thread_id.h"
#include "gtv/config.h"
#include "recorder_state.h"

namespace gtv::collect {

TraceRecorder::TraceRecorder(UnixNs origin_unix_ns)
    : origin_unix_ns_(origin_unix_ns), state_(std::make_unique<detail::RecorderState>()) {}
TraceRecorder::TraceRecorder() : TraceRecorder(unix_now_ns()) {}
TraceRecorder::~TraceRecorder() = default;

// Everything below that touches state_ runs under mutex_; helpers taking RecorderState& assume the lock is held.
namespace detail {

std::optional<Event> make_event(RecorderState& s, UnixNs origin, std::string_view name, UnixNs start_ns, UnixNs end_ns,
                                std::uint64_t correlation_id) {
  if (start_ns == 0 && end_ns == 0) {
    ++s.untimed_records;
    return std::nullopt;
  }
  if (end_ns < start_ns) {
    ++s.reversed_records;
    end_ns = start_ns;
  }
  Event e;
  e.start_ns = start_ns - origin;
  e.duration_ns = end_ns - start_ns;
  e.correlation_id = correlation_id;
  e.name = s.builder.intern(name);
  return e;
}

}  // namespace detail

using detail::lane_for;
using detail::make_event;

void TraceRecorder::on_kernel(const KernelRecord& r) {
  std::lock_guard lock(mutex_);
  detail::RecorderState& s = *state_;
  auto e = make_event(s, origin_unix_ns_, r.name, r.start_ns, r.end_ns, r.correlation_id);
  if (e) s.builder.add_kernel(lane_for(s, gpu_lane_key(r.device, r.stream)), *e, r.detail);
}

void TraceRecorder::on_memcpy(const MemcpyRecord& r) {
  std::lock_guard lock(mutex_);
  detail::RecorderState& s = *state_;
  auto e = make_event(s, origin_unix_ns_, memcpy_event_name(r.detail), r.start_ns, r.end_ns, r.correlation_id);
  if (e) s.builder.add_memcpy(lane_for(s, gpu_lane_key(r.device, r.stream)), *e, r.detail);
}

void TraceRecorder::on_memset(const MemsetRecord& r) {
  std::lock_guard lock(mutex_);
  detail::RecorderState& s = *state_;
  auto e = make_event(s, origin_unix_ns_, memset_event_name(r.detail), r.start_ns, r.end_ns, r.correlation_id);
  if (e) s.builder.add_memset(lane_for(s, gpu_lane_key(r.device, r.stream)), *e, r.detail);
}

void TraceRecorder::on_api_call(const ApiCallRecord& r) {
  std::lock_guard lock(mutex_);
  detail::RecorderState& s = *state_;
  auto e = make_event(s, origin_unix_ns_, r.name, r.start_ns, r.end_ns, r.correlation_id);
  if (!e) return;
  e->kind = r.api == ApiKind::Runtime ? EventKind::Runtime : EventKind::Driver;
  s.builder.add_event(lane_for(s, host_lane_key(r.pid, r.tid)), *e);
  if (r.correlation_id != kNoCorrelation) s.api_thread.try_emplace(r.correlation_id, r.pid, r.tid);
}

void TraceRecorder::on_sync(const SyncRecord& r) {
  std::lock_guard lock(mutex_);
  state_->syncs.push_back(r);
}

void TraceRecorder::on_event_record(const CudaEventRecord& r) {
  std::lock_guard lock(mutex_);
  state_->event_records.push_back(r);
}

void TraceRecorder::on_overhead(const OverheadRecord& r) {
  std::lock_guard lock(mutex_);
  detail::RecorderState& s = *state_;
  auto e = make_event(s, origin_unix_ns_, r.name, r.start_ns, r.end_ns, kNoCorrelation);
  if (!e) return;
  e->kind = EventKind::Overhead;
  const LaneKey key = r.on_host ? host_lane_key(r.pid, r.tid) : gpu_lane_key(r.device, r.stream);
  const bool fresh = !s.builder.find_lane(key);
  const LaneIndex lane = lane_for(s, key);
  if (fresh && !r.on_host && r.stream == kUnknownStream) s.builder.set_lane_name(lane, "device overhead");
  s.builder.add_event(lane, *e);
}

void TraceRecorder::on_marker(const MarkerRecord& r) {
  if (r.domain == kGtvNvtxDomain) return;  // gtv's own ranges, already recorded as Ranges
  std::lock_guard lock(mutex_);
  detail::RecorderState& s = *state_;
  auto e = make_event(s, origin_unix_ns_, r.name, r.start_ns, r.instant ? r.start_ns : r.end_ns, kNoCorrelation);
  if (!e) return;
  e->kind = r.instant ? EventKind::Instant : EventKind::Annotation;
  s.builder.add_event(lane_for(s, host_lane_key(r.pid, r.tid)), *e);
}

void TraceRecorder::on_device(const DeviceRecord& r) {
  std::lock_guard lock(mutex_);
  // Several sources describe a device, some only partly (a name): a known field is never blanked.
  auto [it, fresh] = state_->devices.try_emplace(r.info.index, r.info);
  if (fresh) return;
  DeviceInfo& d = it->second;
  if (!r.info.name.empty()) d.name = r.info.name;
  if (r.info.total_memory_bytes > 0) d.total_memory_bytes = r.info.total_memory_bytes;
  if (r.info.compute_major > 0) {
    d.compute_major = r.info.compute_major;
    d.compute_minor = r.info.compute_minor;
  }
  if (r.info.sm_count > 0) d.sm_count = r.info.sm_count;
}

void TraceRecorder::on_context(const ContextRecord& r) {
  std::lock_guard lock(mutex_);
  state_->contexts.push_back(r);
}

void TraceRecorder::on_memory(const MemoryRecord& r) {
  std::lock_guard lock(mutex_);
  state_->memory.push_back(r);
}

void TraceRecorder::on_dropped(std::size_t count) {
  std::lock_guard lock(mutex_);
  state_->builder.metadata().dropped_records += static_cast<std::int64_t>(count);
}

void TraceRecorder::on_note(std::string_view text) { add_note(std::string(text)); }

void TraceRecorder::add_range(std::string name, RangeKind kind, UnixNs start_ns, UnixNs end_ns, std::int64_t pid,
                              std::int64_t tid, std::int32_t device) {
  Range range{std::move(name), kind, to_relative(start_ns), to_relative(std::max(start_ns, end_ns)), pid, tid, device};
  std::lock_guard lock(mutex_);
  state_->builder.add_range(std::move(range));
}

void TraceRecorder::add_measurement(std::string name, MeasurementMethod method, TimeNs reported_ns,
                                    UnixNs host_start_ns, UnixNs host_end_ns, std::int64_t pid, std::int64_t tid) {
  Measurement m{std::move(name),
                method,
                reported_ns,
                to_relative(host_start_ns),
                to_relative(std::max(host_start_ns, host_end_ns)),
                pid,
                tid};
  std::lock_guard lock(mutex_);
  state_->builder.add_measurement(std::move(m));
}

void TraceRecorder::add_host_event(std::string_view name, EventKind kind, UnixNs start_ns, UnixNs end_ns,
                                   std::int64_t pid, std::int64_t tid, std::uint64_t correlation_id) {
  std::lock_guard lock(mutex_);
  detail::RecorderState& s = *state_;
  auto e = make_event(s, origin_unix_ns_, name, start_ns, end_ns, correlation_id);
  if (!e) return;
  e->kind = kind;
  s.builder.add_event(lane_for(s, host_lane_key(pid, tid)), *e);
}

void TraceRecorder::add_counter_sample(std::int64_t pid, std::string_view name, UnixNs time_ns, double value) {
  std::lock_guard lock(mutex_);
  state_->builder.add_counter_sample(pid, name, CounterSample{to_relative(time_ns), value});
}

void TraceRecorder::set_thread_name(std::int64_t pid, std::int64_t tid, std::string name) {
  std::lock_guard lock(mutex_);
  state_->thread_names[{pid, tid}] = std::move(name);
}

void TraceRecorder::set_default_thread_name(std::int64_t pid, std::int64_t tid, std::string_view name) {
  if (name.empty()) return;
  std::lock_guard lock(mutex_);
  state_->thread_names.try_emplace({pid, tid}, name);
}

void TraceRecorder::set_process_name(std::int64_t pid, std::string name) {
  std::lock_guard lock(mutex_);
  state_->builder.process(pid).name = std::move(name);
}

void TraceRecorder::set_source_tool(std::string tool) {
  std::lock_guard lock(mutex_);
  state_->builder.metadata().source_tool = std::move(tool);
  state_->source_tool_set = true;
}

void TraceRecorder::set_scenario(std::string scenario) {
  std::lock_guard lock(mutex_);
  state_->builder.metadata().scenario = std::move(scenario);
}

void TraceRecorder::set_config(std::string key, std::string value) {
  std::lock_guard lock(mutex_);
  state_->builder.metadata().config[std::move(key)] = std::move(value);
}

void TraceRecorder::set_machine(std::string key, std::string value) {
  std::lock_guard lock(mutex_);
  state_->builder.metadata().machine[std::move(key)] = std::move(value);
}

void TraceRecorder::set_distributed(DistributedInfo info) {
  std::lock_guard lock(mutex_);
  state_->builder.metadata().distributed = std::move(info);
}

void TraceRecorder::add_recorder_cost(const RecorderCost& cost) {
  std::lock_guard lock(mutex_);
  state_->builder.metadata().recorder_costs.push_back(cost);
}

void TraceRecorder::add_note(std::string note) {
  std::lock_guard lock(mutex_);
  state_->builder.metadata().notes.push_back(std::move(note));
}

std::int64_t TraceRecorder::dropped_records() const {
  std::lock_guard lock(mutex_);
  return state_->builder.metadata().dropped_records;
}

std::size_t TraceRecorder::event_count() const {
  std::lock_guard lock(mutex_);
  return state_->builder.event_count() + state_->syncs.size();
}

}  // namespace gtv::collect
