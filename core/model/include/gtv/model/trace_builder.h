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
  // Event::args for the args of set (kNoArgs: none) with an External id (Trace::external_id).
  [[nodiscard]] std::uint32_t add_external_id(std::uint32_t set, std::int64_t external_id);
  // Event::args of an event of another trace, as a set of this builder's with the same args and External id. Each
  // shape (and each set without an External id) of the source is copied once: memo remembers them, one per source.
  struct ArgCopyMemo {
    std::unordered_map<std::uint32_t, std::uint32_t> shapes, sets;
  };
  [[nodiscard]] std::uint32_t copy_args(const Trace& source, std::uint32_t source_args, ArgCopyMemo& memo);

  void add_range(Range range) { trace_.ranges_.push_back(std::move(range)); }
  void add_measurement(Measurement m) { trace_.measurements_.push_back(std::move(m)); }
  void add_device(DeviceInfo device);
  // Creates or updates the process entry for pid.
  ProcessInfo& process(std::int64_t pid);
  void add_counter_sample(std::int64_t pid, std::string_view name, CounterSample sample);
  // Forgets every series of that name (any pid); returns how many there were.
  std::size_t remove_counter_series(std::string_view name);
  // An explicit flow (e.g. a Kineto "ac2g" pair) for events that carry no correlation id: joined at build().
  void add_flow_hint(std::uint64_t id, LaneIndex from_lane, TimeNs from_ts_ns, LaneIndex to_lane, TimeNs to_ts_ns);

  [[nodiscard]] std::size_t event_count() const { return event_count_; }
  // Room for about `factor` times what was added so far, spread over the lanes and detail tables as they are now,
  // so that their storage grows once instead of doubling step by step (each step copies and faults in fresh
  // pages). For readers that know which share of their input they have read; untouched room is address space only.
  void reserve_for_growth(double factor);
  // Room for this many more events on a lane and rows in the detail tables (a merge knows its sizes up front).
  void reserve_events(LaneIndex lane, std::size_t more_events);
  void reserve_details(std::size_t kernels, std::size_t memcpys, std::size_t memsets);
  // A Kineto "fwdbwd" pair (forward op -> backward op), its ends found like those of add_flow_hint's.
  void add_backward_hint(std::uint64_t id, LaneIndex from_lane, TimeNs from_ts_ns, LaneIndex to_lane, TimeNs to_ts_ns);
  // Room for this many flow hints.
  void reserve_flow_hints(std::size_t count) { flow_hints_.reserve(count); }
  // A dependency link with both ends known (a gtv file's "gtv_dependency" pair), ends found like add_flow_hint's.
  void add_dependency_hint(std::uint64_t id, LaneIndex from_lane, TimeNs from_ts_ns, LaneIndex to_lane,
                           TimeNs to_ts_ns);

  // Who waited in a synchronization: the GPU work that a stream wait held, or a host call.
  enum class Waiter : std::uint8_t { StreamWork, HostSync };
  // A synchronization that waited for GPU work, joined into a Trace::dependencies() link at build(), once every
  // event is in. The rule follows CUDA's semantics: work on one stream runs in the order it was launched, and
  // correlation ids number the API calls of a process in the order they were made.
  //  - from, the work waited for: of the GPU work (kernels, copies, memsets) on source_stream of source_device
  //    launched before source_before_correlation (a lower correlation id), the one that ends last. For an event
  //    wait, the stream the event was recorded on and the correlation id of that cudaEventRecord: the event
  //    completes when the work queued before it does. For cudaStreamSynchronize, the stream and the call's own
  //    id; for cudaDeviceSynchronize (cuCtxSynchronize), source_stream -1: every stream of the device.
  //  - to, the waiter: for Waiter::StreamWork (cudaStreamWaitEvent), the GPU work on waiter_stream of
  //    waiter_device launched first after wait_correlation, the wait call's id: the work the wait holds back. For
  //    Waiter::HostSync, the event on waiter_lane that starts at waiter_ts_ns (a Sync event where there are
  //    several).
  // A device of -1 matches any device (CUPTI numbers streams uniquely within a process); a device that has no
  // lane for the stream falls back to any device. GPU work without a correlation id is never an end. Without
  // either end there is no link; a link joined twice (from a file's flow and from its sync args) is kept once.
  struct WaitHint {
    Waiter waiter = Waiter::HostSync;
    std::int64_t source_device = -1;
    std::int64_t source_stream = -1;  // -1: every stream of source_device
    std::uint64_t source_before_correlation = kNoCorrelation;
    std::uint64_t wait_correlation = kNoCorrelation;  // the waiting call's; becomes Flow::correlation_id
    std::int64_t waiter_device = -1;                  // Waiter::StreamWork
    std::int64_t waiter_stream = -1;
    LaneKey waiter_lane;  // Waiter::HostSync
    TimeNs waiter_ts_ns = 0;
  };
  void add_wait(const WaitHint& wait) { wait_hints_.push_back(wait); }

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
  std::vector<FlowHint> dependency_hints_;
  std::vector<WaitHint> wait_hints_;
  std::size_t event_count_ = 0;
};

}  // namespace gtv
