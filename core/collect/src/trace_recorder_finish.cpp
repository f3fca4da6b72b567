// TraceRecorder::finish: the steps that need the whole recording before the Trace can be built.
#include <algorithm>

#include "gtv/collect/names.h"
#include "gtv/collect/thread_id.h"
#include "gtv/collect/trace_recorder.h"
#include "gtv/config.h"
#include "gtv/model/kineto_names.h"
#include "recorder_state.h"

namespace gtv::collect {
namespace {

using detail::RecorderState;

constexpr std::string_view kDeviceMemorySeries = "device memory allocated since start (bytes)";
constexpr std::string_view kPinnedMemorySeries = "pinned host memory allocated since start (bytes)";
constexpr std::int64_t kUnknownThreadTid = 0;

// CUPTI's synchronization records carry no thread, only the correlation id of the API call that waited
// (cudaStreamSynchronize, cudaDeviceSynchronize, cudaEventSynchronize ...). The wait goes on that call's lane,
// nested inside it. Without the call (filtered or dropped) it goes on a "thread unknown" lane of this process.
void place_syncs(RecorderState& s, UnixNs origin) {
  std::size_t orphans = 0;
  for (const SyncRecord& r : s.syncs) {
    auto e = detail::make_event(s, origin, to_string(r.kind), r.start_ns, r.end_ns, r.correlation_id);
    if (!e) continue;
    e->kind = EventKind::Sync;
    LaneKey key = host_lane_key(current_pid(), kUnknownThreadTid);
    if (auto it = s.api_thread.find(r.correlation_id); it != s.api_thread.end())
      key = host_lane_key(it->second.first, it->second.second);
    else
      ++orphans;
    s.builder.add_event(detail::lane_for(s, key), *e);
  }
  if (orphans > 0) {
    s.thread_names.try_emplace({current_pid(), kUnknownThreadTid}, "synchronization (thread unknown)");
    s.builder.metadata().notes.push_back(std::to_string(orphans) +
                                         " synchronization records had no matching API call; shown on the "
                                         "'thread unknown' lane");
  }
  s.syncs.clear();
}

void name_lanes(RecorderState& s) {
  for (const auto& [thread, name] : s.thread_names) {
    const std::optional<LaneIndex> lane = s.builder.find_lane(host_lane_key(thread.first, thread.second));
    if (!lane) continue;
    const bool is_placeholder = thread.second == kUnknownThreadTid;
    s.builder.set_lane_name(*lane, is_placeholder ? name : kineto::thread_lane_name(thread.second, name));
  }
  for (const ContextRecord& c : s.contexts) {
    if (const std::optional<LaneIndex> lane = s.builder.find_lane(gpu_lane_key(c.device, c.null_stream)))
      s.builder.set_lane_name(*lane, "stream " + std::to_string(c.null_stream) + " (default)");
  }
}

// Memory in use as counters: the change since the recording started, since allocations made before it are
// not seen (so a series can go below zero when such memory is freed).
void add_memory_counters(RecorderState& s, UnixNs origin) {
  std::stable_sort(s.memory.begin(), s.memory.end(),
                   [](const MemoryRecord& a, const MemoryRecord& b) { return a.time_ns < b.time_ns; });
  std::map<std::pair<std::int64_t, std::string_view>, std::int64_t> in_use_bytes;
  for (const MemoryRecord& r : s.memory) {
    const bool pinned = r.memory_kind == MemoryKind::Pinned;
    if (r.memory_kind == MemoryKind::Pageable || r.memory_kind == MemoryKind::Unknown) continue;
    const std::int64_t pid = pinned ? r.pid : r.device;
    const std::string_view series = pinned ? kPinnedMemorySeries : kDeviceMemorySeries;
    std::int64_t& bytes = in_use_bytes[{pid, series}];
    bytes += r.operation == MemoryOperation::Allocate ? r.bytes : -r.bytes;
    s.builder.add_counter_sample(pid, series, CounterSample{r.time_ns - origin, static_cast<double>(bytes)});
  }
  s.memory.clear();
}

void add_summary_notes(RecorderState& s) {
  TraceMetadata& meta = s.builder.metadata();
  if (meta.dropped_records > 0)
    meta.notes.push_back("CUPTI dropped " + std::to_string(meta.dropped_records) +
                         " records (its buffers were full): the GPU timeline has gaps");
  if (s.untimed_records > 0)
    meta.notes.push_back(std::to_string(s.untimed_records) + " records without timestamps were left out");
  if (s.reversed_records > 0)
    meta.notes.push_back(std::to_string(s.reversed_records) + " records ended before they started; kept as instants");
}

}  // namespace

void TraceRecorder::apply_pending(RecorderState& s) {
  place_syncs(s, origin_unix_ns_);
  name_lanes(s);
  add_memory_counters(s, origin_unix_ns_);
  add_summary_notes(s);
  for (auto& [index, device] : s.devices) s.builder.add_device(std::move(device));
  s.devices.clear();
  TraceMetadata& meta = s.builder.metadata();
  meta.origin_unix_ns = origin_unix_ns_;
  if (!s.source_tool_set) meta.source_tool = std::string("gtv ") + GTV_VERSION;
}

Expected<Trace> TraceRecorder::finish() {
  std::lock_guard lock(mutex_);
  apply_pending(*state_);
  Expected<Trace> trace = state_->builder.build();
  state_ = std::make_unique<RecorderState>();
  return trace;
}

}  // namespace gtv::collect
