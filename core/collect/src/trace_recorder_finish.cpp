// TraceRecorder::finish: the steps that need the whole recording before the Trace can be built.
#include <algorithm>
#include <optional>
#include <unordered_map>

#include "gtv/collect/names.h"
#include "gtv/collect/thread_id.h"
#include "gtv/collect/trace_recorder.h"
#include "gtv/config.h"
#include "gtv/model/counter_names.h"
#include "gtv/model/kineto_names.h"
#include "recorder_state.h"

namespace gtv::collect {
namespace {

using detail::RecorderState;

constexpr std::int64_t kUnknownThreadTid = 0;

// What the synchronizations of one recording waited for: the cudaEventRecord each event wait refers to and the
// device of each context.
class WaitSources {
 public:
  explicit WaitSources(const RecorderState& s) : records_(s.event_records) {
    for (const ContextRecord& c : s.contexts) context_device_[c.context_id] = c.device;
    std::sort(records_.begin(), records_.end(),
              [](const CudaEventRecord& a, const CudaEventRecord& b) { return a.correlation_id < b.correlation_id; });
    for (std::size_t i = 0; i < records_.size(); ++i) {
      if (records_[i].event_sync_id != kNoEventSyncId) by_sync_id_.emplace(records_[i].event_sync_id, i);
      by_event_[records_[i].cuda_event].push_back(i);
    }
  }

  [[nodiscard]] std::int64_t device_of(std::int32_t device, std::uint32_t context_id) const {
    if (device != kUnknownDevice) return device;
    auto it = context_device_.find(context_id);
    return it == context_device_.end() ? -1 : it->second;
  }

  // The record a wait waits on: the one CUPTI names by its sync id, else the last record of the same event made
  // before the wait (by correlation id).
  [[nodiscard]] const CudaEventRecord* record_waited_on(const SyncRecord& r) const {
    if (r.event_sync_id != kNoEventSyncId) {
      auto it = by_sync_id_.find(r.event_sync_id);
      return it == by_sync_id_.end() ? nullptr : &records_[it->second];
    }
    auto same_event = by_event_.find(r.cuda_event);
    if (r.cuda_event == kUnknownCudaEvent || same_event == by_event_.end()) return nullptr;
    const std::vector<std::size_t>& made = same_event->second;  // by correlation id
    auto after = std::lower_bound(made.begin(), made.end(), r.correlation_id,
                                  [&](std::size_t i, std::uint64_t id) { return records_[i].correlation_id < id; });
    return after == made.begin() ? nullptr : &records_[*std::prev(after)];
  }

 private:
  std::vector<CudaEventRecord> records_;  // by correlation id
  std::unordered_map<std::uint64_t, std::size_t> by_sync_id_;
  std::unordered_map<std::int64_t, std::vector<std::size_t>> by_event_;  // indices into records_
  std::unordered_map<std::uint32_t, std::int64_t> context_device_;
};

// The dependency of one synchronization (TraceBuilder::WaitHint has the rule): the work it waited for, and the
// Sync event at (waiter_lane, waiter_ts_ns) or, for a stream wait, the next work launched on the waiting stream.
std::optional<TraceBuilder::WaitHint> wait_hint(const WaitSources& sources, const SyncRecord& r, LaneKey waiter_lane,
                                                TimeNs waiter_ts_ns) {
  if (r.correlation_id == kNoCorrelation) return std::nullopt;
  TraceBuilder::WaitHint w;
  w.wait_correlation = r.correlation_id;
  w.waiter_lane = waiter_lane;
  w.waiter_ts_ns = waiter_ts_ns;
  const std::int64_t device = sources.device_of(r.device, r.context_id);
  switch (r.kind) {
    case SyncKind::StreamWaitEvent:
    case SyncKind::EventSynchronize: {
      const CudaEventRecord* record = sources.record_waited_on(r);
      if (record == nullptr || record->stream == kUnknownStream) return std::nullopt;
      w.source_device = sources.device_of(record->device, record->context_id);
      w.source_stream = record->stream;
      w.source_before_correlation = record->correlation_id;
      if (r.kind == SyncKind::StreamWaitEvent) {
        if (r.stream == kUnknownStream) return std::nullopt;
        w.waiter = TraceBuilder::Waiter::StreamWork;
        w.waiter_device = device;
        w.waiter_stream = r.stream;
      }
      return w;
    }
    case SyncKind::StreamSynchronize:
      if (r.stream == kUnknownStream) return std::nullopt;
      w.source_device = device;
      w.source_stream = r.stream;
      w.source_before_correlation = r.correlation_id;
      return w;
    case SyncKind::ContextSynchronize:
      if (device < 0) return std::nullopt;  // every stream of which device is not known
      w.source_device = device;
      w.source_before_correlation = r.correlation_id;
      return w;
    case SyncKind::Unknown:
      break;
  }
  return std::nullopt;
}

// CUPTI's synchronization records carry no thread, only the correlation id of the API call that waited
// (cudaStreamSynchronize, cudaDeviceSynchronize, cudaEventSynchronize ...). The wait goes on that call's lane,
// nested inside it. Without the call (filtered or dropped) it goes on a "thread unknown" lane of this process.
// Each also becomes a dependency link from the work it waited for (with the CUDA_EVENT records for event waits).
void place_syncs(RecorderState& s, UnixNs origin) {
  const WaitSources sources(s);
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
    if (auto hint = wait_hint(sources, r, key, e->start_ns)) s.builder.add_wait(*hint);
  }
  if (orphans > 0) {
    s.thread_names.try_emplace({current_pid(), kUnknownThreadTid}, "synchronization (thread unknown)");
    s.builder.metadata().notes.push_back(std::to_string(orphans) +
                                         " synchronization records had no matching API call; shown on the "
                                         "'thread unknown' lane");
  }
  s.syncs.clear();
  s.event_records.clear();
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
    const std::string_view series = pinned ? counters::kPinnedMemorySinceStart : counters::kDeviceMemorySinceStart;
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
