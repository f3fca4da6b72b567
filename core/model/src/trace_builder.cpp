#include "gtv/model/trace_builder.h"

#include <algorithm>
#include <limits>
#include <new>
#include <numeric>

#include "dependency_join.h"
#include "flow_join.h"
#include "gtv/model/kineto_names.h"

namespace gtv {
namespace {

constexpr std::size_t kMaxDepth = std::numeric_limits<std::uint16_t>::max();

bool start_order(const Event& a, const Event& b) {
  if (a.start_ns != b.start_ns) return a.start_ns < b.start_ns;
  return a.duration_ns > b.duration_ns;  // the enclosing event first
}

bool lane_order(const Lane& a, const Lane& b) {
  if (a.key.kind != b.key.kind) return a.key.kind == LaneKind::HostThread;
  if (a.key.pid != b.key.pid) return a.key.pid < b.key.pid;
  if (a.sort_index != b.sort_index) return a.sort_index < b.sort_index;
  return a.key.tid < b.key.tid;
}

}  // namespace

TraceBuilder::TraceBuilder() = default;

LaneIndex TraceBuilder::lane(const LaneKey& key) {
  if (auto it = lane_index_.find(key); it != lane_index_.end()) return it->second;
  const auto index = static_cast<LaneIndex>(trace_.lanes_.size());
  Lane& lane = trace_.lanes_.emplace_back();
  lane.key = key;
  lane.name = (key.kind == LaneKind::GpuStream ? "stream " : "thread ") + std::to_string(key.tid);
  lane.sort_index = key.kind == LaneKind::GpuStream ? key.tid : 0;
  lane_index_.emplace(key, index);
  return index;
}

std::optional<LaneIndex> TraceBuilder::find_lane(const LaneKey& key) const {
  if (auto it = lane_index_.find(key); it != lane_index_.end()) return it->second;
  return std::nullopt;
}

void TraceBuilder::set_lane_name(LaneIndex lane, std::string name) { trace_.lanes_[lane].name = std::move(name); }
void TraceBuilder::set_lane_sort_index(LaneIndex lane, std::int64_t sort_index) {
  trace_.lanes_[lane].sort_index = sort_index;
}

void TraceBuilder::add_event(LaneIndex lane, const Event& event) {
  trace_.lanes_[lane].events.push_back(event);
  ++event_count_;
}

void TraceBuilder::add_kernel(LaneIndex lane, Event event, const KernelDetail& detail) {
  event.kind = EventKind::Kernel;
  event.detail = static_cast<std::uint32_t>(trace_.kernels_.size());
  trace_.kernels_.push_back(detail);
  add_event(lane, event);
}

void TraceBuilder::add_memcpy(LaneIndex lane, Event event, const MemcpyDetail& detail) {
  event.kind = EventKind::Memcpy;
  event.detail = static_cast<std::uint32_t>(trace_.memcpys_.size());
  trace_.memcpys_.push_back(detail);
  add_event(lane, event);
}

void TraceBuilder::add_memset(LaneIndex lane, Event event, const MemsetDetail& detail) {
  event.kind = EventKind::Memset;
  event.detail = static_cast<std::uint32_t>(trace_.memsets_.size());
  trace_.memsets_.push_back(detail);
  add_event(lane, event);
}

std::uint32_t TraceBuilder::add_args(std::span<const EventArg> args) {
  if (args.empty()) return kNoArgs;
  Trace::ArgShape shape;
  shape.text_offset = trace_.arg_text_.size();
  shape.first = static_cast<std::uint32_t>(trace_.arg_entries_.size());
  shape.count = static_cast<std::uint32_t>(args.size());
  for (const EventArg& arg : args) {
    trace_.arg_entries_.push_back({intern(arg.key), static_cast<std::uint32_t>(arg.value_json.size())});
    trace_.arg_text_.append(arg.value_json);
  }
  trace_.arg_sets_.push_back({static_cast<std::uint32_t>(trace_.arg_shapes_.size()), kNoExternalId});
  trace_.arg_shapes_.push_back(shape);
  return static_cast<std::uint32_t>(trace_.arg_sets_.size() - 1);
}

std::uint32_t TraceBuilder::add_external_id(std::uint32_t set, std::int64_t external_id) {
  Trace::ArgSet with_id = set < trace_.arg_sets_.size() ? trace_.arg_sets_[set] : Trace::ArgSet{};
  with_id.external_id = external_id;
  trace_.arg_sets_.push_back(with_id);
  return static_cast<std::uint32_t>(trace_.arg_sets_.size() - 1);
}

std::uint32_t TraceBuilder::copy_args(const Trace& source, std::uint32_t source_args, ArgCopyMemo& memo) {
  if (source_args >= source.arg_sets_.size()) return kNoArgs;
  const Trace::ArgSet& set = source.arg_sets_[source_args];
  const bool shared = set.external_id == kNoExternalId;
  if (shared)
    if (auto it = memo.sets.find(source_args); it != memo.sets.end()) return it->second;
  Trace::ArgSet copy{Trace::kNoShape, set.external_id};
  if (set.shape != Trace::kNoShape) {
    auto [it, fresh] = memo.shapes.try_emplace(set.shape, 0);
    if (fresh) {
      const Trace::ArgShape& from = source.arg_shapes_[set.shape];
      Trace::ArgShape shape{trace_.arg_text_.size(), static_cast<std::uint32_t>(trace_.arg_entries_.size()),
                            from.count};
      std::uint64_t offset = from.text_offset;
      for (std::uint32_t i = 0; i < from.count; ++i) {
        const Trace::ArgEntry& entry = source.arg_entries_[from.first + i];
        trace_.arg_entries_.push_back({intern(source.strings_.view(entry.key)), entry.value_bytes});
        trace_.arg_text_.append(source.arg_text_, offset, entry.value_bytes);
        offset += entry.value_bytes;
      }
      it->second = static_cast<std::uint32_t>(trace_.arg_shapes_.size());
      trace_.arg_shapes_.push_back(shape);
    }
    copy.shape = it->second;
  }
  trace_.arg_sets_.push_back(copy);
  const auto index = static_cast<std::uint32_t>(trace_.arg_sets_.size() - 1);
  if (shared) memo.sets.emplace(source_args, index);
  return index;
}

void TraceBuilder::add_other(LaneIndex lane, Event event, std::string_view category) {
  event.kind = EventKind::Other;
  event.detail = intern(category);
  add_event(lane, event);
}

void TraceBuilder::reserve_events(LaneIndex lane, std::size_t more_events) {
  std::vector<Event>& events = trace_.lanes_[lane].events;
  events.reserve(events.size() + more_events);
}

void TraceBuilder::reserve_details(std::size_t kernels, std::size_t memcpys, std::size_t memsets) {
  trace_.kernels_.reserve(trace_.kernels_.size() + kernels);
  trace_.memcpys_.reserve(trace_.memcpys_.size() + memcpys);
  trace_.memsets_.reserve(trace_.memsets_.size() + memsets);
}

void TraceBuilder::reserve_for_growth(double factor) {
  auto grow = [factor](auto& v) {
    const double wanted = static_cast<double>(v.size()) * factor;
    if (wanted <= static_cast<double>(v.capacity()) || wanted >= static_cast<double>(v.max_size())) return;
    try {
      v.reserve(static_cast<std::size_t>(wanted));
    } catch (const std::bad_alloc&) {
      // Only an estimate was refused (a file whose events all come first): the vector grows as it fills.
    }
  };
  for (Lane& lane : trace_.lanes_) grow(lane.events);
  grow(trace_.kernels_);
  grow(trace_.memcpys_);
  grow(trace_.memsets_);
  grow(trace_.arg_sets_);
  grow(trace_.arg_shapes_);
  grow(trace_.arg_entries_);
  grow(trace_.arg_text_);
}

// Gives back room a growth estimate reserved far beyond what came (at most twice the size is kept).
void TraceBuilder::release_unused_room() {
  auto trim = [](auto& v) {
    if (v.capacity() > 2 * v.size() + 1024) v.shrink_to_fit();
  };
  for (Lane& lane : trace_.lanes_) trim(lane.events);
  trim(trace_.kernels_);
  trim(trace_.memcpys_);
  trim(trace_.memsets_);
  trim(trace_.arg_sets_);
  trim(trace_.arg_shapes_);
  trim(trace_.arg_entries_);
  trim(trace_.arg_text_);
}

void TraceBuilder::add_device(DeviceInfo device) {
  auto [it, inserted] = device_index_.try_emplace(device.index, trace_.devices_.size());
  if (inserted)
    trace_.devices_.push_back(std::move(device));
  else
    trace_.devices_[it->second] = std::move(device);
}

ProcessInfo& TraceBuilder::process(std::int64_t pid) {
  auto [it, inserted] = process_index_.try_emplace(pid, trace_.processes_.size());
  if (!inserted) return trace_.processes_[it->second];
  ProcessInfo& p = trace_.processes_.emplace_back();
  p.pid = pid;
  return p;
}

void TraceBuilder::add_counter_sample(std::int64_t pid, std::string_view name, CounterSample sample) {
  auto key = std::make_pair(pid, std::string(name));
  auto it = counter_index_.find(key);
  if (it == counter_index_.end()) {
    it = counter_index_.emplace(std::move(key), trace_.counters_.size()).first;
    trace_.counters_.push_back(CounterSeries{pid, std::string(name), {}});
  }
  trace_.counters_[it->second].samples.push_back(sample);
}

std::size_t TraceBuilder::remove_counter_series(std::string_view name) {
  std::vector<CounterSeries>& all = trace_.counters_;
  const std::size_t before = all.size();
  all.erase(std::remove_if(all.begin(), all.end(), [&](const CounterSeries& s) { return s.name == name; }), all.end());
  if (all.size() == before) return 0;
  counter_index_.clear();
  for (std::size_t i = 0; i < all.size(); ++i) counter_index_.emplace(std::make_pair(all[i].pid, all[i].name), i);
  return before - all.size();
}

void TraceBuilder::add_backward_hint(std::uint64_t id, LaneIndex from_lane, TimeNs from_ts_ns, LaneIndex to_lane,
                                     TimeNs to_ts_ns) {
  backward_hints_.push_back({id, from_lane, from_ts_ns, to_lane, to_ts_ns});
}

void TraceBuilder::add_dependency_hint(std::uint64_t id, LaneIndex from_lane, TimeNs from_ts_ns, LaneIndex to_lane,
                                       TimeNs to_ts_ns) {
  dependency_hints_.push_back({id, from_lane, from_ts_ns, to_lane, to_ts_ns});
}

void TraceBuilder::add_flow_hint(std::uint64_t id, LaneIndex from_lane, TimeNs from_ts_ns, LaneIndex to_lane,
                                 TimeNs to_ts_ns) {
  flow_hints_.push_back({id, from_lane, from_ts_ns, to_lane, to_ts_ns});
}

Status TraceBuilder::validate() const {
  for (const Lane& lane : trace_.lanes_) {
    for (std::size_t i = 0; i < lane.events.size(); ++i) {
      const Event& e = lane.events[i];
      if (e.duration_ns < 0) {
        return Error{"event '" + std::string(trace_.strings_.view(e.name)) + "' on " + lane.name +
                     " has a negative duration (" + std::to_string(e.duration_ns) + " ns)"};
      }
      if (!in_trace_time_range(e.start_ns) || !in_trace_time_range(saturating_add(e.start_ns, e.duration_ns))) {
        return Error{"event '" + std::string(trace_.strings_.view(e.name)) + "' on " + lane.name +
                     " lies outside the accepted time range [-2^62, 2^62) ns"};
      }
    }
  }
  return ok_status();
}

void TraceBuilder::assign_depths(Lane& lane) {
  // Readers and recorders mostly deliver events in order already: checking is much cheaper than sorting.
  if (!std::is_sorted(lane.events.begin(), lane.events.end(), start_order))
    std::stable_sort(lane.events.begin(), lane.events.end(), start_order);
  std::vector<TimeNs> open_ends;  // ends of the enclosing events, innermost last
  lane.by_depth.clear();
  for (std::size_t i = 0; i < lane.events.size(); ++i) {
    Event& e = lane.events[i];
    while (!open_ends.empty() && open_ends.back() <= e.start_ns) open_ends.pop_back();
    // A partial overlap (starts inside, ends after) still stacks below: nothing is dropped or moved in time.
    const std::size_t depth = std::min(open_ends.size(), kMaxDepth);
    e.depth = static_cast<std::uint16_t>(depth);
    if (lane.by_depth.size() <= depth) lane.by_depth.resize(depth + 1);
    lane.by_depth[depth].push_back(static_cast<std::uint32_t>(i));
    if (open_ends.size() < kMaxDepth) open_ends.push_back(e.end_ns());
  }
}

void TraceBuilder::sort_lanes() {
  std::vector<LaneIndex> order(trace_.lanes_.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](LaneIndex a, LaneIndex b) { return lane_order(trace_.lanes_[a], trace_.lanes_[b]); });
  std::vector<LaneIndex> new_index(order.size());
  std::vector<Lane> sorted;
  sorted.reserve(order.size());
  for (LaneIndex i = 0; i < order.size(); ++i) {
    new_index[order[i]] = i;
    sorted.push_back(std::move(trace_.lanes_[order[i]]));
  }
  trace_.lanes_ = std::move(sorted);
  for (auto* hints : {&flow_hints_, &backward_hints_, &dependency_hints_}) {
    for (auto& hint : *hints) {
      hint.from_lane = new_index[hint.from_lane];
      hint.to_lane = new_index[hint.to_lane];
    }
  }
}

void TraceBuilder::join_flows() {
  trace_.flows_ = flow_join::join(trace_.lanes_, flow_hints_);
  trace_.flow_by_from_ = flow_join::order_by_from(trace_.lanes_, trace_.flows_);
  trace_.flow_by_to_ = flow_join::order_by_to(trace_.lanes_, trace_.flows_);
  trace_.backward_links_ = flow_join::join_hints(trace_.lanes_, backward_hints_, FlowKind::ForwardToBackward);
  trace_.dependencies_ = dependency_join::join(trace_.lanes_, dependency_hints_, wait_hints_);
  trace_.dependency_by_from_ = flow_join::order_by_from(trace_.lanes_, trace_.dependencies_);
  trace_.dependency_by_to_ = flow_join::order_by_to(trace_.lanes_, trace_.dependencies_);
}

void TraceBuilder::compute_extent() {
  constexpr TimeNs kNone = std::numeric_limits<TimeNs>::max();
  TimeNs lo = kNone, hi = std::numeric_limits<TimeNs>::min();
  TimeNs activity_lo = kNone, activity_hi = std::numeric_limits<TimeNs>::min();
  auto extend = [&](TimeNs start, TimeNs end, bool marker) {
    lo = std::min(lo, start);
    hi = std::max(hi, end);
    if (marker) return;
    activity_lo = std::min(activity_lo, start);
    activity_hi = std::max(activity_hi, end);
  };
  const StringId profiler_span = trace_.strings_.find(kineto::kCategoryProfilerSpan);
  for (const Lane& lane : trace_.lanes_)
    for (const Event& e : lane.events)
      extend(e.start_ns, e.end_ns(),
             e.kind == EventKind::Instant ||
                 (e.kind == EventKind::Other && profiler_span != kEmptyString && e.detail == profiler_span));
  for (const Range& r : trace_.ranges_) extend(r.start_ns, r.end_ns, false);
  for (const Measurement& m : trace_.measurements_) extend(m.host_start_ns, m.host_end_ns, false);
  if (lo > hi) lo = hi = 0;
  if (activity_lo > activity_hi) activity_lo = lo, activity_hi = hi;
  trace_.start_ns_ = lo;
  trace_.end_ns_ = hi;
  trace_.activity_start_ns_ = activity_lo;
  trace_.activity_end_ns_ = activity_hi;
  trace_.event_count_ = event_count_;
}

Expected<Trace> TraceBuilder::build() {
  if (Status s = validate(); !s) return s.error();
  release_unused_room();
  for (Lane& lane : trace_.lanes_) assign_depths(lane);
  sort_lanes();
  join_flows();
  std::sort(trace_.ranges_.begin(), trace_.ranges_.end(),
            [](const Range& a, const Range& b) { return a.start_ns < b.start_ns; });
  std::sort(trace_.devices_.begin(), trace_.devices_.end(),
            [](const DeviceInfo& a, const DeviceInfo& b) { return a.index < b.index; });
  std::sort(trace_.processes_.begin(), trace_.processes_.end(),
            [](const ProcessInfo& a, const ProcessInfo& b) { return a.pid < b.pid; });
  for (auto& series : trace_.counters_)
    std::stable_sort(series.samples.begin(), series.samples.end(),
                     [](const CounterSample& a, const CounterSample& b) { return a.time_ns < b.time_ns; });
  compute_extent();
  trace_.index_lanes();
  trace_.index_ranks();
  Trace result = std::move(trace_);
  *this = TraceBuilder();
  return result;
}

}  // namespace gtv
