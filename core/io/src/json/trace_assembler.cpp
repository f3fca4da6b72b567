#include "json/trace_assembler.h"

#include <algorithm>
#include <array>

#include "gtv/model/counter_names.h"
#include "gtv/model/kineto_names.h"
#include "json/number_text.h"

namespace gtv::io {
namespace {

// Numbers given to string pids/tids ("Spans", "PyTorch Profiler"): far above real process and thread ids.
constexpr std::int64_t kStringIdBase = 1'000'000'000'000;

bool equals_lower(std::string_view text, std::string_view lower) {
  if (text.size() != lower.size()) return false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != lower[i]) return false;
  }
  return true;
}

struct CategoryEntry {
  std::string_view name;  // lower case
  CategoryClass cls;
};

// Kineto's categories and the older capitalized ones ("Kernel", "Memcpy", "Runtime", "Operator").
constexpr std::array<CategoryEntry, 17> kCategories = {{
    {kineto::kCategoryKernel, {EventKind::Kernel, true}},
    {kineto::kCategoryCpuOp, {EventKind::CpuOp, false}},
    {kineto::kCategoryCudaRuntime, {EventKind::Runtime, false}},
    {kineto::kCategoryGpuMemcpy, {EventKind::Memcpy, true}},
    {kineto::kCategoryGpuMemset, {EventKind::Memset, true}},
    {kineto::kCategoryCudaDriver, {EventKind::Driver, false}},
    {kineto::kCategoryCudaSync, {EventKind::Sync, false}},
    {kineto::kCategoryUserAnnotation, {EventKind::Annotation, false}},
    {kineto::kCategoryGpuUserAnnotation, {EventKind::Annotation, true}},
    {kineto::kCategoryOverhead, {EventKind::Overhead, false}},
    {kineto::kCategoryInstant, {EventKind::Instant, false}},
    {"memcpy", {EventKind::Memcpy, true}},
    {"memset", {EventKind::Memset, true}},
    {"runtime", {EventKind::Runtime, false}},
    {"driver", {EventKind::Driver, false}},
    {"operator", {EventKind::CpuOp, false}},
    {"concurrent_kernel", {EventKind::Kernel, true}},
}};

constexpr std::string_view kOutsideRange = " is outside the accepted time range [-2^62, 2^62) ns";

bool is_digits(std::string_view s) {
  if (s.empty() || s.size() > 18) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

CategoryClass classify_category(std::string_view cat) {
  for (const CategoryEntry& e : kCategories)
    if (equals_lower(cat, e.name)) return e.cls;
  return {};
}

void memcpy_kinds_from_name(std::string_view name, MemcpyDetail& d) {
  // "Memcpy DtoH (Device -> Pinned)"
  if (name.substr(0, 7) != "Memcpy ") return;
  std::string_view rest = name.substr(7);
  const std::size_t space = rest.find(' ');
  d.copy_kind = copy_kind_from_string(rest.substr(0, space));
  const std::size_t open = rest.find('('), arrow = rest.find(" -> "), close = rest.find(')');
  if (open == std::string_view::npos || arrow == std::string_view::npos || close == std::string_view::npos ||
      !(open < arrow && arrow < close))
    return;
  d.src_kind = memory_kind_from_string(rest.substr(open + 1, arrow - open - 1));
  d.dst_kind = memory_kind_from_string(rest.substr(arrow + 4, close - arrow - 4));
}

void memset_kind_from_name(std::string_view name, MemsetDetail& d) {
  // "Memset (Device)"
  const std::size_t open = name.find('('), close = name.rfind(')');
  if (name.substr(0, 6) != "Memset" || open == std::string_view::npos || close == std::string_view::npos ||
      close < open)
    return;
  d.memory_kind = memory_kind_from_string(name.substr(open + 1, close - open - 1));
}

Status TraceAssembler::error(const RawEvent& ev, std::uint64_t base_offset, const std::string& what) const {
  return Error{file_ + ": event " + std::to_string(ev.index) + " (byte " + std::to_string(base_offset + ev.offset) +
               "): " + what};
}

void TraceAssembler::skip(std::string_view reason) { ++skipped_[std::string(reason)]; }

// Once a 16th of the input was read, sizes the storage for all of it, with a fifth more for uneven files (too much
// room costs address space only; too little, one more doubling).
void TraceAssembler::size_storage(std::uint64_t bytes_read) {
  if (storage_sized_ || input_bytes_ == 0 || bytes_read == 0 || bytes_read < input_bytes_ / 16) return;
  storage_sized_ = true;
  const double factor = 1.2 * static_cast<double>(input_bytes_) / static_cast<double>(bytes_read);
  builder_.reserve_for_growth(factor);
  flow_pairs_.reserve(static_cast<std::size_t>(static_cast<double>(flow_pairs_.size()) * factor));
}

Status TraceAssembler::add_chunk(const std::vector<RawEvent>& events, const std::vector<CounterValue>& counters,
                                 std::uint64_t base_offset) {
  size_storage(base_offset);  // the chunk starts after what was read so far
  for (const RawEvent& ev : events)
    if (Status s = add_event(ev, counters, base_offset); !s) return s;
  return ok_status();
}

std::int64_t TraceAssembler::resolve_id(const IdToken& id, bool is_pid) {
  if (id.type == IdToken::Type::Number) return id.number;
  if (id.type == IdToken::Type::None) return 0;
  if (is_digits(id.text)) return std::stoll(std::string(id.text));
  auto [it, inserted] = string_ids_.try_emplace(std::string(id.text), 0);
  if (inserted) it->second = kStringIdBase + next_string_id_++;
  if (is_pid && !id.text.empty()) string_process_names_.try_emplace(it->second, id.text);
  return it->second;
}

LaneIndex TraceAssembler::lane_for(const LaneKey& key) {
  // Events alternate between a handful of lanes: a short linear scan beats the builder's map for typical traces.
  for (const auto& [k, index] : recent_lanes_)
    if (k == key) return index;
  const LaneIndex index = builder_.lane(key);
  if (recent_lanes_.size() < kRecentLanes) recent_lanes_.emplace_back(key, index);
  return index;
}

Status TraceAssembler::add_event(const RawEvent& ev, const std::vector<CounterValue>& counters,
                                 std::uint64_t base_offset) {
  if (ev.args.gtv_range) return ok_status();  // a copy of a gtv range for other viewers; ranges come from "gtv"
  if (ev.ph.size() != 1) {
    skip(ev.ph.empty() ? "events without 'ph'" : "events with unknown phase");
    return ok_status();
  }
  const char ph = ev.ph[0];
  static constexpr std::string_view kTimed = "XBEiICsf";
  if (kTimed.find(ph) != std::string_view::npos && !ev.has_ts)
    return error(ev, base_offset, "'" + std::string(ev.ph) + "' event without 'ts'");
  if ((kTimed.find(ph) != std::string_view::npos || ph == 'C') && !in_trace_time_range(ev.ts_ns))
    return error(ev, base_offset, "'ts' " + std::to_string(ev.ts_ns) + " ns" + std::string(kOutsideRange));
  switch (ph) {
    case 'X': {
      if (!ev.has_dur) return error(ev, base_offset, "'X' event without 'dur'");
      if (ev.dur_ns < 0) return error(ev, base_offset, "negative duration " + std::to_string(ev.dur_ns) + " ns");
      if (!in_trace_time_range(saturating_add(ev.ts_ns, ev.dur_ns)))
        return error(ev, base_offset, "end (ts + dur)" + std::string(kOutsideRange));
      PendingEvent p;
      if (make_pending(ev, p)) commit(p);
      return ok_status();
    }
    case 'B': {
      PendingEvent p;
      if (!make_pending(ev, p)) return ok_status();
      p.owned_category.assign(p.category);
      p.category = {};
      open_begins_[{resolve_id(ev.pid, true), resolve_id(ev.tid, false)}].push_back(std::move(p));
      return ok_status();
    }
    case 'E': {
      auto it = open_begins_.find({resolve_id(ev.pid, true), resolve_id(ev.tid, false)});
      if (it == open_begins_.end() || it->second.empty()) {
        skip("'E' events without a matching 'B'");
        return ok_status();
      }
      PendingEvent p = std::move(it->second.back());
      it->second.pop_back();
      p.category = p.owned_category;
      p.event.duration_ns = saturating_sub(ev.ts_ns, p.event.start_ns);
      if (p.event.duration_ns < 0) return error(ev, base_offset, "'E' event before its 'B' (negative duration)");
      commit(p);
      return ok_status();
    }
    case 'i':
    case 'I': {
      PendingEvent p;
      if (make_pending(ev, p)) commit(p);
      if (ev.name == kineto::kMemoryEventName) add_memory_samples(ev);
      return ok_status();
    }
    case 'C':
      add_counter(ev, counters);
      return ok_status();
    case 'M':
      add_metadata(ev);
      return ok_status();
    case 's':
    case 'f':
      add_flow(ev);
      return ok_status();
    default:
      skip("events with unknown phase");
      return ok_status();
  }
}

std::uint32_t TraceAssembler::arg_set(std::string_view extra) {
  constexpr std::size_t kMaxSharedSets = 1 << 16;
  if (const auto it = arg_set_ids_.find(std::string(extra)); it != arg_set_ids_.end()) return it->second;
  extra_args_.clear();
  for_each_extra_arg(extra, [this](std::string_view arg_key, std::string_view value) {
    extra_args_.push_back({arg_key, value});
  });
  const std::uint32_t set = builder_.add_args(extra_args_);
  if (arg_set_ids_.size() < kMaxSharedSets) arg_set_ids_.emplace(extra, set);
  return set;
}

bool TraceAssembler::make_pending(const RawEvent& ev, PendingEvent& p) {
  CategoryClass cls = classify_category(ev.cat);
  const bool instant = ev.ph == "i" || ev.ph == "I";
  if (instant) cls.kind = EventKind::Instant;
  if (ev.args.gtv_lane == "host") cls.gpu = false;
  if (ev.args.gtv_lane == "gpu") cls.gpu = true;
  const std::int64_t pid = resolve_id(ev.pid, true);
  const std::int64_t tid = resolve_id(ev.tid, false);
  if (ev.tid.type == IdToken::Type::String && !ev.tid.text.empty())
    string_thread_names_.try_emplace({pid, tid}, ev.tid.text);
  const std::int64_t lane_tid = ev.args.has_gtv_tid ? ev.args.gtv_tid : tid;
  if (ev.args.has_gtv_tid) aliases_[{pid, tid}] = lane_tid;
  const LaneKey key =
      cls.gpu ? gpu_lane_key(ev.args.has_device ? ev.args.device : pid, ev.args.has_stream ? ev.args.stream : lane_tid)
              : host_lane_key(pid, lane_tid);
  p.lane = key;
  if (cls.kind == EventKind::Sync) add_kineto_wait(ev, key);
  p.event.start_ns = ev.ts_ns;
  p.event.duration_ns = instant ? 0 : ev.dur_ns;
  p.event.correlation_id = ev.args.correlation;
  p.event.name = builder_.intern(ev.name);
  p.event.kind = cls.kind;
  if (!ev.args.extra.empty()) p.event.args = arg_set(ev.args.extra);
  if (ev.args.external_id != kNoExternalId) p.event.args = builder_.add_external_id(p.event.args, ev.args.external_id);
  switch (cls.kind) {
    case EventKind::Kernel:
      p.kernel = ev.args.kernel;
      break;
    case EventKind::Memcpy:
      memcpy_kinds_from_name(ev.name, p.memcpy);
      p.memcpy.bytes = ev.args.bytes;
      p.memcpy.dst_device = ev.args.dst_device;
      if (!ev.args.copy_kind.empty()) p.memcpy.copy_kind = copy_kind_from_string(ev.args.copy_kind);
      if (!ev.args.src_kind.empty()) p.memcpy.src_kind = memory_kind_from_string(ev.args.src_kind);
      if (!ev.args.dst_kind.empty()) p.memcpy.dst_kind = memory_kind_from_string(ev.args.dst_kind);
      break;
    case EventKind::Memset:
      memset_kind_from_name(ev.name, p.memset);
      p.memset.bytes = ev.args.bytes;
      p.memset.value = static_cast<std::int32_t>(ev.args.memset_value);
      if (!ev.args.memory_kind.empty()) p.memset.memory_kind = memory_kind_from_string(ev.args.memory_kind);
      break;
    case EventKind::Other:
      p.category = ev.cat;
      break;
    default:
      break;
  }
  return true;
}

void TraceAssembler::commit(PendingEvent& p) {
  const LaneIndex lane = lane_for(p.lane);
  switch (p.event.kind) {
    case EventKind::Kernel:
      builder_.add_kernel(lane, p.event, p.kernel);
      break;
    case EventKind::Memcpy:
      builder_.add_memcpy(lane, p.event, p.memcpy);
      break;
    case EventKind::Memset:
      builder_.add_memset(lane, p.event, p.memset);
      break;
    case EventKind::Other:
      builder_.add_other(lane, p.event, p.category);
      break;
    default:
      builder_.add_event(lane, p.event);
      break;
  }
}

void TraceAssembler::add_metadata(const RawEvent& ev) {
  const std::int64_t pid = resolve_id(ev.pid, true);
  const std::int64_t tid = resolve_id(ev.tid, false);
  const RawArgs& a = ev.args;
  if (ev.name.substr(0, 8) == "process_") processes_[pid].pid = pid;
  if (ev.name == kineto::kMetaProcessName) {
    processes_[pid].name = std::string(a.text_name);
  } else if (ev.name == kineto::kMetaProcessLabels) {
    ProcessInfo& p = processes_[pid];
    p.labels.clear();
    std::string_view rest = a.labels;
    while (!rest.empty()) {
      const std::size_t comma = rest.find(',');
      if (std::string_view label = rest.substr(0, comma); !label.empty()) p.labels.emplace_back(label);
      rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    }
  } else if (ev.name == kineto::kMetaProcessSortIndex) {
    processes_[pid].sort_index = a.sort_index;
  } else if (ev.name == kineto::kMetaThreadName) {
    thread_names_[{pid, tid}] = std::string(a.text_name);
  } else if (ev.name == kineto::kMetaThreadSortIndex) {
    thread_sort_[{pid, tid}] = a.sort_index;
  } else {
    skip("metadata events of unknown kind");
  }
}

void TraceAssembler::add_counter(const RawEvent& ev, const std::vector<CounterValue>& counters) {
  const std::int64_t pid = resolve_id(ev.pid, true);
  const std::uint32_t end = ev.args.counter_first + ev.args.counter_count;
  if (ev.args.counter_count == 1 && (ev.name == counters::kTorchAllocated || ev.name == counters::kTorchReserved))
    memory_series_in_file_.insert({pid, ev.name == counters::kTorchReserved});
  for (std::uint32_t i = ev.args.counter_first; i < end && i < counters.size(); ++i) {
    if (ev.args.counter_count == 1) {
      builder_.add_counter_sample(pid, ev.name, {ev.ts_ns, counters[i].second});
    } else {
      builder_.add_counter_sample(pid, std::string(ev.name) + "/" + std::string(counters[i].first),
                                  {ev.ts_ns, counters[i].second});
    }
  }
  if (ev.args.counter_count == 0) skip("counter events without numeric args");
}

// A PyTorch memory event: the allocator's totals after one allocation or free on one device, kept as samples of
// that device's "allocated by PyTorch" and "reserved by PyTorch" series (GPU memory under the GPU's index, CPU
// memory under the process).
void TraceAssembler::add_memory_samples(const RawEvent& ev) {
  std::int64_t device_id = -1, device_type = -1, allocated = 0, reserved = 0;
  bool has_allocated = false, has_reserved = false;
  for_each_extra_arg(ev.args.extra, [&](std::string_view key, std::string_view value) {
    if (key == kineto::kArgTotalAllocated) {
      has_allocated = parse_scaled_decimal(value, 0, allocated);
    } else if (key == kineto::kArgTotalReserved) {
      has_reserved = parse_scaled_decimal(value, 0, reserved);
    } else if (key == kineto::kArgDeviceId) {
      if (!parse_scaled_decimal(value, 0, device_id)) device_id = -1;
    } else if (key == kineto::kArgDeviceType) {
      if (!parse_scaled_decimal(value, 0, device_type)) device_type = -1;
    }
  });
  constexpr std::int64_t kCpuDeviceType = 0;  // c10::DeviceType::CPU
  const bool on_cpu = device_id < 0 || device_type == kCpuDeviceType;
  const std::int64_t pid = on_cpu ? resolve_id(ev.pid, true) : device_id;
  if (has_allocated) memory_samples_.push_back({pid, false, {ev.ts_ns, static_cast<double>(allocated)}});
  if (has_reserved) memory_samples_.push_back({pid, true, {ev.ts_ns, static_cast<double>(reserved)}});
}

void TraceAssembler::add_memory_counters() {
  for (const MemorySample& m : memory_samples_) {
    if (memory_series_in_file_.count({m.pid, m.reserved}) != 0) continue;
    builder_.add_counter_sample(m.pid, m.reserved ? counters::kTorchReserved : counters::kTorchAllocated, m.sample);
  }
  memory_samples_.clear();
}

// A Kineto "cuda_sync" event as a wait hint (TraceBuilder::WaitHint has the rule). Kineto writes the waiting
// stream (args.stream, the GPU's stream for a Stream Wait Event), the call's correlation id and, for the waits on
// an event, the stream that event was recorded on and that cudaEventRecord's correlation id; -1 where unknown.
// Without args.device it is not Kineto's (gtv writes its links as "gtv_dependency" flows instead).
void TraceAssembler::add_kineto_wait(const RawEvent& ev, const LaneKey& sync_lane) {
  if (ev.args.correlation == kNoCorrelation || !ev.args.has_device) return;
  std::int64_t wait_on_stream = -1, record_correlation = -1;
  for_each_extra_arg(ev.args.extra, [&](std::string_view key, std::string_view value) {
    if (key == kineto::kArgWaitOnStream && !parse_scaled_decimal(value, 0, wait_on_stream)) wait_on_stream = -1;
    if (key == kineto::kArgWaitOnEventRecordCorrelation && !parse_scaled_decimal(value, 0, record_correlation))
      record_correlation = -1;
  });
  TraceBuilder::WaitHint w;
  w.wait_correlation = ev.args.correlation;
  w.waiter_lane = sync_lane;
  w.waiter_ts_ns = ev.ts_ns;
  const std::int64_t device = ev.args.device;
  const std::int64_t stream = ev.args.has_stream ? ev.args.stream : -1;
  w.source_device = device;
  if (ev.name == kineto::kSyncEventSynchronize || ev.name == kineto::kSyncStreamWaitEvent) {
    if (wait_on_stream < 0 || record_correlation <= 0) return;
    w.source_stream = wait_on_stream;
    w.source_before_correlation = static_cast<std::uint64_t>(record_correlation);
    if (ev.name == kineto::kSyncStreamWaitEvent) {
      if (stream < 0) return;
      w.waiter = TraceBuilder::Waiter::StreamWork;
      w.waiter_device = device;
      w.waiter_stream = stream;
    }
  } else if (ev.name == kineto::kSyncStreamSynchronize || ev.name == kineto::kSyncContextSynchronize) {
    if (ev.name == kineto::kSyncStreamSynchronize && stream < 0) return;
    w.source_stream = ev.name == kineto::kSyncStreamSynchronize ? stream : -1;
    w.source_before_correlation = ev.args.correlation;
  } else {
    return;
  }
  builder_.add_wait(w);
}

void TraceAssembler::add_flow(const RawEvent& ev) {
  FlowCategory category = FlowCategory::LaunchToGpu;
  if (equals_lower(ev.cat, kineto::kFlowForwardToBackward)) {
    category = FlowCategory::ForwardToBackward;
  } else if (equals_lower(ev.cat, kineto::kFlowDependency)) {
    category = FlowCategory::Dependency;
  } else if (!equals_lower(ev.cat, kineto::kFlowLaunchToGpu)) {
    skip("flow events other than 'ac2g', 'fwdbwd' and 'gtv_dependency'");
    return;
  }
  if (ev.id.type == IdToken::Type::None) {
    skip("flow events without 'id'");
    return;
  }
  const auto id = static_cast<std::uint64_t>(resolve_id(ev.id, false));
  auto& open = category == FlowCategory::ForwardToBackward ? backward_flows_
               : category == FlowCategory::Dependency      ? dependency_flows_
                                                           : flows_;
  FlowPair& pair = open[id];
  const std::int8_t gpu_lane = ev.args.gtv_lane == "gpu" ? 1 : ev.args.gtv_lane == "host" ? 0 : -1;
  const FlowEnd end{resolve_id(ev.pid, true), resolve_id(ev.tid, false), ev.ts_ns, gpu_lane};
  if (ev.args.correlation != kNoCorrelation) pair.correlation = ev.args.correlation;
  if (ev.ph == "s") {
    pair.start = end;
    pair.has_start = true;
  } else {
    pair.end = end;
    pair.has_end = true;
  }
  if (pair.has_start && pair.has_end) {
    pair.id = id;
    pair.category = category;
    flow_pairs_.push_back(pair);
    open.erase(id);
  }
}

}  // namespace gtv::io
