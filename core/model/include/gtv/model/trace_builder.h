#pragma once
// TraceBuilder collects events in any order from readers and collectors, then build() sorts each lane, assigns
// nesting depths, joins flows by correlation id and validates. After build() the builder is empty.
#include <map>
#include <optional>
#include <unordered_map>

#include "gtv/base/expected.h"
#include "gtv/model/trace.h"

namespace gtv {

class TraceBuilder {
 public:
  TraceBuilder();

  StringId intern(std::string_view text) { return trace_.strings_.intern(text); }
  TraceMetadata& metadata() { return trace_.metadata_; }

  // The lane for key, created on first use. The name defaults to "thread <tid>" / "stream <stream>".
  LaneIndex lane(const LaneKey& key);
  // The lane for key if one was created, without creating it (to name or link lanes once all events are in).
  [[nodiscard]] std::optional<LaneIndex> find_lane(const LaneKey& key) const;
  [[nodiscard]] const LaneKey& lane_key(LaneIndex lane) const { return trace_.lanes_[lane].key; }
  void set_lane_name(LaneIndex lane, std::string name);
  void set_lane_sort_index(LaneIndex lane, std::int64_t sort_index);
  [[nodiscard]] std::size_t lane_count() const { return trace_.lanes_.size(); }

  // Adds an event; depth is ignored (assigned by build). Returns its position in insertion order.
  void add_event(LaneIndex lane, const Event& event);
  void add_kernel(LaneIndex lane, Event event, const KernelDetail& detail);
  void add_memcpy(LaneIndex lane, Event event, const MemcpyDetail& detail);
  void add_memset(LaneIndex lane, Event event, const MemsetDetail& detail);
  // An event of a category gtv does not know: kept with its category text.
  void add_other(LaneIndex lane, Event event, std::string_view category);

  // Stores args the model does not hold (key, JSON value) and returns the index for Event::args.
  [[nodiscard]] std::uint32_t add_args(std::span<const EventArg> args);

  void add_range(Range range) { trace_.ranges_.push_back(std::move(range)); }
  void add_measurement(Measurement m) { trace_.measurements_.push_back(std::move(m)); }
  void add_device(DeviceInfo device);
  // Creates or updates the process entry for pid.
  ProcessInfo& process(std::int64_t pid);
  void add_counter_sample(std::int64_t pid, std::string_view name, CounterSample sample);
  // An explicit flow (e.g. a Kineto "ac2g" pair) for events that carry no correlation id: joined at build().
  void add_flow_hint(std::uint64_t id, LaneIndex from_lane, TimeNs from_ts_ns, LaneIndex to_lane, TimeNs to_ts_ns);

  [[nodiscard]] std::size_t event_count() const { return event_count_; }
  // Room for about `factor` times what was added so far, spread over the lanes and detail tables as they are now,
  // so that their storage grows once instead of doubling step by step (each step copies and faults in fresh
  // pages). For readers that know which share of their input they have read; untouched room is address space only.
  void reserve_for_growth(double factor);
  // A Kineto "fwdbwd" pair (forward op -> backward op), its ends found like those of add_flow_hint's.
  void add_backward_hint(std::uint64_t id, LaneIndex from_lane, TimeNs from_ts_ns, LaneIndex to_lane, TimeNs to_ts_ns);
  // Room for this many flow hints.
  void reserve_flow_hints(std::size_t count) { flow_hints_.reserve(count); }

  // Validates (no negative durations) and finalizes. Errors name the lane and the event.
  [[nodiscard]] Expected<Trace> build();

  // What add_flow_hint records.
  struct FlowHint {
    std::uint64_t id;
    LaneIndex from_lane;
    TimeNs from_ts_ns;
    LaneIndex to_lane;
    TimeNs to_ts_ns;
  };

 private:
  Status validate() const;
  void release_unused_room();
  void sort_lanes();
  void assign_depths(Lane& lane);
  void join_flows();
  void compute_extent();

  Trace trace_;
  std::map<LaneKey, LaneIndex> lane_index_;
  // Positions in trace_.processes_ and trace_.devices_: files may name 100k processes or devices.
  std::unordered_map<std::int64_t, std::size_t> process_index_;
  std::unordered_map<std::int32_t, std::size_t> device_index_;
  std::map<std::pair<std::int64_t, std::string>, std::size_t> counter_index_;
  std::vector<FlowHint> flow_hints_;
  std::vector<FlowHint> backward_hints_;
  std::size_t event_count_ = 0;
};

}  // namespace gtv
